"""The WebQA-style tasks in a real browser: image filter, six-image QA and text multi-hop,
each first refused with a clear message, then fixed and submitted; and a reviewer's
spot check whose feedback the worker reads."""

import re

import pytest
from playwright.sync_api import expect

from corpus.models import ImageTriple, QAPair
from hits import services
from hits.models import Assignment
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD
from tests.pools import image_group, pool_images, snippets, webqa_batch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _start(page, batch_name):
    row = page.get_by_test_id("available-work").locator("li, tr", has_text=batch_name).first
    row.get_by_role("button", name="Start").click()


def _errors(page):
    return page.get_by_test_id("form-errors")


def test_image_filter_task(page, live_server, rater, reviewer):
    images = pool_images(10)
    batch = webqa_batch(
        kind="image_filter",
        name="Lighthouse pictures",
        payloads=[{"topic": "lighthouses", "images": [i.pk for i in images]}],
        spot_check_percent=100,
    )
    log_in(page, live_server.url, rater.username, PASSWORD)
    _start(page, "Lighthouse pictures")
    expect(page.get_by_test_id("topic")).to_have_text("lighthouses")
    cards = page.get_by_test_id("pool-image")
    expect(cards).to_have_count(10)
    # The thumbnails really load (the pool images are served to the worker).
    expect(cards.first.locator("img")).to_have_js_property("complete", True)
    assert cards.first.locator("img").evaluate("img => img.naturalWidth") > 0

    cards.nth(0).locator("input").check()
    cards.nth(4).locator("input").check()
    expect(page.get_by_test_id("pick-count")).to_have_text("2 of 3 picked")
    page.get_by_label("What the three have in common").fill("white towers")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(_errors(page)).to_contain_text("Pick exactly 3 images; you picked 2.")
    assert not ImageTriple.objects.exists()

    # The page keeps what was picked; pick a third and submit.
    expect(cards.nth(4).locator("input")).to_be_checked()
    cards.nth(7).locator("input").check()
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")
    triple = ImageTriple.objects.get()
    assert triple.label == "white towers"
    assert sorted(triple.images.values_list("pk", flat=True)) == sorted([images[0].pk, images[4].pk, images[7].pk])

    # A reviewer spot-checks it; the worker reads the feedback and bonus reason at home.
    page.context.clear_cookies()
    log_in(page, live_server.url, reviewer.username, PASSWORD)
    page.goto(f"{live_server.url}/batches/{batch.pk}/spot-check/")
    item = page.get_by_test_id("spot-item")
    expect(item).to_contain_text("What they share: white towers")
    expect(item.locator("img")).to_have_count(3)
    item.get_by_label("Feedback for the worker").fill("Good: three different towers.")
    item.get_by_role("button", name="Approve").click()
    expect(page.get_by_test_id("nothing-waiting")).to_be_visible()
    assert Assignment.objects.get(worker=rater).state == "approved"

    page.context.clear_cookies()
    log_in(page, live_server.url, rater.username, PASSWORD)
    expect(page.get_by_test_id("history")).to_contain_text("Good: three different towers.")


def test_a_disqualified_worker_sees_why(page, live_server, rater, reviewer):
    images = pool_images(10)
    webqa_batch(
        kind="image_filter", name="More lighthouses", payloads=[{"topic": "x", "images": [i.pk for i in images]}]
    )
    services.disqualify(
        worker_id=rater.pk, kind="image_filter", reason="Too many near-duplicate picks.", actor=reviewer
    )
    log_in(page, live_server.url, rater.username, PASSWORD)
    expect(page.get_by_test_id("ineligible-reason").first).to_contain_text("Too many near-duplicate picks.")


def test_six_image_qa_task(page, live_server, rater):
    images = pool_images(6)
    group = image_group(images, label="lighthouses by the sea")
    webqa_batch(kind="six_image_qa", name="Six lighthouses", payloads=[{"group": group.pk}])
    log_in(page, live_server.url, rater.username, PASSWORD)
    _start(page, "Six lighthouses")
    expect(page.get_by_test_id("group-image")).to_have_count(6)
    expect(page.get_by_test_id("group-label")).to_have_text("lighthouses by the sea")

    blocks = page.get_by_test_id("question-block")
    texts = [
        ("Are the towers of lighthouses 0 and 1 the same height?", "No, lighthouse 0 is taller than lighthouse 1.", "no", [0, 1]),
        ("What colour is the lantern of lighthouse 2?", "The lantern of lighthouse 2 is black.", "black", [2, 3, 4]),
        ("How many bands does lighthouse 5 have?", "Lighthouse 5 has three bands.", "3", [5]),
    ]  # fmt: skip
    for n, (question, answer, keyword, ticked) in enumerate(texts):
        block = blocks.nth(n)
        block.get_by_label("Question").fill(question)
        block.get_by_label("Answer, as a full sentence").fill(answer)
        block.get_by_label("Keyword answer").fill(keyword)
        for index in ticked:
            block.locator("input[type=checkbox]").nth(index).check()
    page.get_by_role("button", name="Submit", exact=True).click()
    # The count is checked in the page before anything is sent: focus goes to the summary,
    # whose entry leads to the question's images, where the same words stand.
    errors = _errors(page)
    expect(errors).to_contain_text("Question 2: Tick the one or two images the answer needs; you ticked 3.")
    expect(errors).to_be_focused()
    errors.get_by_role("link").first.click()
    second = page.get_by_test_id("question-block").nth(1)
    expect(second.locator("input[type=checkbox]").first).to_be_focused()
    expect(second.get_by_test_id("field-error")).to_contain_text("Question 2: Tick the one or two images")
    assert not QAPair.objects.exists()

    second.locator("input[type=checkbox]").nth(4).uncheck()
    second.locator("input[type=checkbox]").nth(3).uncheck()
    # The server still decides: it refuses the unticked checklist and keeps the text.
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(_errors(page)).to_contain_text("Tick every point of the checklist")
    expect(_errors(page)).to_be_focused()
    assert not QAPair.objects.exists()
    second = page.get_by_test_id("question-block").nth(1)
    expect(second.get_by_label("Question")).to_have_value(texts[1][0])  # kept
    for box in page.get_by_test_id("checklist").locator("input").all():
        box.check()
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")
    made = list(QAPair.objects.order_by("id"))
    assert [p.keyword_answer for p in made] == ["no", "black", "3"]
    assert [p.evidence.count() for p in made] == [2, 1, 1]
    assert {p.image_group_id for p in made} == {group.pk}


def test_text_multihop_task(page, live_server, rater):
    pool = snippets(4, topic="bridges")
    webqa_batch(kind="text_multihop_qa", name="Bridge snippets", payloads=[{"snippets": [s.pk for s in pool]}])
    log_in(page, live_server.url, rater.username, PASSWORD)
    _start(page, "Bridge snippets")
    cards = page.get_by_test_id("snippet")
    expect(cards).to_have_count(4)
    cards.nth(1).locator("input").check()
    page.get_by_label("Question", exact=True).fill("Which bridge fact comes first, number 1 or number 2?")
    page.get_by_label("Answer, as a full sentence").fill("Fact number 1 comes before fact number 2.")
    page.get_by_label("Keyword answer").fill("number 1")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(_errors(page)).to_contain_text(re.compile(r"Tick at least 2 snippets.*You ticked 1\."))
    assert not QAPair.objects.exists()

    page.get_by_test_id("snippet").nth(2).locator("input").check()
    page.get_by_text("Add a fact you looked up").click()
    page.get_by_label("The fact").fill("The second bridge was repainted in 2001.")
    page.get_by_label("Address of the page it is on").fill("https://example.org/repainting")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")
    pair = QAPair.objects.get()
    assert list(pair.evidence.values_list("snippet_id", flat=True)) == [pool[1].pk, pool[2].pk, None]
    assert pair.evidence.last().url == "https://example.org/repainting"
