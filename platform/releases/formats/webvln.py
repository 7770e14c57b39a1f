"""WebVLN's files (FORMATS.md §2), from the release's frozen website graphs
(``releases.environments``) and its episodes:

- ``webvln/map.json``: every page of every website, with its buttons and where they lead;
- ``webvln/shortest_paths.json``: a shortest path from every page that reaches an
  episode's target to that target;
- ``webvln/pages.json``: each page id's screenshot (a file under ``images/``), its URL and
  title, so every page of the map has its observation;
- ``webvln/<setting>/{train,val,test}.json``: the episodes (``seen`` or ``unseen``, as the
  release says);
- ``webvln/imgs/<clickable_id>.png``: each button cut from the screenshot its box was
  recorded on.

Websites are written one at a time, so memory holds one site's graph."""

import io
import json

from django.core.files.storage import default_storage
from PIL import Image

from ..environments import FrozenGraph
from .gold import private_path
from .records import EXTENSIONS

SPLITS = ("train", "val", "test")


class WebVLNWriter:
    """Fed each website's frozen graph with its episodes; writes each site as it comes."""

    def __init__(self, files, *, setting="seen", gold=None, private_test=False):
        self.files = files
        self.setting = setting
        self.gold = gold
        self.private_test = private_test
        self.outputs = {}  # path -> [file, empty]
        self.episode_count = 0
        self.sites = 0

    def add_site(self, host, graph, items):
        """``graph``: a ``ReleaseGraph.graph``; ``items``: its episodes' release items."""
        frozen = FrozenGraph(host, graph)
        self.sites += 1
        self._write_map(frozen)
        targets = set()
        for item in items:
            record = item["record"]
            episode = record["episode"]
            goal = int(episode["path"][-1].rsplit("_", 1)[1])
            targets.add(goal)
            entry = {
                "idx": record["id"],
                "target": episode["description"],
                "path": episode["path"],
                "QA": [record["question"], record["answer"]],
            }
            self._episode(item["split"], entry)
            if self.gold is not None:
                gold = {"path": entry["path"], "answer": record["answer"]}
                self.gold.add("webvln", item["split"], str(record["id"]), gold)
        paths = {}
        for goal in sorted(targets):
            for source, path in frozen.paths_to(goal).items():
                paths.setdefault(frozen.url_id(source), {})[frozen.url_id(goal)] = [frozen.url_id(n) for n in path]
        self._entry("webvln/shortest_paths.json", frozen.site_id, dict(sorted(paths.items(), key=_by_number)))

    def _write_map(self, frozen):
        site_map, pages = {}, {}
        edges = {}
        for edge in frozen.graph["edges"]:
            edges.setdefault(edge["source"], []).append(edge)
        images = _Screens()
        for number in sorted(frozen.pages):
            page = frozen.pages[number]
            url_id = frozen.url_id(number)
            data = {}
            for n, edge in enumerate(edges.get(number, [])):
                clickable_id = f"{url_id}_{n}"
                crops = []
                crop = images.crop(edge["screen"], edge["bbox"])
                if crop is not None:
                    name = f"{clickable_id}.png"
                    self.files.write_bytes(f"webvln/imgs/{name}", crop)
                    crops.append(name)
                data[clickable_id] = {
                    "clickable_id": clickable_id,
                    "next_url_id": frozen.url_id(edge["destination"]),
                    "text": [text for text in (edge["text"], edge["alt"]) if text],
                    "href_full": edge["href_full"] or frozen.pages[edge["destination"]]["url"],
                    "imgs": crops,
                }
            images.forget()
            site_map[url_id] = {"data": data}
            screen = page["screen"]
            pages[url_id] = {
                "image": f"images/{screen['sha256']}.{EXTENSIONS[screen['format']]}",
                "width": screen["width"],
                "height": screen["height"],
                "url": page["url"],
                "title": page["title"],
            }
        self._entry("webvln/map.json", frozen.site_id, site_map)
        self._entry("webvln/pages.json", frozen.site_id, pages)

    def _entry(self, path, key, value):
        output = self._output(path, "{")
        output[0].write(("\n" if output[1] else ",\n") + json.dumps(key) + ": " + json.dumps(value, ensure_ascii=False))
        output[1] = False

    def _output(self, path, opening):
        if path not in self.outputs:
            self.outputs[path] = [self.files.open(path), True]
            self.outputs[path][0].write(opening)
        return self.outputs[path]

    def _episode(self, split, episode):
        if split == "test" and self.private_test:
            # The public file asks the question; the answer is in the evaluation set.
            self._append(private_path(f"webvln/{self.setting}/test.json"), episode)
            episode = {**episode, "QA": [episode["QA"][0], ""]}
        self._append(f"webvln/{self.setting}/{split}.json", episode)
        self.episode_count += 1

    def _append(self, path, episode):
        output = self._output(path, "[")
        output[0].write(("\n" if output[1] else ",\n") + json.dumps(episode, ensure_ascii=False))
        output[1] = False

    def finish(self):
        if not self.sites:
            return
        wanted = [f"webvln/{self.setting}/{split}.json" for split in SPLITS]
        if self.private_test:
            wanted.append(private_path(f"webvln/{self.setting}/test.json"))
        for path in wanted:
            self._output(path, "[")
        self._output("webvln/shortest_paths.json", "{")
        for path in sorted(self.outputs):
            output, empty = self.outputs[path]
            closing = "]" if path.endswith(("train.json", "val.json", "test.json")) else "}"
            output.write(closing + "\n" if empty else "\n" + closing + "\n")
            self.files.close(output)


def _by_number(entry):
    return int(entry[0].rsplit("_", 1)[1])


class _Screens:
    """The screenshots one page's buttons are cut from, opened once each."""

    def __init__(self):
        self.open = {}

    def crop(self, screen, bbox):
        if screen is None or not bbox:
            return None
        image = self.open.get(screen["sha256"])
        if image is None:
            with default_storage.open(screen["storage_key"], "rb") as handle:
                image = Image.open(handle)
                image.load()
            self.open[screen["sha256"]] = image
        return _crop(image, bbox)

    def forget(self):
        self.open.clear()


def _crop(image, bbox):
    x, y, width, height = (round(value) for value in bbox)
    box = (max(x, 0), max(y, 0), min(x + width, image.width), min(y + height, image.height))
    if box[2] <= box[0] or box[3] <= box[1]:
        return None
    buffer = io.BytesIO()
    image.crop(box).convert("RGB").save(buffer, "PNG")
    return buffer.getvalue()
