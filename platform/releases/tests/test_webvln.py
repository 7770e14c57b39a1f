"""WebVLN in a release: websites as frozen graphs, every page with its screenshot,
episodes on shortest paths, the seen and unseen settings, only reviewed episodes."""

import io
import uuid
from collections import deque

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.test import Client
from django.utils import timezone
from PIL import Image

from assets.models import Asset
from corpus.models import Trace, TraceStep
from tests import navigation
from tests.factories import make_category

from .helpers import build_now, paths, read, read_json, release

pytestmark = pytest.mark.django_db
SPLITS = ("train", "val", "test")
TARGETS = ("/kettles/steel", "/kettles/glass", "/mugs/blue")


def _three_sites(rater, *, episodes_per_site=4):
    sites = []
    for host in ("shop.example", "books.example", "tools.example"):
        site = navigation.recorded_site(rater, host=host)
        for n in range(episodes_per_site):
            navigation.episode(rater, site, TARGETS[n % len(TARGETS)], answer=f"Answer {host} {n}",
                               description=f"Item {n} on {host}")  # fmt: skip
        sites.append(site)
    return sites


def _episodes(built, setting="seen"):
    return {split: read_json(built, f"webvln/{setting}/{split}.json") for split in SPLITS}


def _bfs(site_map, start, goal):
    previous, queue = {start: None}, deque([start])
    while queue:
        page = queue.popleft()
        for button in site_map[page]["data"].values():
            if button["next_url_id"] not in previous:
                previous[button["next_url_id"]] = page
                queue.append(button["next_url_id"])
    path, page = [], goal
    while page is not None:
        path.append(page)
        page = previous.get(page)
    return path[::-1]


def test_seen_every_website_in_every_split_episodes_never_in_two(admin_user, rater):
    _three_sites(rater)
    built = build_now(release(admin_user, families=["webvln"], test_answers_public=True))
    assert built.state == "published", built.message
    episodes = _episodes(built)
    for split in SPLITS:
        websites = {episode["path"][0].split("_")[0] for episode in episodes[split]}
        assert websites == {"shop.example", "books.example", "tools.example"}, (split, websites)
    ids = [episode["idx"] for split in SPLITS for episode in episodes[split]]
    assert len(ids) == len(set(ids)) == 12
    assert built.counts["webvln"] == {"setting": "seen", "websites": 3, "episodes": 12}
    assert "seen" in built.datasheet and "every website" in built.datasheet


def test_every_page_has_its_screenshot_and_every_path_runs_over_map_edges(admin_user, rater):
    _three_sites(rater)
    built = build_now(release(admin_user, families=["webvln"], test_answers_public=True))
    site_map = read_json(built, "webvln/map.json")
    pages = read_json(built, "webvln/pages.json")
    shortest = read_json(built, "webvln/shortest_paths.json")
    shipped = paths(built)
    assert not [path for path in shipped if path.endswith("_enc.json")]
    for website, graph in site_map.items():
        assert set(graph) == set(pages[website])  # every page id has its observation
        for url_id, page in pages[website].items():
            assert page["image"] in shipped and url_id.startswith(f"{website}_")
            image = Image.open(io.BytesIO(read(built, page["image"])))
            assert image.size == (page["width"], page["height"])
        clickable_ids = [cid for page in graph.values() for cid in page["data"]]
        assert len(clickable_ids) == len(set(clickable_ids))
    for split, found in _episodes(built).items():
        for episode in found:
            website = episode["path"][0].split("_")[0]
            graph = site_map[website]
            assert len(episode["path"]) >= 3  # two clicks or more
            for here, there in zip(episode["path"], episode["path"][1:], strict=False):
                assert there in {button["next_url_id"] for button in graph[here]["data"].values()}, (split, episode)
            assert episode["path"] == _bfs(graph, episode["path"][0], episode["path"][-1])
            target = episode["path"][-1]
            for n, page in enumerate(episode["path"]):
                assert shortest[website][page][target] == episode["path"][n:]
            assert episode["target"].startswith("Item ")  # the description, not the page title
    homes = {website: pages[website][next(iter(graph))]["url"] for website, graph in site_map.items()}
    assert homes["shop.example"] == "https://shop.example/"


def test_unseen_puts_whole_websites_in_each_split(admin_user, rater):
    _three_sites(rater)
    built = build_now(release(admin_user, families=["webvln"], webvln_setting="unseen", test_answers_public=True))
    assert built.state == "published", built.message
    assert not [path for path in paths(built) if path.startswith("webvln/seen/")]
    episodes = _episodes(built, "unseen")
    websites = {split: {e["path"][0].split("_")[0] for e in found} for split, found in episodes.items()}
    assert all(len(found) == 1 for found in websites.values()), websites
    assert set.union(*websites.values()) == {"shop.example", "books.example", "tools.example"}
    assert built.counts["webvln"]["setting"] == "unseen" and "unseen" in built.datasheet
    client = Client()
    client.force_login(admin_user)
    page = client.get(f"/releases/{built.pk}/").content.decode()
    assert "Unseen: whole websites per split · 3 websites, 12 episodes" in page


def test_episodes_rejected_in_path_review_or_still_pending_never_ship(admin_user, rater):
    site = navigation.recorded_site(rater)
    kept = navigation.episode(rater, site, "/kettles/steel", answer="Kept")
    navigation.episode(rater, site, "/kettles/glass", answer="Rejected", state="rejected")
    navigation.episode(rater, site, "/mugs/blue", answer="Pending", state="pending_validation")
    built = build_now(release(admin_user, families=["webvln"], test_answers_public=True))
    shipped = [episode for found in _episodes(built).values() for episode in found]
    assert [episode["idx"] for episode in shipped] == [kept.pk]


def test_an_episode_whose_target_left_the_graph_is_left_out_and_counted(admin_user, rater):
    site = navigation.recorded_site(rater)
    navigation.episode(rater, site, "/kettles/steel")
    gone = navigation.episode(rater, site, "/mugs/blue")
    # The target's screenshot is rejected after the question was written.
    Asset.objects.filter(screens__trace_steps__url="https://shop.example/mugs/blue").update(review_state="rejected")
    built = build_now(release(admin_user, families=["webvln"], test_answers_public=True))
    shipped = [episode["idx"] for found in _episodes(built).values() for episode in found]
    assert gone.pk not in shipped and len(shipped) == 1
    assert built.counts["excluded"].get("uncleared_evidence") == 1


def _png(size, boxes):
    image = Image.new("RGB", size, (255, 255, 255))
    for (x, y, w, h), colour in boxes:
        image.paste(colour, (x, y, x + w, y + h))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def _step(trace, position, url, data, *, action, clickables, target=None, full_page=False):
    import hashlib

    from corpus.models import Screen

    sha = hashlib.sha256(data).hexdigest()
    key = f"assets/{sha[:2]}/{sha}.png"
    default_storage.save(key, ContentFile(data))
    width, height = Image.open(io.BytesIO(data)).size
    asset = Asset.objects.create(sha256=sha, format="png", width=width, height=height, byte_size=len(data),
                                 phash="0" * 16, storage_key=key, thumbnail_key=key, review_state="cleared")  # fmt: skip
    screen = Screen.objects.create(asset=asset, author=trace.author, url=url, title=url)
    return TraceStep.objects.create(
        trace=trace, client_id=uuid.uuid4(), position=position, screen=screen, url=url, title=url,
        captured_at=timezone.now(), viewport_width=200, viewport_height=150, action=action, target=target,
        clickables=clickables, full_page=full_page,
    )  # fmt: skip


def test_a_button_is_cut_from_its_own_pages_full_screenshot_with_its_own_box(admin_user, rater):
    """The "Deals" button sits far below the first viewport of a full-page screenshot, in
    green; a viewport screenshot of the same page taken later shows red there."""
    green, red = (0, 192, 0), (200, 0, 0)
    deals = {"tag": "a", "text": "Deals", "href": "https://deals.example/deals", "bbox": [20, 500, 60, 30]}
    offers = {"tag": "a", "text": "Offers", "href": "https://deals.example/deals/offer", "bbox": [10, 10, 50, 20]}
    trace = Trace.objects.create(client_id=uuid.uuid4(), author=rater, category=make_category("shopping"),
                                 state="finished")  # fmt: skip
    home = "https://deals.example/"
    _step(trace, 0, home, _png((200, 600), [((20, 500, 60, 30), green)]), action="navigate", clickables=[deals],
          full_page=True)  # fmt: skip
    _step(trace, 1, "https://deals.example/deals", _png((200, 150), [((10, 10, 50, 20), (0, 0, 200))]),
          action="click", clickables=[offers], target={**deals, "bbox": [20, 20, 60, 30]})  # fmt: skip
    _step(trace, 2, "https://deals.example/deals/offer", _png((200, 150), []), action="click", clickables=[],
          target=offers)  # fmt: skip
    later = Trace.objects.create(client_id=uuid.uuid4(), author=rater, category=make_category("shopping"),
                                 state="finished")  # fmt: skip
    _step(later, 0, home, _png((200, 150), [((20, 20, 60, 30), red)]), action="navigate",
          clickables=[{**deals, "bbox": [20, 20, 60, 30]}])  # fmt: skip
    site = navigation.recorded_site(rater, host="deals.example", traces=[])
    navigation.episode(rater, site, "/deals/offer")
    built = build_now(release(admin_user, families=["webvln"], test_answers_public=True))
    assert built.state == "published", built.message
    site_map = read_json(built, "webvln/map.json")["deals.example"]
    (button,) = [b for page in site_map.values() for b in page["data"].values() if b["text"] == ["Deals"]]
    (crop_name,) = button["imgs"]
    crop = Image.open(io.BytesIO(read(built, f"webvln/imgs/{crop_name}"))).convert("RGB")
    assert crop.size == (60, 30)
    assert crop.getpixel((30, 15)) == green


def test_the_demo_release_has_every_demo_website_in_train_val_and_test(admin_user):
    import os

    from django.core.management import call_command

    call_command("load_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
    built = build_now(release(admin_user, name="demo", families=["webvln"]))
    assert built.state == "published", built.message
    episodes = _episodes(built)
    for split in SPLITS:
        websites = {episode["path"][0].split("_")[0] for episode in episodes[split]}
        assert websites == {"demo-kitchen.test", "demo-books.test", "demo-stays.test"}, split
    assert sum(len(found) for found in episodes.values()) == 10  # the two awaiting path review are not in it
    pages = read_json(built, "webvln/pages.json")
    site_map = read_json(built, "webvln/map.json")
    assert {website: set(graph) for website, graph in site_map.items()} == {
        website: set(entries) for website, entries in pages.items()
    }
    crops = [name for graph in site_map.values() for page in graph.values() for b in page["data"].values()
             for name in b["imgs"]]  # fmt: skip
    assert crops and all(Image.open(io.BytesIO(read(built, f"webvln/imgs/{name}"))).size == (420, 56)
                         for name in crops)  # fmt: skip
