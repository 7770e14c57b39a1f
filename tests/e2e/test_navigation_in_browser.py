"""A rater writes a navigation question on a recorded site, and an assessor checks its
path, in a real browser."""

import pytest
from playwright.sync_api import expect

from corpus.models import Episode, QAPair
from hits import services
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD, UserFactory
from tests.navigation import recorded_site

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_navigation_question_from_target_page_to_path_review(page, live_server, rater):
    site = recorded_site(rater)
    batch = services.create_batch(name="Shop navigation", kind="navigation_qa", reward="0.50")
    services.add_tasks(batch=batch, payloads=[{"site": site.pk}])
    services.open_batch(batch=batch)
    writer = UserFactory(role="rater")
    log_in(page, live_server.url, writer.username, PASSWORD)
    page.locator("tr", has_text="Shop navigation").get_by_role("button", name="Start").click()

    cards = page.get_by_test_id("site-page")
    expect(cards).to_have_count(9)  # /, /kettles, 2 kettles, /mugs, a mug, /about, /hidden, /hidden/deal
    expect(cards.first).to_contain_text("The homepage")
    expect(cards.first.locator("img")).to_have_js_property("complete", True)
    assert cards.first.locator("img").evaluate("img => img.naturalWidth") > 0
    expect(page.locator("[data-url='https://shop.example/about'] input")).to_be_disabled()  # one click away
    expect(page.locator("[data-url='https://shop.example/hidden/deal']")).to_contain_text("Not reachable")

    steel = page.locator("[data-url='https://shop.example/kettles/steel']")
    steel.get_by_role("radio").check()
    page.get_by_label("Question").fill("How much is the steel kettle?")
    page.get_by_label("Answer", exact=True).fill("$34.99")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_test_id("form-errors")).to_contain_text("Describe the target page")
    expect(page.get_by_label("Question")).to_have_value("How much is the steel kettle?")  # nothing lost
    expect(steel.get_by_role("radio")).to_be_checked()
    page.get_by_label("Description of the target page").fill("A 1.7 litre stainless steel kettle.")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")
    episode = Episode.objects.get()
    assert [url.removeprefix("https://shop.example") for url in episode.path] == ["/", "/kettles", "/kettles/steel"]

    assessor = UserFactory(role="validator")
    page.context.clear_cookies()
    log_in(page, live_server.url, assessor.username, PASSWORD)
    page.locator("tr", has_text="Check questions and answers: WebVLN").get_by_role("button", name="Start").click()
    expect(page.get_by_test_id("episode")).to_contain_text("A 1.7 litre stainless steel kettle.")
    expect(page.get_by_test_id("episode").locator("li")).to_have_count(3)
    # By keyboard: each key answers the next open question (target page, path, description).
    expect(page.get_by_test_id("key-legend")).to_be_visible()
    page.locator("body").click(position={"x": 5, "y": 5})
    for key in ("y", "n", "y"):
        page.keyboard.press(key)
    expect(page.get_by_role("group", name="Does the target page").get_by_label("Yes")).to_be_checked()
    expect(page.get_by_role("group", name="Is the path a reasonable way").get_by_label("No")).to_be_checked()
    expect(page.get_by_role("group", name="Does the description match").get_by_label("Yes")).to_be_checked()
    page.get_by_label("What is wrong").fill("A shorter route through the search box exists.")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")
    assert QAPair.objects.get().validation.judgements.get().follows_guidelines is False
