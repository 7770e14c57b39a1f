"""Personal data in a recorded step's texts reaches the reviewer, who masks it, in a real browser."""

import json
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from playwright.sync_api import expect

from assets.tests.samples import png_bytes
from corpus.models import TraceStep
from moderation.models import ReviewDecision, ReviewItem
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD, make_category

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EMAIL, PHONE = "jane.doe@example.com", "+44 20 7946 0958"


def _record_step(client):
    """One step as the extension uploads it, with an e-mail address in its title and
    URL query and a phone number in a clickable's text."""
    trace = client.post("/api/v1/traces/", {"client_id": str(uuid.uuid4()), "category": "shopping"}, format="json")
    step = {
        "client_id": str(uuid.uuid4()),
        "position": 2,
        "url": "https://shop.example/account/orders?email=jane.doe%40example.com&sort=new",
        "title": f"Orders of {EMAIL}",
        "captured_at": "2026-11-29T14:03:11.250Z",
        "viewport": {"width": 800, "height": 500},
        "action": {"type": "click", "target": {"tag": "a", "text": "Orders", "href": "https://shop.example/orders"}},
        "clickables": [{"text": f"Support {PHONE}", "href": "https://shop.example/help", "bbox": [5, 5, 90, 20]}],
    }
    screenshot = SimpleUploadedFile("step.png", png_bytes(size=(800, 500), seed=41), content_type="image/png")
    sent = client.post(
        f"/api/v1/traces/{trace.json()['id']}/steps/",
        {"screenshot": screenshot, "step": json.dumps(step)},
        format="multipart",
    )
    assert sent.status_code == 201, sent.content
    return TraceStep.objects.get(client_id=step["client_id"])


def test_reviewer_sees_text_findings_with_their_fields_and_masks_them(page, live_server, rater, reviewer, api_for):
    make_category("shopping")
    step = _record_step(api_for(rater))

    log_in(page, live_server.url, reviewer.username, PASSWORD)
    page.goto(f"{live_server.url}/review/pii/")
    expect(page.get_by_test_id("review-image")).to_have_attribute("src", f"/assets/{step.screen.asset_id}/")
    findings = page.get_by_test_id("text-finding")
    expect(findings).to_have_count(3)
    expect(page.get_by_test_id("text-finding-field")).to_have_text(
        ["step 2 title", "step 2 clickable 1 text", "step 2 URL"]
    )
    expect(findings.nth(0)).to_contain_text(EMAIL)
    expect(findings.nth(1)).to_contain_text(PHONE)

    # One by its button, the rest with the key.
    findings.nth(1).get_by_test_id("mask-one").click()
    expect(findings.nth(1).get_by_test_id("text-finding-masked")).to_be_visible()
    expect(page.get_by_test_id("text-finding-masked")).to_have_count(1)
    page.keyboard.press("m")
    expect(page.get_by_test_id("text-finding-masked")).to_have_count(3)
    expect(page.get_by_test_id("mask-all")).to_have_count(0)

    step.refresh_from_db()
    assert step.title == "Orders of […]"
    assert step.url == "https://shop.example/account/orders?email=[%E2%80%A6]&sort=new"
    assert step.clickables[0]["text"] == "Support […]"
    masks = list(ReviewDecision.objects.filter(decision="masked").order_by("created_at"))
    assert [len(m.findings) for m in masks] == [1, 2] and {m.reviewer for m in masks} == {reviewer}
    # The picture itself is still the reviewer's to decide.
    page.keyboard.press("a")
    expect(page.get_by_role("status").first).to_contain_text("queue is empty")
    assert ReviewItem.objects.get(asset=step.screen.asset).decided_at is not None
