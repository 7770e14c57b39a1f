"""The websites a release's WebVLN episodes run on, frozen with its snapshot.

Before the snapshot, each site's navigation graph is rebuilt from its traces as they are
now; inside the snapshot's transaction it is copied into a ``ReleaseGraph`` (pages with a
cleared screenshot only, and the edges between them), and every screenshot it uses is
shipped. Episodes are then laid on the frozen graph: an episode's path is the shortest
path from the homepage to its target there, so a map, its shortest paths and its
episodes always agree. An episode whose target is no longer reachable in two or more
clicks is left out (and counted).
"""

from collections import deque

from assets.models import Asset
from corpus.models import NavEdge, NavPage, Site
from corpus.navigation import MIN_TRANSITIONS, page_url, rebuild, shortest_path

from .models import ReleaseGraph
from .textscreen import screen_graph

CLEARED = Asset.ReviewState.CLEARED
SCREEN = ["sha256", "format", "width", "height", "storage_key", "id"]


def website_id(host):
    """A website's id in WebVLN's files: the part of a page id before ``_``."""
    return host.replace("_", "-") or "site"


def sites_of(pairs):
    return Site.objects.filter(episodes__qa_pair__in=pairs.filter(family="webvln")).distinct().order_by("host")


def rebuild_sites(pairs):
    """Rebuilds the graphs of the sites the selected episodes run on (outside the snapshot)."""
    for site in sites_of(pairs):
        rebuild(site)


def _screen(row, prefix):
    if row.get(f"{prefix}sha256") is None or row.get(f"{prefix}review_state") != CLEARED:
        return None
    return {key: row[f"{prefix}{key}"] for key in SCREEN}


def freeze(*, release, pairs, shipped, screened=None):
    """``{host: FrozenGraph}`` for the sites of the selected episodes, each stored as a
    ``ReleaseGraph`` with its texts screened (what was changed is added to ``screened``);
    the screenshots they use are added to ``shipped`` (sha256 → asset row)."""
    keep_query_hosts = set(Site.objects.filter(keep_query=True).values_list("host", flat=True))
    graphs = {}
    for site in sites_of(pairs):
        prefix = "step__screen__asset__"
        pages = []
        rows = NavPage.objects.filter(site=site, step__screen__asset__review_state=CLEARED).order_by("number")
        for row in rows.values("number", "url", "title", *(prefix + key for key in [*SCREEN, "review_state"])):
            screen = _screen(row, prefix)
            pages.append({"number": row["number"], "url": row["url"], "title": row["title"], "screen": screen})
        numbers = {page["number"] for page in pages}
        edges = []
        rows = NavEdge.objects.filter(site=site).order_by("source__number", "destination__number", "text")
        fields = ["source__number", "destination__number", "text", "clickable"]
        for row in rows.values(*fields, *(prefix + key for key in [*SCREEN, "review_state"])):
            if row["source__number"] not in numbers or row["destination__number"] not in numbers:
                continue
            clickable = row["clickable"] or {}
            edges.append(
                {
                    "source": row["source__number"],
                    "destination": row["destination__number"],
                    "text": row["text"],
                    "alt": clickable.get("alt") or clickable.get("label") or "",
                    "href_full": clickable.get("href_full", ""),
                    "bbox": clickable.get("bbox"),
                    "screen": _screen(row, prefix) if clickable.get("bbox") else None,
                }
            )
        home = next((page["number"] for page in pages if page["url"] == page_url(site.url)), None)
        # Page numbers and links are fixed before the texts are screened, which may strip queries.
        graph, changed = screen_graph(
            {"homepage": home, "pages": pages, "edges": edges}, keep_query_hosts=keep_query_hosts
        )
        if screened is not None:
            screened.update(changed)
        for screen in [page["screen"] for page in pages] + [edge["screen"] for edge in edges]:
            if screen is not None:
                shipped.setdefault(screen["sha256"], {"sha256": screen["sha256"], "format": screen["format"],
                                                      "storage_key": screen["storage_key"], "asset_id": screen["id"],
                                                      "webqa_image": False})  # fmt: skip
        ReleaseGraph.objects.create(release=release, host=site.host, site_id=website_id(site.host), graph=graph)
        graphs[site.host] = FrozenGraph(site.host, graph)
    return graphs


class FrozenGraph:
    """A frozen site graph in memory: page numbers, edges, breadth-first shortest paths
    (ties broken by page number, as the platform's own graph does)."""

    def __init__(self, host, graph):
        self.host = host
        self.site_id = website_id(host)
        self.graph = graph
        self.homepage = graph["homepage"]
        self.pages = {page["number"]: page for page in graph["pages"]}
        self.by_url = {page["url"]: page["number"] for page in graph["pages"]}
        following = {}
        for edge in graph["edges"]:
            following.setdefault(edge["source"], set()).add(edge["destination"])
        self.next = {number: sorted(destinations) for number, destinations in following.items()}

    def url_id(self, number):
        return f"{self.site_id}_{number}"

    def shortest_path(self, start, goal):
        return shortest_path(self.next, start, goal)

    def episode_path(self, target_url):
        """The page numbers of the episode's path, or None when it has none here."""
        goal = self.by_url.get(page_url(target_url))
        if goal is None or self.homepage is None:
            return None
        path = self.shortest_path(self.homepage, goal)
        return path if path is not None and len(path) - 1 >= MIN_TRANSITIONS else None

    def paths_to(self, goal):
        """A shortest path to ``goal`` from every page that can reach it, by page number
        (each found forwards, like an episode's, so the two agree)."""
        incoming = {}
        for source, destinations in self.next.items():
            for destination in destinations:
                incoming.setdefault(destination, []).append(source)
        reaching, queue = {goal}, deque([goal])
        while queue:
            for source in incoming.get(queue.popleft(), []):
                if source not in reaching:
                    reaching.add(source)
                    queue.append(source)
        return {source: self.shortest_path(source, goal) for source in sorted(reaching)}
