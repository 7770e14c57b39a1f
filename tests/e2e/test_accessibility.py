"""Accessibility in a real browser: axe-core (axe-playwright-python, pinned in
requirements-dev.txt) finds no serious or critical problem on the main pages of each role;
the evidence viewer works from the keyboard; the error summary takes focus and leads to
each field; what a rater typed survives a reload and goes once the task is submitted."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from playwright.sync_api import expect

from assets.tests.samples import png_bytes
from collection.services import capture_screen
from corpus.models import QAPair
from corpus.signals import pairs_written
from hits.models import Assignment, Batch
from moderation import services as review
from releases.tests import data
from tests.e2e.conftest import log_in
from tests.e2e.test_releases_in_browser import published, queued  # noqa: F401  (fixtures)
from tests.factories import PASSWORD, open_batch
from tests.pools import image_group, pool_images, snippets, webqa_batch
from validation.tests.factories import validators, written_pair

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Axe()
BLOCKING = {"serious", "critical"}


def problems(page):
    """axe-core's serious and critical violations on the page as it is now, readable."""
    page.wait_for_load_state("load")
    found = AXE.run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:5]}"
        for v in found
        if v["impact"] in BLOCKING
    ]


def assert_accessible(page, *, name):
    assert problems(page) == [], f"{name} ({page.url})"


def _start(page, batch_name):
    row = page.get_by_test_id("available-work").locator("tr", has_text=batch_name).first
    row.get_by_role("button", name="Start").click()


def _drafts_kept(page):
    """Waits until the task form keeps drafts (its script runs once the page has loaded):
    what is typed before that is read as the form's starting point."""
    expect(page.locator("#task-form")).to_have_attribute("data-draft-ready", "")


def test_visitor_pages(page, live_server):
    page.goto(f"{live_server.url}/welcome/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Trailmark collects questions")
    assert_accessible(page, name="landing")
    page.get_by_role("link", name="Log in").last.click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    assert_accessible(page, name="log in")
    page.get_by_role("link", name="read what Trailmark is").click()
    page.get_by_role("link", name="Create an account").first.click()
    expect(page.get_by_role("heading", name="Create your rater account")).to_be_visible()
    page.get_by_role("button", name="Sign up").click()  # empty: refused, with a summary
    expect(page.get_by_test_id("form-errors")).to_be_focused()
    assert_accessible(page, name="sign-up with errors")

    page.goto(f"{live_server.url}/no-such-page/")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert_accessible(page, name="page not found")

    # The check itself can fail: a picture without a text alternative is caught.
    page.evaluate(
        "document.querySelector('main').insertAdjacentHTML('beforeend', '<img src=\"/static/img/favicon.svg\">')"
    )
    assert any(found.startswith("image-alt (critical)") for found in problems(page))


def test_rater_pages_and_task_kinds(page, live_server, rater):
    open_batch(tasks=1, name="Passages")
    webqa_batch(
        kind="image_filter",
        name="Lighthouse pictures",
        payloads=[{"topic": "lighthouses", "images": [i.pk for i in pool_images(10)]}],
    )
    webqa_batch(kind="six_image_qa", name="Six lighthouses", payloads=[{"group": image_group(pool_images(6)).pk}])
    webqa_batch(kind="text_multihop_qa", name="Bridge snippets", payloads=[{"snippets": [s.pk for s in snippets(4)]}])
    log_in(page, live_server.url, rater.username, PASSWORD)
    assert_accessible(page, name="home")
    page.goto(f"{live_server.url}/welcome/")  # nothing to read there once signed in
    expect(page).to_have_url(f"{live_server.url}/")
    for name in ("Passages", "Lighthouse pictures", "Six lighthouses", "Bridge snippets"):
        page.goto(f"{live_server.url}/")
        _start(page, name)
        expect(page.locator("#task-form")).to_be_visible()
        assert_accessible(page, name=name)
        page.get_by_role("button", name="Submit", exact=True).click()  # refused, in the page or by the server
        expect(page.get_by_test_id("form-errors")).to_be_focused()
        assert_accessible(page, name=f"{name} with errors")
        page.get_by_role("button", name="Return and stop").click()


def test_validation_and_review_pages(page, live_server, rater, reviewer):
    written_pair(author=rater)
    (validator,) = validators(1)
    log_in(page, live_server.url, validator.username, PASSWORD)
    _start(page, Batch.objects.get(kind="validation").name)
    expect(page.get_by_test_id("pair")).to_be_visible()
    assert_accessible(page, name="validation")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_test_id("form-errors")).to_be_focused()
    assert_accessible(page, name="validation with errors")

    screen = capture_screen(
        file=SimpleUploadedFile("s.png", png_bytes(size=(800, 500), seed=1), content_type="image/png"), author=rater
    )
    review.record_prescreen(asset_id=screen.asset_id, result={"findings": [], "pii_risk": 0.9, "safety_risk": 0})
    page.context.clear_cookies()
    log_in(page, live_server.url, reviewer.username, PASSWORD)
    page.get_by_role("link", name="Review queues").click()
    assert_accessible(page, name="review queues")
    page.get_by_role("link", name="Review personal data").click()
    expect(page.get_by_test_id("review-image")).to_be_visible()
    assert_accessible(page, name="review item")


def test_release_and_console_pages(page, live_server, admin_user, published):  # noqa: F811
    log_in(page, live_server.url, admin_user.username, PASSWORD)
    page.goto(f"{live_server.url}/releases/")
    assert_accessible(page, name="release list")
    page.get_by_role("link", name="shops 1.0.0").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("shops 1.0.0")
    assert_accessible(page, name="release detail")
    page.goto(f"{live_server.url}/console/")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert_accessible(page, name="console")


def test_the_viewer_opens_zooms_and_moves_with_the_keyboard(page, live_server, rater):
    images = pool_images(6)
    webqa_batch(kind="six_image_qa", name="Six lighthouses", payloads=[{"group": image_group(images).pk}])
    log_in(page, live_server.url, rater.username, PASSWORD)
    _start(page, "Six lighthouses")
    first = page.get_by_test_id("group-image").first.get_by_role("link")
    first.focus()
    page.keyboard.press("Enter")

    viewer = page.get_by_test_id("viewer")
    expect(viewer).to_be_visible()
    expect(page.get_by_test_id("viewer-count")).to_have_text("1 of 6")
    expect(viewer.get_by_role("heading")).to_have_text(f"1. {images[0].title}")  # the full title
    expect(page.get_by_test_id("viewer-close")).to_be_focused()
    picture = page.get_by_test_id("viewer-image")
    expect(picture).to_have_js_property("complete", True)
    assert picture.evaluate("img => img.naturalWidth") > 0
    assert picture.get_attribute("src").endswith(f"/assets/{images[0].asset_id}/")  # full size, not the thumbnail
    assert_accessible(page, name="viewer")

    fitted = picture.bounding_box()["width"]
    page.keyboard.press("+")
    expect(viewer).to_have_attribute("data-zoom", "1.5")
    assert picture.bounding_box()["width"] > fitted * 1.4
    page.get_by_test_id("viewer-zoom-in").click()
    expect(viewer).to_have_attribute("data-zoom", "2")
    page.keyboard.press("0")
    expect(viewer).to_have_attribute("data-zoom", "1")
    picture.click()  # a click zooms in a step
    expect(viewer).to_have_attribute("data-zoom", "1.5")

    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("viewer-count")).to_have_text("2 of 6")
    expect(viewer).to_have_attribute("data-zoom", "1")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("viewer-count")).to_have_text("6 of 6")  # wraps round

    for _ in range(12):  # focus stays in the viewer however far one tabs
        page.keyboard.press("Tab")
        assert viewer.evaluate("dialog => dialog.contains(document.activeElement)")
    page.keyboard.press("Shift+Tab")
    assert viewer.evaluate("dialog => dialog.contains(document.activeElement)")

    page.keyboard.press("Escape")
    expect(viewer).to_be_hidden()
    expect(first).to_be_focused()  # back where the worker was


def test_the_error_summary_takes_focus_and_leads_to_each_field(page, live_server, rater):
    open_batch(tasks=1, name="Passages")
    webqa_batch(
        kind="image_filter",
        name="Lighthouse pictures",
        payloads=[{"topic": "x", "images": [i.pk for i in pool_images(10)]}],
    )
    log_in(page, live_server.url, rater.username, PASSWORD)

    # The server's refusal: a summary at the top, each entry leading to its field.
    _start(page, "Passages")
    page.get_by_role("button", name="Submit", exact=True).click()
    summary = page.get_by_test_id("form-errors")
    expect(summary).to_be_focused()
    expect(summary).to_have_attribute("role", "alert")
    summary.get_by_role("link", name="Write your answer.").click()
    answer = page.get_by_label("Your answer")
    expect(answer).to_be_focused()
    expect(answer).to_have_attribute("aria-invalid", "true")
    described = answer.get_attribute("aria-describedby")
    expect(page.locator(f"#{described}")).to_have_text("Write your answer.")
    summary.get_by_role("link").nth(1).click()
    expect(page.get_by_label("Not sure")).to_be_focused()
    page.get_by_role("button", name="Return and stop").click()

    # A count checked before sending: nothing reaches the server.
    _start(page, "Lighthouse pictures")
    assignment = Assignment.objects.get(worker=rater, batch__name="Lighthouse pictures")
    page.get_by_test_id("pool-image").nth(0).locator("input").check()
    page.get_by_label("What the three have in common").fill("towers")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(summary).to_be_focused()
    expect(summary).to_contain_text("Pick exactly 3 images; you picked 1.")
    expect(page.get_by_test_id("field-error")).to_have_text("Pick exactly 3 images; you picked 1.")
    summary.get_by_role("link").click()
    expect(page.get_by_test_id("pool-image").first.locator("input")).to_be_focused()
    assignment.refresh_from_db()
    assert assignment.state == "assigned" and assignment.answer in (None, {})

    # The server still decides: with the page's check out of the way it refuses the same.
    page.evaluate("document.querySelector('[data-check-count]').removeAttribute('data-check-count')")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_test_id("form-errors")).to_contain_text("Pick exactly 3 images; you picked 1.")
    expect(page.get_by_test_id("form-errors")).to_be_focused()
    assignment.refresh_from_db()
    assert assignment.state == "assigned"


def _draft_keys(page):
    return page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('draft:'))")


def test_a_draft_survives_a_reload_and_goes_once_submitted_or_returned(page, live_server, rater):
    open_batch(tasks=2, name="Passages")
    log_in(page, live_server.url, rater.username, PASSWORD)
    _start(page, "Passages")
    _drafts_kept(page)
    page.get_by_label("Your answer").fill("seven")
    page.get_by_label("Fairly sure").check()
    expect(page.locator("#task-form")).to_have_attribute("data-draft-saved", re.compile(r"\d+"))
    page.reload()
    expect(page.get_by_label("Your answer")).to_have_value("seven")
    expect(page.get_by_label("Fairly sure")).to_be_checked()
    expect(page.get_by_test_id("draft-note")).to_contain_text("was put back")

    # A refused submit keeps it; an accepted one forgets it.
    page.get_by_label("Your answer").fill("")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_test_id("form-errors")).to_be_visible()
    _drafts_kept(page)
    page.get_by_label("Your answer").fill("eight")
    page.get_by_role("button", name="Submit and take the next task").click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")
    assert Assignment.objects.get(worker=rater, state="submitted").answer == {"answer": "eight", "confidence": "medium"}
    expect(page.get_by_label("Your answer")).to_have_value("")  # the next task starts empty
    assert len(_draft_keys(page)) == 0

    # Returning a task forgets its draft too.
    expect(page.locator("#task-form")).not_to_have_attribute("data-draft-saved", re.compile(r"\d+"))
    _drafts_kept(page)
    page.get_by_label("Your answer").fill("nine")
    expect(page.locator("#task-form")).to_have_attribute("data-draft-saved", re.compile(r"\d+"))
    assert len(_draft_keys(page)) == 1
    page.get_by_role("button", name="Return and stop").click()
    expect(page.get_by_role("status").first).to_contain_text("returned")
    assert _draft_keys(page) == []


def test_storage_that_refuses_does_not_break_the_form(page, live_server, rater):
    """A browser that will not store anything (private mode, full quota) still submits."""
    open_batch(tasks=1, name="Passages")
    page.add_init_script(
        "Storage.prototype.setItem = function () { throw new DOMException('full', 'QuotaExceededError'); };"
    )
    log_in(page, live_server.url, rater.username, PASSWORD)
    _start(page, "Passages")
    _drafts_kept(page)
    page.get_by_label("Your answer").fill("seven")
    expect(page.get_by_test_id("draft-note")).to_contain_text("could not keep a draft")
    page.get_by_label("Certain").check()
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")
    assert Assignment.objects.get(worker=rater).answer == {"answer": "seven", "confidence": "high"}


def test_a_validator_reads_a_screenshot_full_size_and_the_answer_keys_wait(page, live_server, rater):
    with transaction.atomic():
        pair = data.screen_pair(rater, screens=2, state="pending_validation")
        pairs_written.send(sender=QAPair, qa_pairs=[pair])
    (validator,) = validators(1)
    log_in(page, live_server.url, validator.username, PASSWORD)
    _start(page, Batch.objects.get(kind="validation").name)
    sources = page.get_by_test_id("evidence").locator("a[data-viewer]")
    expect(sources).to_have_count(2)
    sources.first.click()
    expect(page.get_by_test_id("viewer-count")).to_have_text("1 of 2")
    expect(page.get_by_test_id("viewer").get_by_role("heading")).to_have_text(
        "Source 1: Page https://shop0.example/item"
    )
    page.keyboard.press("y")  # not an answer while the viewer is open
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("viewer-count")).to_have_text("2 of 2")
    expect(page.get_by_test_id("viewer-caption")).to_contain_text("https://shop1.example/item")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("viewer")).to_be_hidden()
    expect(page.locator("input[name=answer_correct]:checked")).to_have_count(0)


CONTRAST = """
(el) => {
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  let back = el.parentElement;
  while (back && getComputedStyle(back).backgroundColor.replace(/\\s/g, "").match(/rgba\\(.*,0\\)|transparent/)) back = back.parentElement;
  const a = lum(rgb(getComputedStyle(el).borderTopColor));
  const b = lum(rgb(getComputedStyle(back || document.body).backgroundColor));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}
"""


def test_fields_are_outlined_at_three_to_one_and_focus_is_visible(page, live_server, rater):
    open_batch(tasks=1, name="Passages")
    log_in(page, live_server.url, rater.username, PASSWORD)
    _start(page, "Passages")
    fields = page.locator("#task-form").locator("input[name=answer], textarea, select")
    assert fields.count() >= 1
    for field in fields.all():
        assert field.evaluate(CONTRAST) >= 3
    for control in (page.get_by_label("Your answer"), page.get_by_role("button", name="Submit", exact=True)):
        control.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")  # focus by keyboard, as :focus-visible wants
        outline = control.evaluate(
            "el => [getComputedStyle(el).outlineStyle, parseFloat(getComputedStyle(el).outlineWidth)]"
        )
        assert outline[0] != "none" and outline[1] >= 2, outline
