"""The Chrome extension, loaded into headless Chromium, recording demo sites served by
the test and uploading to a live platform."""

import re
import shutil
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from accounts.services import create_api_token
from collection.models import BlockedSite
from corpus.models import Trace, TraceStep
from hits import services
from hits.models import Task
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.e2e.servers import DemoSite, Relay
from tests.factories import make_category, site

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCE = Path(__file__).resolve().parents[2] / "extension"
EXTENSION_ID = "ehhmoojfjbplejkadhmdefdcednjgaij"  # from the manifest's key, wherever it is loaded from


@pytest.fixture(scope="module")
def extension_under_test(tmp_path_factory):
    """The extension as it ships, plus the test hook appended to its service worker."""
    folder = tmp_path_factory.mktemp("extension")
    shutil.copytree(SOURCE, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("tests", "node_modules"))
    with open(folder / "background.js", "a", encoding="utf-8") as worker:
        worker.write("\n" + (SOURCE / "tests" / "worker_hook.js").read_text(encoding="utf-8"))
    return folder


@pytest.fixture
def chromium_with_extension(playwright, extension_under_test):
    extension = extension_under_test
    with tempfile.TemporaryDirectory(prefix="trailmark-profile-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            viewport={"width": 1280, "height": 800},
            args=[*CHROMIUM_ARGS, f"--disable-extensions-except={extension}", f"--load-extension={extension}"],
        )
        context.set_default_timeout(20000)
        worker = context.service_workers[0] if context.service_workers else context.wait_for_event("serviceworker")
        assert worker.url.startswith(f"chrome-extension://{EXTENSION_ID}/")
        yield context, worker
        context.close()


@pytest.fixture
def demo_site():
    server = DemoSite()
    yield server
    server.close()


def _extension_page(context, name):
    page = context.new_page()
    page.goto(f"chrome-extension://{EXTENSION_ID}/{name}.html")
    return page


def _sign_in_and_start(context, platform_url, key, rater, batch):
    popup = _extension_page(context, "popup")
    popup.get_by_test_id("platform-url").fill(platform_url)
    popup.get_by_test_id("token").fill(key)
    popup.get_by_test_id("sign-in").click()
    expect(popup.get_by_test_id("signed-in-as")).to_have_text(rater.username)
    popup.get_by_test_id("category").select_option("shopping")
    popup.get_by_test_id("batch").select_option(str(batch.pk))
    popup.get_by_test_id("start").click()
    expect(popup.get_by_test_id("state")).to_have_attribute("data-state", "recording")
    return popup


def _flush(worker):
    """Waits until the extension has taken (or dropped) every capture it queued."""
    state = worker.evaluate("trailmark.send({type: 'flush'})")
    assert state["ok"], state
    return state


def _click(page, worker, name):
    """Follows a link at a person's pace: the next click comes once the page is captured."""
    page.bring_to_front()
    with page.expect_navigation():
        page.get_by_role("link", name=name, exact=True).first.click()
    _flush(worker)


def _setup(live_server, rater, demo_site):
    # The default categories and block list come from a migration, which the flush
    # after each browser test removes: make what these tests rely on.
    BlockedSite.objects.get_or_create(path_contains="/account", defaults={"reason": "account pages"})
    make_category("shopping")
    site(category="shopping", name="Demo Shop", url=demo_site.url + "/")
    batch = services.open_batch(batch=services.create_batch(name="Shop traces", kind="trace_qa"))
    key = create_api_token(user=rater, name="Chrome extension")[1]
    return batch, key


def test_record_pause_review_delete_and_upload_a_trace(chromium_with_extension, live_server, demo_site, rater):
    context, worker = chromium_with_extension
    batch, key = _setup(live_server, rater, demo_site)
    shop = context.pages[0] if context.pages else context.new_page()
    shop.goto(demo_site.url + "/")  # before recording: not captured

    popup = _sign_in_and_start(context, live_server.url, key, rater, batch)
    _click(shop, worker, "Steel kettle")  # product 0
    _click(shop, worker, "Next kettle")  # product 1
    _flush(worker)
    popup.bring_to_front()
    popup.get_by_test_id("pause").click()
    expect(popup.get_by_test_id("state")).to_have_attribute("data-state", "paused")
    _click(shop, worker, "Next kettle")  # product 2, while paused
    _flush(worker)
    popup.bring_to_front()
    popup.get_by_test_id("resume").click()
    expect(popup.get_by_test_id("state")).to_have_attribute("data-state", "recording")
    _click(shop, worker, "Next kettle")  # product 3
    _click(shop, worker, "All kettles")  # home
    _click(shop, worker, "My account")  # on the block list: never captured
    _click(shop, worker, "Back")  # home again
    _click(shop, worker, "Glass kettle")  # product 1
    _flush(worker)
    popup.bring_to_front()
    popup.get_by_test_id("stop").click()
    expect(popup.get_by_test_id("state")).to_have_attribute("data-state", "idle")
    expect(popup.get_by_test_id("after-stop")).to_be_visible()  # not straight back to "start"
    expect(popup.get_by_test_id("recorded-steps").locator("li")).to_have_count(6)
    expect(popup.get_by_test_id("start")).to_be_hidden()

    review = _extension_page(context, "review")
    steps = review.get_by_test_id("step")
    expect(steps).to_have_count(6)
    urls = [steps.nth(n).get_by_test_id("step-url").inner_text() for n in range(6)]
    paths = [re.sub(r"^https?://[^/]+", "", url.rsplit(" — ", 1)[-1]) for url in urls]
    assert paths == ["/product/0", "/product/1", "/product/3", "/", "/", "/product/1"], paths
    deleted_id = steps.nth(2).get_attribute("data-step-id")
    steps.nth(2).get_by_test_id("delete-step").click()
    expect(steps).to_have_count(5)
    review.get_by_test_id("upload").click()
    expect(review.get_by_test_id("upload-done")).to_be_visible(timeout=60000)
    expect(review.get_by_test_id("task-link")).to_have_attribute("href", f"{live_server.url}/#batch-{batch.pk}")

    trace = Trace.objects.get(author=rater)
    stored = list(TraceStep.objects.filter(trace=trace).order_by("position"))
    assert trace.state == "finished" and trace.batch == batch and trace.category.slug == "shopping"
    assert [s.position for s in stored] == [0, 1, 2, 3, 4]
    assert [re.sub(r"^https?://[^/]+", "", s.url) for s in stored] == [
        "/product/0",
        "/product/1",
        "/",
        "/",
        "/product/1",
    ]
    assert deleted_id not in {str(s.client_id) for s in stored}
    first = stored[0]
    assert first.action == "click" and first.target["text"] == "Steel kettle" and first.target["bbox"]
    assert any(c.get("text") == "Next kettle" for c in first.clickables)
    assert {s.action for s in stored} <= {"click", "back", "navigate"}
    assert all(s.screen.asset.review_state == "pending_review" and s.screen.asset.width == 1280 for s in stored)
    assert not any("/account" in s.url or "/product/2" in s.url for s in stored)
    assert Task.objects.get(batch=batch).reserved_for == rater


def test_an_upload_cut_off_midway_resumes_without_duplicates_or_gaps(
    chromium_with_extension, live_server, demo_site, rater
):
    context, worker = chromium_with_extension
    batch, key = _setup(live_server, rater, demo_site)
    relay = Relay(int(live_server.url.rsplit(":", 1)[1]))
    shop = context.pages[0] if context.pages else context.new_page()
    shop.goto(demo_site.url + "/")
    popup = _sign_in_and_start(context, relay.url, key, rater, batch)
    for name in ("Steel kettle", "Next kettle", "Next kettle", "Next kettle"):
        _click(shop, worker, name)
    _flush(worker)
    popup.bring_to_front()
    popup.get_by_test_id("stop").click()

    relay.cut_at(b"/steps/ HTTP", nth=3)  # the platform goes away before the third step
    review = _extension_page(context, "review")
    expect(review.get_by_test_id("step")).to_have_count(4)
    review.get_by_test_id("upload").click()
    trace = None
    for _ in range(100):
        trace = Trace.objects.filter(author=rater).first()
        if trace is not None and trace.steps.count() == 2 and not relay.open.is_set():
            break
        review.wait_for_timeout(100)
    assert trace is not None and trace.steps.count() == 2 and trace.state == "uploading"
    review.wait_for_timeout(1500)  # the extension retries against a dead platform
    relay.restore()
    expect(review.get_by_test_id("upload-done")).to_be_visible(timeout=60000)
    relay.close()

    trace.refresh_from_db()
    positions = list(trace.steps.order_by("position").values_list("position", flat=True))
    assert trace.state == "finished" and positions == [0, 1, 2, 3]
    assert TraceStep.objects.count() == 4


def test_stop_offers_the_steps_to_check_and_upload_then_leads_back_to_the_task(
    chromium_with_extension, live_server, demo_site, rater
):
    context, worker = chromium_with_extension
    batch, key = _setup(live_server, rater, demo_site)
    shop = context.pages[0] if context.pages else context.new_page()
    shop.goto(demo_site.url + "/")
    popup = _sign_in_and_start(context, live_server.url, key, rater, batch)
    for name in ("Steel kettle", "Next kettle", "Next kettle"):
        _click(shop, worker, name)
    _flush(worker)
    popup.bring_to_front()
    popup.get_by_test_id("stop").click()

    after = popup.get_by_test_id("after-stop")
    expect(after.get_by_test_id("after-stop-status")).to_have_text("3 steps recorded. Check them, then upload.")
    lines = after.get_by_test_id("recorded-steps").locator("li")
    expect(lines).to_have_count(3)
    expect(lines.first).to_contain_text("1. click “Steel kettle”")
    after.get_by_test_id("upload-now").click()
    expect(after.get_by_test_id("after-stop-status")).to_have_text("Uploaded: 3 steps stored.", timeout=60000)
    link = after.get_by_test_id("task-link")
    expect(link).to_have_attribute("href", f"{live_server.url}/#batch-{batch.pk}")
    assert Trace.objects.get(author=rater).state == "finished"

    with context.expect_page() as opened:
        link.click()
    platform = opened.value
    platform.wait_for_load_state()
    assert platform.url.startswith(f"{live_server.url}/")  # the platform (its log-in page when signed out)

    popup.bring_to_front()
    after.get_by_test_id("record-another").click()
    expect(after).to_be_hidden()
    expect(popup.get_by_test_id("start")).to_be_visible()


def test_the_extension_wears_the_platforms_colours(chromium_with_extension):
    context, _worker = chromium_with_extension
    popup = _extension_page(context, "popup")
    colours = popup.evaluate(
        """() => {
        const root = getComputedStyle(document.documentElement);
        return ["--ink", "--muted", "--brand", "--danger", "--ok", "--bg"].map((name) => root.getPropertyValue(name).trim());
    }"""
    )
    app = _app_colours()
    assert colours == [app[name] for name in ("--ink", "--muted", "--accent", "--bad", "--good", "--bg")]
    button = popup.get_by_test_id("sign-in")
    red, green, blue = (int(app["--accent"][i : i + 2], 16) for i in (1, 3, 5))
    assert button.evaluate("b => getComputedStyle(b).backgroundColor") == f"rgb({red}, {green}, {blue})"


def _app_colours():
    """The colours the platform's own pages declare (static/css/trailmark.css :root)."""
    css = (Path(__file__).resolve().parents[2] / "static" / "css" / "trailmark.css").read_text()
    root = re.search(r":root\s*{([^}]*)}", css).group(1)
    return dict(re.findall(r"(--[a-z]+):\s*(#[0-9a-f]{6})", root))
