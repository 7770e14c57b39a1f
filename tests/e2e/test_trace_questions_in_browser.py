"""A rater writes questions on the trace they recorded, in a real browser."""

import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from playwright.sync_api import expect

from assets.tests.samples import png_bytes
from collection import services as capture
from corpus.models import QAPair
from hits import services
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD, make_category, site

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _recorded_trace(author, batch, steps=6):
    make_category("hotel")
    site(category="hotel", url="https://stay.test/")
    trace, _ = capture.start_trace(author=author, client_id=uuid.uuid4(), category="hotel", batch_id=batch.pk)
    for n in range(steps):
        capture.add_step(
            trace_id=trace.pk,
            author=author,
            screenshot=SimpleUploadedFile("s.png", png_bytes(size=(640, 400), seed=300 + n), content_type="image/png"),
            step={
                "client_id": uuid.uuid4(), "position": n, "url": f"https://stay.test/page/{n}", "title": f"Rooms {n}",
                "captured_at": timezone.now(), "viewport": {"width": 1280, "height": 800},
                "action": {"type": "click" if n else "navigate", "target": {"tag": "a", "text": f"Rooms {n}"} if n else None},
            },
        )  # fmt: skip
    return capture.finish_trace(trace_id=trace.pk, author=author, step_count=steps)


def test_recorder_writes_two_questions_on_their_trace(page, live_server, rater):
    batch = services.open_batch(batch=services.create_batch(name="Hotel traces", kind="trace_qa"))
    trace = _recorded_trace(rater, batch)
    log_in(page, live_server.url, rater.username, PASSWORD)
    page.locator("tr", has_text="Hotel traces").get_by_role("button", name="Start").click()

    expect(page.get_by_test_id("trace-step")).to_have_count(6)
    expect(page.get_by_test_id("trace-step").nth(1)).to_contain_text("Clicked “Rooms 1”")
    expect(page.get_by_test_id("trace-step").first.locator("img")).to_have_js_property("complete", True)
    assert page.get_by_test_id("trace-step").first.locator("img").evaluate("img => img.naturalWidth") > 0

    first = page.get_by_test_id("question-block").first
    for n in (1, 2):
        first.get_by_label(f"Step {n + 1}", exact=True).check()
    first.get_by_label("Question").fill("How much cheaper is the cheapest room than the dearest?")
    first.get_by_label("Answer").fill("$22")
    first.get_by_label("Arithmetic").check()
    page.get_by_role("button", name="Add another question on this trace").click()
    second = page.get_by_test_id("question-block").nth(1)
    for n in (3, 4, 5):
        second.get_by_label(f"Step {n + 1}", exact=True).check()
    second.get_by_label("Question").fill("How many of these hotels offer breakfast?")
    second.get_by_label("Answer").fill("2")
    second.get_by_label("Counting").check()

    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_test_id("form-errors")).to_contain_text(
        "Question 1: A trace question needs 3 to 5 of the steps; you ticked 2."
    )
    first = page.get_by_test_id("question-block").first
    expect(page.get_by_test_id("question-block")).to_have_count(2)  # nothing lost
    expect(first.get_by_label("Question")).to_have_value("How much cheaper is the cheapest room than the dearest?")
    first.get_by_label("Step 4", exact=True).check()
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")

    pairs = list(QAPair.objects.order_by("id"))
    assert [p.answer_type for p in pairs] == ["integer", "integer"] and {p.trace_id for p in pairs} == {trace.pk}
    assert [p.evidence.count() for p in pairs] == [3, 3]


def test_an_added_question_can_be_removed_before_submitting(page, live_server, rater):
    batch = services.open_batch(batch=services.create_batch(name="Hotel traces", kind="trace_qa"))
    _recorded_trace(rater, batch)
    log_in(page, live_server.url, rater.username, PASSWORD)
    page.locator("tr", has_text="Hotel traces").get_by_role("button", name="Start").click()

    blocks = page.get_by_test_id("question-block")
    expect(blocks.first.get_by_role("button", name="Remove this question")).to_be_hidden()  # one must stay
    page.get_by_role("button", name="Add another question on this trace").click()
    page.get_by_role("button", name="Add another question on this trace").click()
    expect(blocks).to_have_count(3)
    blocks.nth(1).get_by_label("Question").fill("This one goes")
    blocks.nth(1).get_by_role("button", name="Remove this question").click()
    expect(blocks).to_have_count(2)
    expect(blocks.nth(1).locator("legend")).to_have_text("Question 2")
    blocks.nth(1).get_by_role("button", name="Remove this question").click()
    expect(blocks).to_have_count(1)
    expect(blocks.first.get_by_role("button", name="Remove this question")).to_be_hidden()

    first = blocks.first
    for n in (2, 3, 4):
        first.get_by_label(f"Step {n}", exact=True).check()
    first.get_by_label("Question").fill("How many of these rooms cost under $100?")
    first.get_by_label("Answer").fill("3")
    first.get_by_label("Counting").check()
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")
    assert list(QAPair.objects.values_list("question", flat=True)) == ["How many of these rooms cost under $100?"]


def test_a_trace_batch_says_how_to_record_when_there_is_no_trace_yet(page, live_server, rater):
    services.open_batch(batch=services.create_batch(name="Hotel traces", kind="trace_qa"))
    log_in(page, live_server.url, rater.username, PASSWORD)
    row = page.locator("tr", has_text="Hotel traces")
    expect(row.get_by_test_id("how-to-record")).to_contain_text("Record a trace first.")
    expect(row.get_by_role("link", name="Install the Chrome extension")).to_be_visible()
    expect(row).not_to_contain_text("Nothing left for you here")
