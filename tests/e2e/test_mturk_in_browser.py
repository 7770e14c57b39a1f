"""A Mechanical Turk worker in a real browser: the HIT's preview and task framed on a
stand-in for MTurk's worker site (another origin), and the finished HIT posted to its
``/mturk/externalSubmit``."""

import pytest
from playwright.sync_api import expect

from hits.models import Assignment
from providers.models import ProviderSession
from providers.tests.fakes import FakeServer
from tests.factories import open_batch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ASSIGNMENT, HIT, WORKER = "3ASSIGNFAKE000000000001", "3HITFAKE000000000000", "A1WORKERFAKE01"


@pytest.fixture
def worker_site(live_server, settings):
    """MTurk's worker site: ``/hit`` frames the batch's page with MTurk's parameters, and
    ``/mturk/externalSubmit`` takes the finished HIT."""

    def answer(fake, recorded):
        if recorded.path.startswith("/hit?"):
            query = recorded.path.partition("?")[2]
            src = f"{live_server.url}/providers/mturk/{fake.batch_id}/?{query}&turkSubmitTo={fake.url}"
            body = f'<h1>MTurk</h1><iframe src="{src}" width="1000" height="900"></iframe>'
            return 200, "text/html", body.encode()
        return 200, "text/html", b"<h1>HIT submitted to MTurk</h1>"

    fake = FakeServer(answer)
    settings.MTURK_WORKER_ORIGINS = [fake.url]
    yield fake
    fake.close()


def test_preview_accept_and_submit_post_the_hit_to_turk_submit_to(page, worker_site):
    batch = open_batch(tasks=2, name="Passages on MTurk", kind_settings={"provider": {"name": "mturk"}})
    worker_site.batch_id = batch.pk

    page.goto(f"{worker_site.url}/hit?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId={HIT}")
    task = page.frame_locator("iframe")
    expect(task.get_by_test_id("preview-note")).to_contain_text("Accept the HIT")
    expect(task.get_by_test_id("passage")).to_contain_text("Passage number 0.")
    expect(task.get_by_label("Your answer")).to_be_disabled()
    assert not ProviderSession.objects.exists()

    page.goto(f"{worker_site.url}/hit?assignmentId={ASSIGNMENT}&hitId={HIT}&workerId={WORKER}")
    task.get_by_role("button", name="Submit").click()
    expect(task.locator(".field-error").first).to_contain_text("Write your answer.")
    task.get_by_label("Your answer").fill("seven")
    task.get_by_label("Certain").check()
    task.get_by_role("button", name="Submit").click()

    expect(task.get_by_role("heading")).to_have_text("HIT submitted to MTurk")
    (submitted,) = [r for r in worker_site.requests if r.method == "POST"]
    assignment = Assignment.objects.get()
    assert submitted.path == "/mturk/externalSubmit"
    assert submitted.form == {
        "assignmentId": ASSIGNMENT,
        "trailmark_assignment": str(assignment.pk),
        "answer": "seven",
        "confidence": "high",
    }
    assert assignment.state == "submitted" and assignment.answer == {"answer": "seven", "confidence": "high"}
    assert ProviderSession.objects.get().state == "completed"
