"""WebVLN's files (FORMATS.md §2), derived from the recorded traces of WebVLN pairs:
``webvln/map.json`` (every page of every site, with its buttons and where they lead),
``webvln/shortest_paths.json``, ``webvln/seen/{train,val,test}.json`` (episodes) and a
crop of every button whose box was recorded, ``webvln/imgs/<clickable_id>.png``.

A site's graph: its pages are the distinct URLs (without fragment) that its traces
visited on its host; an edge is a click or submit that led from one page to the next
(the step's ``target`` is the element clicked on the page before), or a recorded
clickable whose link resolves to another page of the graph. Sites are built one at a
time, so memory holds one site's graph, not the release's."""

import io
import json
from collections import deque
from urllib.parse import urldefrag, urljoin, urlsplit

from django.core.files.storage import default_storage
from PIL import Image

from ..snapshot import host_of, target_step
from .gold import private_path

SETTING = "seen"
EDGE_ACTIONS = ("click", "submit")


def page_url(url):
    return urldefrag(url or "")[0]


def website_id(host):
    return host.replace("_", "-") or "site"


class SiteGraph:
    def __init__(self, host):
        self.host = host
        self.site_id = website_id(host)
        self.pages = {}  # url -> {"id", "screen", "clickables": [target, ...]}
        self.buttons = {}  # url -> {(text, next_url): target}
        self.traces = set()

    def url_id(self, url):
        return self.pages[url]["id"]

    def _page(self, step):
        url = page_url(step["url"])
        if url not in self.pages:
            self.pages[url] = {"id": f"{self.site_id}_{len(self.pages)}", "screen": None, "clickables": []}
        page = self.pages[url]
        if page["screen"] is None and step["screen"] is not None:
            page["screen"] = step["screen"]
        page["clickables"].extend(step["clickables"] or [])
        return url

    def add_trace(self, trace_id, steps):
        if trace_id in self.traces:
            return
        self.traces.add(trace_id)
        previous = None
        for step in steps:
            if host_of(step["url"]) != self.host:
                previous = None
                continue
            url = self._page(step)
            if previous is not None and previous != url and step["action"] in EDGE_ACTIONS:
                self._edge(previous, url, step["target"] or {})
            previous = url

    def _edge(self, source, destination, target):
        key = (_text(target), destination)
        self.buttons.setdefault(source, {}).setdefault(key, {**target, "href_full": destination})

    def link_clickables(self):
        """Recorded clickables whose links lead to another page of the graph are edges too."""
        for url, page in self.pages.items():
            for clickable in page["clickables"]:
                href = clickable.get("href")
                if not href:
                    continue
                destination = page_url(urljoin(url, href))
                if destination != url and destination in self.pages:
                    self._edge(url, destination, clickable)

    def homepage(self):
        for url in self.pages:
            parts = urlsplit(url)
            if parts.path in ("", "/") and not parts.query:
                return url
        return next(iter(self.pages))

    def next_pages(self, url):
        return sorted({destination for _text, destination in self.buttons.get(url, {})}, key=self.url_id)

    def shortest_path(self, start, goal):
        previous, queue = {start: None}, deque([start])
        while queue:
            url = queue.popleft()
            if url == goal:
                path = []
                while url is not None:
                    path.append(url)
                    url = previous[url]
                return path[::-1]
            for destination in self.next_pages(url):
                if destination not in previous:
                    previous[destination] = url
                    queue.append(destination)
        return None

    def paths_to(self, goal):
        """A shortest path to ``goal`` from every page that can reach it."""
        incoming = {}
        for source in self.pages:
            for destination in self.next_pages(source):
                incoming.setdefault(destination, []).append(source)
        following, queue = {goal: None}, deque([goal])
        while queue:
            url = queue.popleft()
            for source in sorted(incoming.get(url, []), key=self.url_id):
                if source not in following:
                    following[source] = url
                    queue.append(source)
        paths = {}
        for source in following:
            path, url = [], source
            while url is not None:
                path.append(self.url_id(url))
                url = following[url]
            paths[self.url_id(source)] = path
        return paths


def _text(target):
    return (target.get("text") or target.get("alt") or target.get("label") or "").strip()


class WebVLNWriter:
    """Fed WebVLN items site by site (ordered by group key); writes each site as it ends."""

    def __init__(self, files, storage_keys, *, gold=None, private_test=False):
        self.files = files
        self.storage_keys = storage_keys  # callable: [sha256] -> {sha256: storage key}
        self.gold = gold
        self.private_test = private_test
        self.map = None
        self.paths = None
        self.episodes = {}
        self.unreachable = 0
        self.episode_count = 0

    def add_site(self, host, items):
        graph = SiteGraph(host)
        for item in items:
            record = item["record"]
            graph.add_trace(record["trace"], record["steps"])
        if not graph.pages:
            self.unreachable += len(items)
            return
        graph.link_clickables()
        self._write_map(graph)
        home = graph.homepage()
        targets = {}
        for item in items:
            record = item["record"]
            goal = page_url(target_step(record)["url"])
            path = graph.shortest_path(home, goal) if goal in graph.pages else None
            if path is None:
                self.unreachable += 1
                continue
            targets[goal] = True
            note = next((piece["note"] for piece in reversed(record["evidence"]) if piece["note"]), "")
            episode = {
                "idx": record["id"],
                "target": note or target_step(record)["title"] or record["question"],
                "path": [graph.url_id(url) for url in path],
                "QA": [record["question"], record["answer"]],
            }
            self._episode(item["split"], episode)
            if self.gold is not None:
                self.gold.add("webvln", item["split"], str(record["id"]), {"path": episode["path"],
                                                                           "answer": record["answer"]})  # fmt: skip
        paths = {}
        for goal in sorted(targets, key=graph.url_id):
            for source, path in graph.paths_to(goal).items():
                paths.setdefault(source, {})[graph.url_id(goal)] = path
        self._write_entry("paths", "webvln/shortest_paths.json", graph.site_id, paths)

    def _write_map(self, graph):
        keys = self.storage_keys([page["screen"]["sha256"] for page in graph.pages.values() if page["screen"]])
        site_map = {}
        for url, page in graph.pages.items():
            image = None
            data = {}
            for n, ((_text_key, destination), target) in enumerate(sorted(graph.buttons.get(url, {}).items())):
                clickable_id = f"{page['id']}_{n}"
                texts = [value for value in (target.get("text"), target.get("alt") or target.get("label")) if value]
                crops = []
                if target.get("bbox") and page["screen"] and page["screen"]["sha256"] in keys:
                    if image is None:
                        with default_storage.open(keys[page["screen"]["sha256"]], "rb") as handle:
                            image = Image.open(handle)
                            image.load()
                    crop = _crop(image, target["bbox"])
                    if crop is not None:
                        name = f"{clickable_id}.png"
                        self.files.write_bytes(f"webvln/imgs/{name}", crop)
                        crops.append(name)
                data[clickable_id] = {
                    "clickable_id": clickable_id,
                    "next_url_id": graph.url_id(destination),
                    "text": texts,
                    "href_full": target.get("href_full", destination),
                    "imgs": crops,
                }
            site_map[page["id"]] = {"data": data}
        self._write_entry("map", "webvln/map.json", graph.site_id, site_map)

    def _write_entry(self, which, path, key, value):
        current = getattr(self, which)
        if current is None:
            current = [self.files.open(path), True]
            current[0].write("{")
            setattr(self, which, current)
        current[0].write(
            ("\n" if current[1] else ",\n") + json.dumps(key) + ": " + json.dumps(value, ensure_ascii=False)
        )
        current[1] = False

    def _episode(self, split, episode):
        if split == "test" and self.private_test:
            # The public file asks the question; the answer is in the evaluation set.
            self._append(private_path(f"webvln/{SETTING}/test.json"), episode)
            episode = {**episode, "QA": [episode["QA"][0], ""]}
        self._append(f"webvln/{SETTING}/{split}.json", episode)
        self.episode_count += 1

    def _append(self, path, episode):
        if path not in self.episodes:
            self.episodes[path] = [self.files.open(path), True]
            self.episodes[path][0].write("[")
        entry = self.episodes[path]
        entry[0].write(("\n" if entry[1] else ",\n") + json.dumps(episode, ensure_ascii=False))
        entry[1] = False

    def finish(self):
        if self.map is None:
            return
        wanted = [f"webvln/{SETTING}/{split}.json" for split in ("train", "val", "test")]
        if self.private_test:
            wanted.append(private_path(f"webvln/{SETTING}/test.json"))
        for path in wanted:
            if path not in self.episodes:
                self.episodes[path] = [self.files.open(path), True]
                self.episodes[path][0].write("[")
        for output, empty in [self.map, self.paths or self._empty_paths()]:
            output.write("}\n" if empty else "\n}\n")
            self.files.close(output)
        for path in sorted(self.episodes):
            output, empty = self.episodes[path]
            output.write("]\n" if empty else "\n]\n")
            self.files.close(output)

    def _empty_paths(self):
        output = self.files.open("webvln/shortest_paths.json")
        output.write("{")
        return [output, True]


def _crop(image, bbox):
    x, y, width, height = (round(value) for value in bbox)
    box = (max(x, 0), max(y, 0), min(x + width, image.width), min(y + height, image.height))
    if box[2] <= box[0] or box[3] <= box[1]:
        return None
    buffer = io.BytesIO()
    image.crop(box).convert("RGB").save(buffer, "PNG")
    return buffer.getvalue()
