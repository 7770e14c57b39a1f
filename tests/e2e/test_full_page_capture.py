"""Full-page capture in a real browser: a batch that asks for stitched screenshots gets
whole pages from the extension, with clickables boxed in page-absolute pixels."""

import io
import re

import pytest
from django.core.files.storage import default_storage
from PIL import Image, ImageStat
from playwright.sync_api import expect

from accounts.services import create_api_token
from corpus.models import Trace
from hits import services
from tests.e2e import test_extension as extension_tests
from tests.e2e.servers import LONG_PAGE_BUTTON_RGB, LONG_PAGE_BUTTON_TOP, LONG_PAGE_HEADER_RGB, LONG_PAGE_HEIGHT
from tests.factories import make_category, site

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The extension loaded into Chromium, and the demo shop, as the extension's own tests have them.
extension_under_test = extension_tests.extension_under_test
chromium_with_extension = extension_tests.chromium_with_extension
demo_site = extension_tests.demo_site

VIEWPORT_HEIGHT = 800


def open_screenshot(asset):
    """The stored screenshot of ``asset`` as an RGB image."""
    with default_storage.open(asset.storage_key, "rb") as handle:
        return Image.open(io.BytesIO(handle.read())).convert("RGB")


def crop_colour(image, bbox, *, inset=0.2):
    """The median colour of ``image`` inside ``bbox`` ([x, y, width, height] in the image's
    pixels), leaving out ``inset`` of each side so that edges and anti-aliasing do not count."""
    x, y, width, height = (round(value) for value in bbox)
    dx, dy = round(width * inset), round(height * inset)
    left, top, right, bottom = x + dx, y + dy, x + width - dx, y + height - dy
    inside = 0 <= left < right <= image.width and 0 <= top < bottom <= image.height
    assert inside, f"the box {bbox} is empty or outside the {image.size} image"
    return tuple(ImageStat.Stat(image.crop((left, top, right, bottom))).median[:3])


def box_shows_colour(image, bbox, rgb, *, tolerance=12):
    """Whether the crop of ``image`` at ``bbox`` is ``rgb`` (each channel within ``tolerance``):
    checks that a clickable's box and the screenshot it belongs to agree."""
    return all(abs(got - want) <= tolerance for got, want in zip(crop_colour(image, bbox), rgb, strict=True))


def _stitch_batch():
    batch = services.create_batch(
        name="Whole-page traces", kind="trace_qa", kind_settings={"capture": {"full_page": "stitch"}}
    )
    return services.open_batch(batch=batch)


def test_a_stitch_batch_records_whole_pages_with_page_absolute_boxes(
    chromium_with_extension, live_server, demo_site, rater
):
    context, worker = chromium_with_extension
    make_category("shopping")
    site(category="shopping", name="Demo Shop", url=demo_site.url + "/")
    batch = _stitch_batch()
    key = create_api_token(user=rater, name="Chrome extension")[1]
    shop = context.pages[0] if context.pages else context.new_page()
    shop.goto(demo_site.url + "/long")
    scroll_height = shop.evaluate("document.documentElement.scrollHeight")
    dpr = shop.evaluate("window.devicePixelRatio")
    assert scroll_height == LONG_PAGE_HEIGHT and scroll_height > 3 * VIEWPORT_HEIGHT

    popup = extension_tests._sign_in_and_start(context, live_server.url, key, rater, batch)
    state = worker.evaluate("trailmark.send({type: 'get-state'})")
    assert state["recording"]["fullPage"] == "stitch"
    shop.bring_to_front()
    shop.reload()  # the long page, as loaded
    extension_tests._flush(worker)
    shop.get_by_role("button", name="Go green").click()  # scrolls down to it first
    extension_tests._flush(worker)
    assert shop.evaluate("window.scrollY") > 0, "the page stays where the rater scrolled it"
    extension_tests._click(shop, worker, "Back to the shop")
    popup.bring_to_front()
    popup.get_by_test_id("stop").click()
    expect(popup.get_by_test_id("state")).to_have_attribute("data-state", "idle")
    review = extension_tests._extension_page(context, "review")
    review.get_by_test_id("upload").click()
    expect(review.get_by_test_id("upload-done")).to_be_visible(timeout=90000)

    trace = Trace.objects.get(author=rater)
    steps = list(trace.steps.select_related("screen__asset").order_by("position"))
    assert [(s.action, re.sub(r"^https?://[^/]+", "", s.url)) for s in steps] == [
        ("navigate", "/long"),
        ("click", "/long"),
        ("click", "/"),
    ]
    assert all(s.full_page for s in steps)
    loaded, pressed, _home = steps

    asset = loaded.screen.asset
    assert asset.width == round(1280 * dpr)
    assert abs(asset.height - scroll_height * dpr) <= 2, (asset.height, scroll_height)
    image = open_screenshot(asset)
    assert image.size == (asset.width, asset.height)

    button = next(c for c in loaded.clickables if c["text"] == "Go green")
    x, y, width, height = button["bbox"]
    assert y >= VIEWPORT_HEIGHT * dpr, "the button is far below the first viewport"
    assert abs(y - LONG_PAGE_BUTTON_TOP * dpr) <= 2 and (width, height) == (320 * dpr, 160 * dpr)
    assert box_shows_colour(image, button["bbox"], LONG_PAGE_BUTTON_RGB), crop_colour(image, button["bbox"])
    assert any(c["text"] == "Back to the shop" and c["bbox"][1] > 3 * VIEWPORT_HEIGHT for c in loaded.clickables)

    # The fixed header is in the first part only: hidden while the rest was captured.
    header = [0, 0, 1280 * dpr, 40 * dpr]
    assert box_shows_colour(image, header, LONG_PAGE_HEADER_RGB)
    assert not box_shows_colour(image, [0, VIEWPORT_HEIGHT * dpr, 1280 * dpr, 40 * dpr], LONG_PAGE_HEADER_RGB)

    # The clicked button's box is in the same (page-absolute) pixels as its step's screenshot.
    target = pressed.target["bbox"]
    assert all(abs(a - b) <= 2 for a, b in zip(target, button["bbox"], strict=True)), (target, button["bbox"])
    assert box_shows_colour(open_screenshot(pressed.screen.asset), target, LONG_PAGE_BUTTON_RGB)


def test_a_button_below_the_first_viewport_is_cut_from_the_full_page_in_a_release(
    chromium_with_extension, live_server, demo_site, rater, admin_user, monkeypatch
):
    """Recorded whole, the long page's green link (far below the first viewport) leads to a
    product; an episode from the long page to the shop's home runs over it, and the
    release's crop of that button is green."""
    from assets.models import Asset
    from corpus.models import Episode, Evidence, NavPage, QAPair
    from corpus.navigation import episode_path, rebuild
    from releases.tests.helpers import build_now, read, read_json, release

    context, worker = chromium_with_extension
    make_category("shopping")
    home = site(category="shopping", name="Demo Shop", url=demo_site.url + "/long-link")  # episodes start here
    batch = _stitch_batch()
    key = create_api_token(user=rater, name="Chrome extension")[1]
    shop = context.pages[0] if context.pages else context.new_page()
    shop.goto(demo_site.url + "/long-link")
    popup = extension_tests._sign_in_and_start(context, live_server.url, key, rater, batch)
    shop.bring_to_front()
    shop.reload()
    extension_tests._flush(worker)
    extension_tests._click(shop, worker, "Go green")
    extension_tests._click(shop, worker, "All kettles")
    popup.bring_to_front()
    popup.get_by_test_id("stop").click()
    expect(popup.get_by_test_id("state")).to_have_attribute("data-state", "idle")
    review = extension_tests._extension_page(context, "review")
    review.get_by_test_id("upload").click()
    expect(review.get_by_test_id("upload-done")).to_be_visible(timeout=90000)

    trace = Trace.objects.get(author=rater)
    assert [re.sub(r"^https?://[^/]+", "", s.url) for s in trace.steps.order_by("position")] == [
        "/long-link", "/product/0", "/",
    ]  # fmt: skip
    Asset.objects.update(review_state=Asset.ReviewState.CLEARED)  # as a reviewer would
    rebuild(home)
    path = episode_path(home, demo_site.url + "/")
    assert [re.sub(r"^https?://[^/]+", "", url) for url in path] == ["/long-link", "/product/0", "/"]
    pair = QAPair.objects.create(author=rater, family="webvln", split_kind="navigation", state="accepted",
                                 question="Which kettles does the shop sell?", answer="Four")  # fmt: skip
    for position, url in enumerate(path):
        step = NavPage.objects.get(site=home, url=url).step
        Evidence.objects.create(qa_pair=pair, position=position, screen=step.screen, step=step)
    Episode.objects.create(qa_pair=pair, site=home, target_url=path[-1], path=path, description="The shop's home.")

    # The build runs here: in these committing tests a queued one would also reach the
    # session's Celery worker, if one is running.
    from releases import tasks

    monkeypatch.setattr(tasks.build_release, "apply_async", lambda args, **options: None)
    built = build_now(release(admin_user, families=["webvln"], test_answers_public=True))
    assert built.state == "published", built.message
    site_map = read_json(built, "webvln/map.json")
    (graph,) = site_map.values()
    (button,) = [b for page in graph.values() for b in page["data"].values() if b["text"] == ["Go green"]]
    (name,) = button["imgs"]
    crop = Image.open(io.BytesIO(read(built, f"webvln/imgs/{name}"))).convert("RGB")
    dpr = shop.evaluate("window.devicePixelRatio")
    assert crop.size == (320 * dpr, 160 * dpr)
    assert box_shows_colour(crop, [0, 0, *crop.size], LONG_PAGE_BUTTON_RGB), crop_colour(crop, [0, 0, *crop.size])
    pages = read_json(built, "webvln/pages.json")
    (entries,) = pages.values()
    assert set(entries) == set(graph)
    long_entry = next(entry for entry in entries.values() if entry["url"].endswith("/long-link"))
    assert long_entry["height"] >= LONG_PAGE_HEIGHT * dpr - 2  # the full page is the observation
