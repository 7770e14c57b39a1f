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
    """Marks the test's items page by page, the first ``right`` of them (by position)
    correctly, and submits on the last page."""
    items = {item.position: (n, item) for n, item in enumerate(test.items.order_by("position"))}
    seen = []
    while True:
        blocks = page.get_by_test_id("test-item")
        for index in range(blocks.count()):
            block = blocks.nth(index)
            n, item = items[int(block.get_attribute("data-position"))]
            says_ok = item.follows_guidelines if n < right else not item.follows_guidelines
            flag = "ok" if says_ok else (item.broken_rule or next(iter(test.rules)))
            block.get_by_test_id("flag").select_option(flag)
            block.get_by_test_id("why").fill("" if says_ok else "The answer does not match what is shown.")
            seen.append(item.position)
        if page.get_by_role("button", name="Next").count() == 0:
            break
        page.get_by_role("button", name="Next").click()
    assert sorted(seen) == list(range(1, 16))
    return seen


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
    expect(page.get_by_test_id("test-item")).to_have_count(3)
    expect(page.get_by_test_id("page-items")).to_have_text("1–3 of 15")
    expect(page.get_by_test_id("test-item").first.locator("legend")).to_have_text("Item 1 of 15")

    # The first page answered, then back from the second: the answers are still there.
    first = page.get_by_test_id("test-item").first
    first.get_by_test_id("flag").select_option("ok")
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_test_id("page-items")).to_have_text("4–6 of 15")
    expect(page.get_by_test_id("answered")).to_have_text("1 answered")
    page.get_by_role("button", name="Back").click()
    expect(page.get_by_test_id("test-item").first.get_by_test_id("flag")).to_have_value("ok")

    page.get_by_test_id("item-map").get_by_role("button", name="Item 15, not answered yet").click()  # jump to the end
    expect(page.get_by_test_id("page-items")).to_have_text("13–15 of 15")
    expect(page.get_by_test_id("item-map").get_by_role("button", name="Item 1, answered")).to_be_visible()
    page.get_by_role("button", name="Submit my answers").click()
    expect(page.get_by_test_id("form-errors")).to_contain_text("more on other pages")
    expect(page.get_by_test_id("page-items")).to_have_text("1–3 of 15")  # the first page missing an answer
    expect(page.locator(".field-error").first).to_have_text("Mark this item.")

    first_order = _mark(page, test, right=11)
    page.get_by_role("button", name="Submit my answers").click()
    expect(page.get_by_test_id("score")).to_have_text("73%")
    expect(page.get_by_test_id("outcome")).to_contain_text("you may take the test once more")
    expect(page.get_by_test_id("wrong-item")).to_have_count(4)
    expect(page.get_by_test_id("wrong-items")).to_contain_text("13 minutes longer, not 11")

    page.get_by_role("link", name="Take the test again").click()
    second_order = _mark(page, test, right=13)
    assert second_order != first_order  # a retry comes in another order
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
