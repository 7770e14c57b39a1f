"""A Prolific participant in a real browser: the study link, two tasks, and back to
Prolific with the code (Prolific's site is stood in for by intercepting its address)."""

import re

import pytest
from playwright.sync_api import expect

from hits.models import Assignment
from providers.models import ProviderSession, ProviderWorker
from tests.factories import open_batch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PID, STUDY, SESSION = "5f1e2d3c4b5a69788796a5b4", "60aa00bb11cc22dd33ee44ff", "61bb00cc11dd22ee33ff4400"
PROLIFIC = "https://app.prolific.com/submissions/complete"


def prolific_batch():
    provider = {
        "name": "prolific",
        "tasks": 2,
        "completion_code": "C1OK2DONE",
        "screened_out_code": "CSCREENED",
        "return_code": "CRETURNED",
    }
    return open_batch(tasks=3, name="Passages for Prolific", kind_settings={"provider": provider})


def study_link(base_url, batch, *, pid=PID, session=SESSION):
    return f"{base_url}/providers/prolific/{batch.pk}/?PROLIFIC_PID={pid}&STUDY_ID={STUDY}&SESSION_ID={session}"


@pytest.fixture
def prolific_site(page):
    """Prolific's completion page, answered locally; returns the addresses it was asked for."""
    landed = []

    def answer(route):
        landed.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<h1>Prolific: thanks for taking part</h1>")

    page.route("https://app.prolific.com/**", answer)
    return landed


def answer_task(page, words):
    expect(page.get_by_test_id("passage")).to_contain_text("Passage number")
    page.get_by_label("Your answer").fill(words)
    page.get_by_label("Certain").check()
    page.get_by_role("button", name="Submit", exact=True).click()


def test_participant_does_two_tasks_and_lands_on_prolific_with_the_completion_code(page, live_server, prolific_site):
    batch = prolific_batch()
    page.goto(study_link(live_server.url, batch))
    expect(page.get_by_test_id("signed-in-as")).to_contain_text("prolific-")
    answer_task(page, "zero")
    answer_task(page, "one")

    expect(page.get_by_test_id("prolific-code")).to_have_text("C1OK2DONE")
    page.wait_for_url(f"{PROLIFIC}?cc=C1OK2DONE")
    expect(page.get_by_role("heading")).to_have_text("Prolific: thanks for taking part")
    assert prolific_site == [f"{PROLIFIC}?cc=C1OK2DONE"]
    user = ProviderWorker.objects.get(external_id=PID).user
    answers = list(Assignment.objects.filter(worker=user).order_by("id").values_list("state", "answer"))
    assert answers == [
        ("submitted", {"answer": "zero", "confidence": "high"}),
        ("submitted", {"answer": "one", "confidence": "high"}),
    ]
    assert ProviderSession.objects.get().state == "completed"


def test_stopping_midway_lands_on_prolific_with_the_return_code(page, live_server, prolific_site):
    batch = prolific_batch()
    page.goto(study_link(live_server.url, batch))
    answer_task(page, "zero")
    expect(page.get_by_test_id("passage")).to_be_visible()
    page.get_by_role("button", name="Stop and return to Prolific").click()

    expect(page.get_by_test_id("prolific-code")).to_have_text("CRETURNED")
    page.wait_for_url(f"{PROLIFIC}?cc=CRETURNED")
    assert prolific_site == [f"{PROLIFIC}?cc=CRETURNED"]
    assert sorted(Assignment.objects.values_list("state", flat=True)) == ["returned", "submitted"]


def test_unknown_or_tampered_links_are_refused_clearly(page, live_server, prolific_site):
    batch = prolific_batch()
    response = page.goto(study_link(live_server.url, batch, pid="5f1e2d3c4b5a69788796a5b4' OR 1=1"))
    assert response.status == 400
    expect(page.get_by_test_id("provider-refusal")).to_contain_text("Missing or malformed: PROLIFIC_PID")

    response = page.goto(f"{live_server.url}/providers/prolific/{batch.pk + 1000}/?PROLIFIC_PID={PID}")
    assert response.status == 400  # the ids are checked first
    response = page.goto(study_link(live_server.url, batch).replace(f"/{batch.pk}/", f"/{batch.pk + 1000}/"))
    assert response.status == 404
    expect(page.get_by_test_id("provider-refusal")).to_contain_text("does not exist")
    assert not ProviderWorker.objects.exists()

    page.goto(study_link(live_server.url, batch))
    expect(page.get_by_test_id("passage")).to_be_visible()
    response = page.goto(study_link(live_server.url, batch, session="62cc00dd11ee22ff3300aa11"))
    assert response.status == 409
    expect(page.get_by_test_id("provider-refusal")).to_have_text(re.compile("already took part in this study"))
    assert ProviderSession.objects.count() == 1 and prolific_site == []
