"""A reviewer clears the personal-data queue with the keyboard, in a real browser."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from playwright.sync_api import expect

from assets.models import Asset
from assets.tests.samples import png_bytes
from collection.services import capture_screen
from hits import services as work
from moderation import services as review
from moderation.models import ReviewDecision
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD, open_batch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _pending(author, seed, risk, assignment=None):
    screen = capture_screen(
        file=SimpleUploadedFile("s.png", png_bytes(size=(800, 500), seed=seed), content_type="image/png"),
        author=author,
        assignment=assignment,
    )
    finding = {
        "kind": "email",
        "text": "jo@example.org",
        "box": {"left": 40, "top": 60, "width": 300, "height": 40},
        "confidence": 0.9,
    }
    review.record_prescreen(
        asset_id=screen.asset_id, result={"findings": [finding], "pii_risk": risk, "safety_risk": 0}
    )
    return screen.asset


def test_reviewer_approves_redacts_and_rejects_with_keys(page, live_server, rater, reviewer):
    first, second, third = _pending(rater, 1, 0.9), _pending(rater, 2, 0.8), _pending(rater, 3, 0.7)
    log_in(page, live_server.url, reviewer.username, PASSWORD)
    page.get_by_role("link", name="Review queues").click()
    expect(page.get_by_test_id("depth-pii")).to_have_text("3")
    page.get_by_role("link", name="Review personal data").click()

    image = page.get_by_test_id("review-image")
    expect(image).to_have_attribute("src", f"/assets/{first.pk}/")
    expect(page.get_by_test_id("box")).to_have_count(1)
    page.keyboard.press("a")  # approve

    expect(image).to_have_attribute("src", f"/assets/{second.pk}/")
    page.get_by_role("checkbox").first.uncheck()  # not this box, …
    bounds = image.bounding_box()
    page.mouse.move(bounds["x"] + 10, bounds["y"] + 10)  # … but one drawn by hand
    page.mouse.down()
    page.mouse.move(bounds["x"] + bounds["width"] / 2, bounds["y"] + bounds["height"] / 2, steps=5)
    page.mouse.up()
    page.keyboard.press("r")  # redact

    expect(image).to_have_attribute("src", f"/assets/{third.pk}/")
    page.keyboard.press("x")  # focuses the reason
    expect(page.get_by_test_id("reject-reason")).to_be_focused()
    page.keyboard.type("Shows a private message")
    page.keyboard.press("Enter")
    expect(page.get_by_role("status").first).to_contain_text("queue is empty")

    states = dict(Asset.objects.filter(pk__in=[first.pk, second.pk, third.pk]).values_list("pk", "review_state"))
    assert states == {first.pk: "cleared", second.pk: "rejected", third.pk: "rejected"}
    decisions = {d.asset_id: d for d in ReviewDecision.objects.all()}
    assert decisions[first.pk].decision == "approved"
    redaction = decisions[second.pk]
    assert redaction.decision == "redacted" and redaction.replacement.review_state == "cleared"
    (box,) = redaction.boxes  # only the drawn box: the found one was unticked
    assert box[0] <= 20 and box[1] <= 20 and 300 <= box[2] <= 420 and 180 <= box[3] <= 260
    assert decisions[third.pk].decision == "rejected" and decisions[third.pk].reason == "Shows a private message"


def _drag_by_touch(page, session, start, end):
    """A finger dragged across the screen, as Chromium's touch input gives it."""
    session.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}]})
    for step in range(1, 6):
        x = start[0] + (end[0] - start[0]) * step / 5
        y = start[1] + (end[1] - start[1]) * step / 5
        session.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    session.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _drag_by_pen(session, start, end):
    common = {"button": "left", "pointerType": "pen", "clickCount": 1}
    session.send("Input.dispatchMouseEvent", {"type": "mousePressed", "x": start[0], "y": start[1], **common})
    session.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": end[0], "y": end[1], **common})
    session.send("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": end[0], "y": end[1], **common})


def test_reviewer_sees_the_uploader_draws_by_touch_and_pen_removes_a_box_and_undoes(
    browser, live_server, rater, reviewer
):
    batch = open_batch(tasks=2, name="Shop screens")
    assignment, _ = work.request_next_task(worker=rater, batch_id=batch.pk)
    first, second = _pending(rater, 11, 0.9, assignment=assignment), _pending(rater, 12, 0.8)
    context = browser.new_context(has_touch=True)
    page = context.new_page()
    page.set_default_timeout(15000)
    try:
        log_in(page, live_server.url, reviewer.username, PASSWORD)
        page.goto(f"{live_server.url}/review/pii/")
        image = page.get_by_test_id("review-image")
        expect(image).to_have_attribute("src", f"/assets/{first.pk}/")
        where = page.get_by_test_id("upload-context")
        expect(where.get_by_test_id("uploader")).to_contain_text(f"Uploaded by {rater.username} on")
        expect(where.get_by_test_id("upload-task")).to_have_text("For Shop screens, task 1 (assigned)")
        expect(page.get_by_test_id("undo-toast")).to_have_count(0)

        page.get_by_role("checkbox").first.uncheck()
        bounds = image.bounding_box()
        x, y, w, h = bounds["x"], bounds["y"], bounds["width"], bounds["height"]
        session = context.new_cdp_session(page)
        _drag_by_touch(page, session, (x + 10, y + 10), (x + w / 2, y + h / 2))
        _drag_by_pen(session, (x + w * 0.6, y + h * 0.6), (x + w * 0.9, y + h * 0.9))
        drawn = page.locator(".box.drawn")
        expect(drawn).to_have_count(2)
        drawn.first.get_by_test_id("delete-box").click()  # the finger's box goes again
        expect(drawn).to_have_count(1)
        page.keyboard.press("r")  # redact with the pen's box only

        expect(image).to_have_attribute("src", f"/assets/{second.pk}/")
        toast = page.get_by_test_id("undo-toast")
        expect(toast).to_contain_text("Redacted the previous screen. This cannot be undone")
        expect(toast.get_by_role("button", name="Undo")).to_have_count(0)
        page.keyboard.press("a")  # approve …
        expect(page.get_by_role("status").first).to_contain_text("queue is empty")
        expect(page.get_by_test_id("undo-toast")).to_contain_text("Approved the previous screen.")
        page.get_by_test_id("undo").click()  # … and take it back
        expect(page.get_by_role("status").first).to_contain_text("Undone")
        expect(image).to_have_attribute("src", f"/assets/{second.pk}/")
        assert Asset.objects.get(pk=second.pk).review_state == "pending_review"
    finally:
        context.close()

    redaction = ReviewDecision.objects.get(asset=first)
    (box,) = redaction.boxes  # the pen's box; the finger's was removed
    assert 450 <= box[0] <= 520 and 280 <= box[1] <= 320 and 200 <= box[2] <= 260 and 120 <= box[3] <= 170
    approval = ReviewDecision.objects.get(asset=second)
    assert approval.decision == "approved" and approval.undone_at is not None
