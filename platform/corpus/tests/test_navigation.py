"""A site's navigation graph: built from cleared, finished traces, kept stable across
rebuilds, rebuilt by a job when a screenshot is cleared; episode paths over it."""

from collections import deque

import pytest

from assets.models import Asset
from corpus.models import NavEdge, NavPage, TraceStep
from corpus.navigation import Graph, NotAnEpisodeTarget, episode_path, rebuild
from corpus.tasks import rebuild_site_graph
from moderation import services as moderation
from moderation.models import ReviewItem
from outbox.models import Job
from tests.navigation import recorded_site

pytestmark = pytest.mark.django_db
HOST = "https://shop.example"


def _pages(site):
    return {page.url.removeprefix(HOST): page for page in NavPage.objects.filter(site=site)}


def _edges(site):
    return {
        (edge.source.url.removeprefix(HOST), edge.destination.url.removeprefix(HOST))
        for edge in NavEdge.objects.filter(site=site).select_related("source", "destination")
    }


def test_pages_are_distinct_urls_and_edges_are_clicks_and_links_to_known_pages(rater):
    site = recorded_site(rater, traces=[("/", "/kettles", "/kettles/steel"), ("/", "/kettles#reviews", "/mugs")])
    pages = _pages(site)
    assert set(pages) == {"/", "/kettles", "/kettles/steel", "/mugs"}  # the fragment is not a page of its own
    edges = _edges(site)
    assert {("/", "/kettles"), ("/kettles", "/kettles/steel"), ("/kettles", "/mugs")} <= edges  # clicks
    assert ("/kettles/steel", "/") in edges  # every page's recorded "Home" link
    assert not any(source == destination for source, destination in edges)
    assert {url: page.depth for url, page in pages.items()} == {"/": 0, "/kettles": 1, "/kettles/steel": 2, "/mugs": 2}
    assert pages["/kettles"].traces == 2 and site.graph_traces == 2 and site.graph_built_at is not None
    clicked = NavEdge.objects.get(source=pages["/"], destination=pages["/kettles"], text="Go 0")
    assert clicked.clicked and clicked.clickable["bbox"] == [50, 30, 60, 20]
    assert clicked.step_id == pages["/"].step_id  # the box is on the source page's own screenshot


def test_a_page_never_linked_from_a_recorded_page_is_unreachable(rater):
    site = recorded_site(rater)
    pages = _pages(site)
    assert pages["/hidden"].depth is None and pages["/hidden/deal"].depth is None
    assert pages["/kettles/steel"].depth == 2 and pages["/about"].depth == 1


def test_an_uncleared_screenshot_is_no_page_and_breaks_the_chain_of_clicks(rater):
    site = recorded_site(rater, traces=[("/", "/kettles", "/kettles/steel")], uncleared={
        ("/", "/kettles", "/kettles/steel"): (1,)})  # fmt: skip
    assert set(_pages(site)) == {"/", "/kettles/steel"}
    assert ("/", "/kettles/steel") not in _edges(site)  # no click joins them: the middle step is not shown


def test_page_numbers_survive_rebuilds_and_are_never_reused(rater):
    site = recorded_site(rater, traces=[("/", "/a", "/b")])
    before = {url: page.number for url, page in _pages(site).items()}
    recorded_site(rater, traces=[("/", "/c")])
    after = {url: page.number for url, page in _pages(site).items()}
    assert {url: after[url] for url in before} == before
    assert after["/c"] == max(before.values()) + 1
    # The steps that showed /b lose their screenshot's clearance: /b leaves the graph.
    Asset.objects.filter(screens__trace_steps__url=f"{HOST}/b").update(review_state="rejected")
    rebuild(site)
    recorded_site(rater, traces=[("/", "/d")])
    numbers = {url: page.number for url, page in _pages(site).items()}
    assert "/b" not in numbers and numbers["/d"] == after["/c"] + 1


def _bfs(graph, start, goal):
    previous, queue = {start: None}, deque([start])
    while queue:
        url = queue.popleft()
        for destination in sorted(graph.next.get(url, ()), key=graph.numbers.__getitem__):
            if destination not in previous:
                previous[destination] = url
                queue.append(destination)
    path, url = [], goal
    while url is not None:
        path.append(url)
        url = previous.get(url)
    return path[::-1] if path[-1] == start else None


def test_episode_paths_are_the_shortest_paths_and_bad_targets_are_refused_with_a_reason(rater):
    site = recorded_site(rater)
    graph = Graph.of_site(site)
    for page in NavPage.objects.filter(site=site, depth__gte=2):
        path = episode_path(site, page.url)
        assert path == _bfs(graph, f"{HOST}/", page.url) and len(path) - 1 == page.depth
        assert all(b in graph.next[a] for a, b in zip(path, path[1:], strict=False))
    with pytest.raises(NotAnEpisodeTarget, match="1 click from the homepage"):
        episode_path(site, f"{HOST}/about")
    with pytest.raises(NotAnEpisodeTarget, match="0 clicks"):
        episode_path(site, f"{HOST}/")
    with pytest.raises(NotAnEpisodeTarget, match="No recorded route"):
        episode_path(site, f"{HOST}/hidden/deal")
    with pytest.raises(NotAnEpisodeTarget, match="not part of this site"):
        episode_path(site, f"{HOST}/never-recorded")
    assert episode_path(site, f"{HOST}/kettles/steel#specs")[-1] == f"{HOST}/kettles/steel"


def test_a_site_whose_homepage_was_never_recorded_has_no_episodes(rater):
    site = recorded_site(rater, traces=[("/x", "/y", "/z")])
    with pytest.raises(NotAnEpisodeTarget, match="homepage"):
        episode_path(site, f"{HOST}/z")


def test_clearing_a_screenshot_rebuilds_the_sites_graph(rater, reviewer):
    site = recorded_site(rater, traces=[("/", "/kettles", "/kettles/steel")], uncleared={
        ("/", "/kettles", "/kettles/steel"): (2,)})  # fmt: skip
    assert "/kettles/steel" not in _pages(site)
    step = TraceStep.objects.get(url=f"{HOST}/kettles/steel")
    item = moderation.enqueue(asset=step.screen.asset)
    ReviewItem.objects.filter(pk=item.pk).update(queue=ReviewItem.Queue.PII)
    Job.objects.all().delete()
    held = moderation.claim_next(reviewer=reviewer, queue=ReviewItem.Queue.PII)
    moderation.approve(item_id=held.pk, reviewer=reviewer)
    (job,) = Job.objects.filter(task="corpus.rebuild_site_graph")
    assert job.args[0] == site.pk
    assert rebuild_site_graph(*job.args)["pages"] == 3  # what the worker runs
    assert _pages(site)["/kettles/steel"].depth == 2
    assert rebuild_site_graph(*job.args) == {"site": site.pk, "skipped": True}  # asked before that rebuild


def test_a_finished_trace_of_already_cleared_pages_rebuilds_its_sites_graph(rater, api_for):
    import json
    import uuid

    from django.core.files.uploadedfile import SimpleUploadedFile

    from assets.tests.samples import png_bytes

    site = recorded_site(rater, traces=[("/", "/a", "/b")])
    client = api_for(rater)
    trace = client.post("/api/v1/traces/", {"client_id": str(uuid.uuid4()), "category": "shopping"}, format="json")
    step = {"client_id": str(uuid.uuid4()), "position": 0, "url": f"{HOST}/c", "title": "C",
            "captured_at": "2026-11-29T14:03:11Z", "viewport": {"width": 64, "height": 48},
            "action": {"type": "navigate", "target": None}}  # fmt: skip
    upload = SimpleUploadedFile("s.png", png_bytes(size=(64, 48), seed=4242), content_type="image/png")
    sent = client.post(f"/api/v1/traces/{trace.json()['id']}/steps/", {"screenshot": upload, "step": json.dumps(step)},
                       format="multipart")  # fmt: skip
    assert sent.status_code == 201, sent.json()
    Asset.objects.update(review_state="cleared")  # e.g. the same picture was cleared before
    Job.objects.all().delete()
    finished = client.post(f"/api/v1/traces/{trace.json()['id']}/finish/", {"step_count": 1}, format="json")
    assert finished.status_code == 200
    (job,) = Job.objects.filter(task="corpus.rebuild_site_graph")
    rebuild_site_graph(*job.args)
    assert "/c" in _pages(site)
