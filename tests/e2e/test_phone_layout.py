"""Each role's main journey on a desktop window and on a phone (390 px wide): a rater takes
and submits a task, a validator checks a question, a reviewer decides a review item, an
admin previews a release in the console. On the phone no page of those journeys scrolls
sideways, the menu folds away, and the key buttons are big enough to tap (44 px) and not
covered by anything."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from playwright.sync_api import expect

from assets.models import Asset
from assets.tests.samples import png_bytes
from collection.services import capture_screen
from corpus.models import QAPair
from corpus.signals import pairs_written
from hits.models import Assignment
from moderation import services as review
from releases.tests import data
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD, open_batch
from tests.pools import image_group, pool_images, webqa_batch
from validation.models import Judgement
from validation.tests.factories import validators

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": {"width": 1366, "height": 850}, "phone": {"width": 390, "height": 844}}
TAP = 44


@pytest.fixture(params=sorted(SIZES))
def screen(request, browser):
    """A page in a fresh context of the given size; a phone has touch. Like the shared
    ``page`` fixture, any Content-Security-Policy violation fails the test."""
    phone = request.param == "phone"
    context = browser.new_context(viewport=SIZES[request.param], has_touch=phone, is_mobile=phone)
    page = context.new_page()
    page.set_default_timeout(15000)
    violations = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    yield page, phone
    context.close()
    assert violations == [], violations


def fits(page, phone):
    """Nothing on the page is wider than the window."""
    page.wait_for_load_state("load")
    if not phone:
        return
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{page.url} is {width} px wide in a {inner} px window"


def tappable(button, phone):
    """Big enough to tap on a phone, and the topmost thing at its centre (nothing covers it)."""
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    assert box, "not on the page"
    if phone:
        assert box["height"] >= TAP and box["width"] >= TAP, box
    on_top = button.evaluate(
        """b => { const r = b.getBoundingClientRect();
                  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                  return !!top && (top === b || b.contains(top)); }"""
    )
    assert on_top, "something covers it"


def go_to(page, phone, name):
    """Follows a menu link, opening the folded menu first on a phone."""
    link = page.get_by_role("navigation", name="Main").get_by_role("link", name=name)
    if phone:
        expect(link).to_be_hidden()
        menu = page.locator("#nav-menu > summary")
        tappable(menu, phone)
        menu.click()
    expect(link).to_be_visible()
    link.click()


def test_rater_takes_a_task_and_submits_it(screen, live_server, rater):
    page, phone = screen
    open_batch(tasks=2, name="Passages for phones", reward="0.25")
    log_in(page, live_server.url, rater.username, PASSWORD)
    fits(page, phone)

    start = page.get_by_test_id("available-work").get_by_role("button", name="Start")
    tappable(start, phone)
    start.click()
    expect(page.get_by_test_id("passage")).to_contain_text("Passage number")
    fits(page, phone)
    for name in ("Submit and take the next task", "Skip this task", "Return and stop"):
        tappable(page.get_by_role("button", name=name), phone)

    submit = page.get_by_role("button", name="Submit", exact=True)
    tappable(submit, phone)
    submit.click()  # nothing filled in: the summary says what is missing, on the screen
    summary = page.get_by_test_id("form-errors")
    expect(summary).to_be_focused()
    expect(summary).to_be_in_viewport()
    fits(page, phone)

    page.get_by_label("Your answer").fill("seven")
    certain = page.get_by_label("Certain")
    tappable(certain.locator("xpath=.."), phone)  # the whole label is the target
    certain.check()
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")
    fits(page, phone)
    expect(page.get_by_test_id("history")).to_contain_text("Submitted")
    assert Assignment.objects.get(worker=rater, state="submitted").answer == {"answer": "seven", "confidence": "high"}

    go_to(page, phone, "Profile & API tokens")
    fits(page, phone)
    go_to(page, phone, "My work")
    expect(page.get_by_role("heading", name="My work")).to_be_visible()


def test_validator_checks_a_question(screen, live_server, rater):
    page, phone = screen
    with transaction.atomic():  # a question on two screenshots, handed to validators
        pair = data.screen_pair(rater, screens=2, state="pending_validation")
        pairs_written.send(sender=QAPair, qa_pairs=[pair])
    (validator,) = validators(1)
    log_in(page, live_server.url, validator.username, PASSWORD)
    fits(page, phone)
    start = page.get_by_test_id("available-work").get_by_role("button", name="Start")
    tappable(start, phone)
    start.click()
    expect(page.get_by_test_id("pair")).to_contain_text(pair.question)
    fits(page, phone)
    source = page.get_by_test_id("evidence").locator("a[data-viewer]").first
    tappable(source, phone)
    source.click()
    expect(page.get_by_test_id("viewer-count")).to_have_text("1 of 2")
    for test_id in ("viewer-next", "viewer-zoom-in", "viewer-close"):
        tappable(page.get_by_test_id(test_id), phone)
    fits(page, phone)
    page.get_by_test_id("viewer-close").click()

    for question in ("answer_correct", "follows_guidelines", "sources_needed"):
        group = page.locator(f"fieldset[data-yes-no={question}]")
        yes = group.get_by_label("Yes")
        tappable(yes.locator("xpath=.."), phone)
        yes.check()
    submit = page.get_by_role("button", name="Submit", exact=True)
    tappable(submit, phone)
    submit.click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")
    fits(page, phone)
    assert Judgement.objects.filter(validator=validator).count() == 1


def _pending_screen(author):
    screen = capture_screen(
        file=SimpleUploadedFile("s.png", png_bytes(size=(1280, 800), seed=3), content_type="image/png"),
        author=author,
    )
    finding = {
        "kind": "email",
        "text": "jo@example.org",
        "box": {"left": 40, "top": 60, "width": 300, "height": 40},
        "confidence": 0.9,
    }
    review.record_prescreen(asset_id=screen.asset_id, result={"findings": [finding], "pii_risk": 0.9, "safety_risk": 0})
    return screen.asset


def test_reviewer_decides_a_review_item(screen, live_server, rater, reviewer):
    page, phone = screen
    asset = _pending_screen(rater)
    log_in(page, live_server.url, reviewer.username, PASSWORD)
    go_to(page, phone, "Review queues")
    expect(page.get_by_test_id("depth-pii")).to_have_text("1")
    fits(page, phone)
    page.get_by_role("link", name="Review personal data").click()
    expect(page.get_by_test_id("review-image")).to_have_attribute("src", f"/assets/{asset.pk}/")
    fits(page, phone)
    for test_id in ("redact", "reject", "skip"):
        tappable(page.get_by_test_id(test_id), phone)
    approve = page.get_by_test_id("approve")
    tappable(approve, phone)
    approve.click()
    expect(page.get_by_role("status").first).to_contain_text("queue is empty")
    fits(page, phone)
    assert Asset.objects.get(pk=asset.pk).review_state == "cleared"


def test_the_six_images_stay_in_view_while_writing(screen, live_server, rater):
    page, phone = screen
    images = pool_images(6)
    webqa_batch(kind="six_image_qa", name="Six lighthouses", payloads=[{"group": image_group(images).pk}])
    log_in(page, live_server.url, rater.username, PASSWORD)
    page.get_by_test_id("available-work").get_by_role("button", name="Start").click()
    last = page.get_by_test_id("question-block").nth(2).get_by_label("Keyword answer")
    last.scroll_into_view_if_needed()
    last.fill("three")
    fits(page, phone)
    for n in (0, 5) if not phone else (0,):
        expect(page.get_by_test_id("group-image").nth(n).locator("img")).to_be_in_viewport()
    # Every tick names its image in full, so two images never read the same.
    ticks = page.get_by_test_id("question-block").nth(2).locator("label.choice")
    assert [text.strip() for text in ticks.all_inner_texts()] == [
        f"{n}. {image.title}" for n, image in enumerate(images, start=1)
    ]


def test_admin_previews_a_release_in_the_console(screen, live_server, admin_user, rater):
    """The admin's daily pages fit a phone too, and a release's counts preview there."""
    page, phone = screen
    data.screen_pair(rater)
    data.screen_pair(rater, screens=2)
    log_in(page, live_server.url, admin_user.username, PASSWORD)
    go_to(page, phone, "Console")
    expect(page.get_by_role("heading", name="Console", level=1)).to_be_visible()
    fits(page, phone)
    for section in ("Batches", "Reference answers", "Mining and generation", "Releases"):
        page.locator(".console-nav").get_by_role("link", name=section).click()
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        fits(page, phone)
    page.get_by_test_id("define-release").click()
    form = page.get_by_test_id("release-form")
    for family in ("webqa", "webvln"):
        form.get_by_label(family, exact=True).uncheck()
    form.get_by_label("webquest", exact=True).check()
    page.get_by_label("Name", exact=True).fill("shops")
    page.get_by_label("Version", exact=True).fill("1.0.0")
    preview = page.get_by_test_id("preview-release")
    tappable(preview, phone)
    preview.click()
    expect(page.get_by_test_id("release-preview")).to_contain_text("of the 2 QA pairs it selects go into a split")
    fits(page, phone)
    go_to(page, phone, "Dashboards")
    fits(page, phone)
    go_to(page, phone, "Releases")
    fits(page, phone)
