"""A worker who may not take a batch sees why, takes the qualification test twice in a
real browser, and is then let in."""

import re

import pytest
from django.apps import apps
from playwright.sync_api import expect

from accounts import services as accounts
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD, capture_batch
from validation.default_tests import install
from validation.models import QualificationTest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _mark(page, test, *, right):
    """Marks the test's items in the page, the first ``right`` of them correctly."""
    for n, item in enumerate(test.items.order_by("position")):
        block = page.locator(f'[data-testid="test-item"][data-position="{item.position}"]')
        says_ok = item.follows_guidelines if n < right else not item.follows_guidelines
        flag = "ok" if says_ok else (item.broken_rule or next(iter(test.rules)))
        block.get_by_test_id("flag").select_option(flag)
        block.get_by_test_id("why").fill("" if says_ok else "The answer does not match what is shown.")


def test_ineligible_worker_sees_why_then_qualifies_on_the_second_attempt(page, live_server, rater):
    install(apps)  # the browser tests' flushes remove what the migration installed
    test = QualificationTest.objects.get(slug="screen-questions")
    batch = capture_batch(kind="single_screen_qa", name="Shop pages for qualified workers")
    batch.required_qualifications.add(test.qualification)
    _token, key = accounts.create_api_token(user=rater, name="browser test")

    log_in(page, live_server.url, rater.username, PASSWORD)
    row = page.get_by_test_id("available-work").locator("tr", has_text="Shop pages for qualified workers")
    expect(row.get_by_test_id("ineligible-reason")).to_have_text("You need the qualification: Screen questions.")
    expect(row.get_by_role("button", name="Start")).to_have_count(0)
    api = page.request.post(
        f"{live_server.url}/api/v1/assignments/", data={"batch": batch.pk}, headers={"Authorization": f"Token {key}"}
    )
    assert api.status == 403
    assert api.json()["error"]["message"] == "You need the qualification: Screen questions."

    row.get_by_role("link", name="Tutorials and qualification tests").click()
    page.get_by_role("link", name="Questions on web screens").click()
    expect(page.get_by_test_id("tutorial")).to_contain_text("Make it take a step of thinking")
    page.get_by_role("link", name="Go to the qualification test").click()
    expect(page.get_by_test_id("test-item")).to_have_count(15)

    page.get_by_role("button", name="Submit my answers").click()  # nothing marked
    expect(page.get_by_test_id("form-errors")).to_be_visible()
    expect(page.locator(".field-error").first).to_have_text("Item 1: Mark this item.")

    _mark(page, test, right=11)
    page.get_by_role("button", name="Submit my answers").click()
    expect(page.get_by_test_id("score")).to_have_text("73%")
    expect(page.get_by_test_id("outcome")).to_contain_text("you may take the test once more")

    page.get_by_role("link", name="Take the test again").click()
    _mark(page, test, right=13)
    page.get_by_role("button", name="Submit my answers").click()
    expect(page.get_by_test_id("score")).to_have_text("87%")
    expect(page.get_by_test_id("outcome")).to_contain_text("You passed")

    page.get_by_role("link", name="Back to my work").click()
    row = page.get_by_test_id("available-work").locator("tr", has_text="Shop pages for qualified workers")
    expect(row.get_by_role("button", name="Start")).to_be_visible()
    expect(page.get_by_test_id("qualifications")).to_contain_text(re.compile("Screen questions: You are qualified"))
    page.get_by_role("link", name="My quality record").click()
    history = page.get_by_test_id("qualification-history")
    expect(history).to_contain_text("Screen questions granted")
    expect(history).to_contain_text("attempt 1")
    expect(history).to_contain_text("Second attempt allowed")


def test_a_test_picture_is_drawn_for_a_signed_in_worker(page, live_server, rater):
    install(apps)
    item = QualificationTest.objects.get(slug="image-questions").items.get(position=1)
    log_in(page, live_server.url, rater.username, PASSWORD)
    response = page.request.get(f"{live_server.url}/training/figures/{item.pk}/0.png")
    assert response.ok and response.headers["content-type"] == "image/png"
    assert response.body().startswith(b"\x89PNG")
