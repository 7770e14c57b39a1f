"""A reviewer clears the personal-data queue with the keyboard, in a real browser."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from playwright.sync_api import expect

from assets.models import Asset
from assets.tests.samples import png_bytes
from collection.services import capture_screen
from moderation import services as review
from moderation.models import ReviewDecision
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _pending(author, seed, risk):
    screen = capture_screen(
        file=SimpleUploadedFile("s.png", png_bytes(size=(800, 500), seed=seed), content_type="image/png"), author=author
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
