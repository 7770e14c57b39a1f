"""A site's navigation graph, the environment of its navigation episodes (WebVLN §3).

Pages are the distinct URLs (without fragment) on the site's host that finished, recorded
traces visited, each shown by a cleared screenshot. An edge is a click or submit that led
from one page to the next within a trace, or a recorded link on a page that resolves to
another page of the graph. A step whose screenshot is not cleared takes no part: its page
is not shown to anyone, and the trace's chain of clicks is broken there.

``rebuild`` replaces a site's stored graph (``NavPage``, ``NavEdge``) with the one its
traces give now; a page keeps its number across rebuilds. ``Graph`` is the same graph in
memory, for shortest paths (breadth first, ties broken by page number, so every reader
of one graph finds the same path).
"""

from collections import deque
from urllib.parse import urldefrag, urljoin

from django.db import transaction
from django.utils import timezone

from assets.models import Asset

from .models import NavEdge, NavPage, Site, Trace, TraceStep, host_of

EDGE_ACTIONS = ("click", "submit")
MIN_TRANSITIONS = 2  # an episode's target is at least two clicks from the homepage (WebVLN §4.1)


def page_url(url):
    return urldefrag(url or "")[0]


def button_text(clickable):
    return (clickable.get("text") or clickable.get("alt") or clickable.get("label") or "").strip()[:500]


def shortest_path(following, start, goal):
    """A shortest path from ``start`` to ``goal`` (breadth first over ``following``:
    ``{node: [next nodes, in the order ties are broken]}``), or None. The platform's graphs
    and a release's frozen ones both find paths with it, so they agree."""
    previous, queue = {start: None}, deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path = []
            while node is not None:
                path.append(node)
                node = previous[node]
            return path[::-1]
        for destination in following.get(node, ()):
            if destination not in previous:
                previous[destination] = node
                queue.append(destination)
    return None


class Graph:
    """Pages by URL (each with its number) and edges between them, in memory."""

    def __init__(self, *, homepage, numbers, edges):
        self.homepage = homepage  # a URL, or None when the site's homepage was never recorded
        self.numbers = numbers  # {url: number}
        self.next = {}
        for source, destination in edges:
            self.next.setdefault(source, set()).add(destination)
        self.next = {url: sorted(targets, key=numbers.__getitem__) for url, targets in self.next.items()}

    @classmethod
    def of_site(cls, site):
        numbers = dict(NavPage.objects.filter(site=site).values_list("url", "number"))
        edges = NavEdge.objects.filter(site=site).values_list("source__url", "destination__url").distinct()
        home = page_url(site.url)
        return cls(homepage=home if home in numbers else None, numbers=numbers, edges=edges)

    def shortest_path(self, goal, start=None):
        """The URLs of a shortest path from ``start`` (the homepage) to ``goal``, or None."""
        start = start or self.homepage
        if start is None or goal not in self.numbers:
            return None
        return shortest_path(self.next, start, goal)

    def depths(self):
        """``{url: clicks from the homepage}`` of every reachable page."""
        if self.homepage is None:
            return {}
        depth, queue = {self.homepage: 0}, deque([self.homepage])
        while queue:
            url = queue.popleft()
            for destination in self.next.get(url, ()):
                if destination not in depth:
                    depth[destination] = depth[url] + 1
                    queue.append(destination)
        return depth


class NotAnEpisodeTarget(ValueError):
    """Why a page cannot be an episode's target; the message is for the rater."""


def episode_path(site, target_url, graph=None):
    """The path (URLs) from ``site``'s homepage to ``target_url``; refuses a target that is
    unknown, unreachable, or fewer than two clicks away, saying why."""
    graph = graph or Graph.of_site(site)
    target_url = page_url(target_url)
    if target_url not in graph.numbers:
        raise NotAnEpisodeTarget("That page is not part of this site's recorded pages; pick one of the pages shown.")
    if graph.homepage is None:
        raise NotAnEpisodeTarget(
            f"Nobody has recorded {site.name}'s homepage ({site.url}) yet, so no route can start there."
        )
    path = graph.shortest_path(target_url)
    if path is None:
        raise NotAnEpisodeTarget(
            "No recorded route leads from the homepage to that page. Pick a page the homepage's links reach."
        )
    if len(path) - 1 < MIN_TRANSITIONS:
        clicks = len(path) - 1
        raise NotAnEpisodeTarget(
            f"That page is {clicks} click{'s' if clicks != 1 else ''} from the homepage; "
            f"pick one at least {MIN_TRANSITIONS} clicks away."
        )
    return path


def sites_of_steps(step_ids):
    """The catalogue sites whose hosts the given steps were on."""
    hosts = {host_of(url) for url in TraceStep.objects.filter(pk__in=step_ids).values_list("url", flat=True)}
    return Site.objects.filter(host__in=hosts - {""})


def _observation_rank(step):
    # A full-page screenshot shows the whole page; else the first one recorded.
    return (not step.full_page, step.trace_id, step.position)


def _matching(clickables, target):
    """The clickable of a step that is the element ``target`` names, or None."""
    selector, href, text = target.get("selector"), target.get("href"), button_text(target)
    for clickable in clickables or []:
        if selector and clickable.get("selector") == selector:
            return clickable
    for clickable in clickables or []:
        if href and clickable.get("href") == href and button_text(clickable) == text:
            return clickable
    return None


@transaction.atomic
def rebuild(site):
    """Replaces ``site``'s stored graph with the one its cleared, finished traces give now."""
    site = Site.objects.select_for_update().get(pk=site.pk)
    started = timezone.now()  # a trace cleared after this asks for another rebuild
    steps = (
        TraceStep.objects.filter(
            trace__state=Trace.State.FINISHED,
            url__icontains=site.host,
            screen__asset__review_state=Asset.ReviewState.CLEARED,
        )
        .only("id", "trace_id", "position", "url", "title", "action", "target", "clickables", "full_page")
        .order_by("trace_id", "position")
    )
    # Every step of those traces is needed to see where a chain of clicks breaks.
    cleared = {step.pk: step for step in steps if host_of(step.url) == site.host}
    trace_ids = {step.trace_id for step in cleared.values()}
    chains = TraceStep.objects.filter(trace_id__in=trace_ids).order_by("trace_id", "position")
    pages, visits, edges = {}, {}, {}
    previous = None
    for trace_id, step_id in chains.values_list("trace_id", "id"):
        step = cleared.get(step_id)
        if step is None:
            previous = None
            continue
        url = page_url(step.url)
        best = pages.get(url)
        if best is None or _observation_rank(step) < _observation_rank(best):
            pages[url] = step
        visits.setdefault(url, set()).add(trace_id)
        if previous is not None and previous.trace_id == trace_id:
            source = page_url(previous.url)
            if source != url and step.action in EDGE_ACTIONS:
                target = step.target or {}
                clickable = _matching(previous.clickables, target)
                # The click's own box is in the coordinates of the screenshot before it.
                edges.setdefault((source, url, button_text(target)), (clickable or target, previous, True))
        previous = step
    for url, step in pages.items():
        for clickable in step.clickables or []:
            href = clickable.get("href")
            destination = page_url(urljoin(url, href)) if href else None
            if destination and destination != url and destination in pages:
                edges.setdefault((url, destination, button_text(clickable)), (clickable, step, False))
    # An edge's box is best cut from its page's own observation: use the observation's
    # copy of the button when it has one.
    for key, (clickable, step, clicked) in list(edges.items()):
        observation = pages[key[0]]
        if step is None or step.pk != observation.pk:
            mine = _matching(observation.clickables, clickable)
            if mine is not None:
                edges[key] = (mine, observation, clicked)
    _store(site, pages, visits, edges, trace_ids, started)
    return site


def _store(site, pages, visits, edges, trace_ids, built_at):
    known = dict(NavPage.objects.filter(site=site).values_list("url", "number"))
    # Numbers are never reused, so an id in an older release names one page only.
    next_number = max(known.values(), default=-1) + 1
    NavPage.objects.filter(site=site).exclude(url__in=list(pages)).delete()
    NavEdge.objects.filter(site=site).delete()
    numbers = {}
    for url in sorted(pages, key=lambda u: (u not in known, known.get(u, 0), u)):
        if url in known:
            numbers[url] = known[url]
        else:
            numbers[url], next_number = next_number, next_number + 1
    home = page_url(site.url)
    graph = Graph(homepage=home if home in pages else None, numbers=numbers, edges=[(s, d) for s, d, _t in edges])
    depths = graph.depths()
    stored = {}
    for url, step in pages.items():
        row, _created = NavPage.objects.update_or_create(
            site=site,
            url=url,
            defaults={
                "number": numbers[url],
                "title": step.title[:500],
                "step": step,
                "traces": len(visits[url]),
                "depth": depths.get(url),
            },
        )
        stored[url] = row
    NavEdge.objects.bulk_create(
        NavEdge(
            site=site,
            source=stored[source],
            destination=stored[destination],
            text=text,
            clickable={**clickable, "href_full": destination},
            step=step,
            clicked=clicked,
        )
        for (source, destination, text), (clickable, step, clicked) in sorted(edges.items())
    )
    site.graph_built_at = built_at
    site.graph_traces = len(trace_ids)
    site.save(update_fields=["graph_built_at", "graph_traces"])
