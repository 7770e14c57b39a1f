"""Authors see what became of their questions: state, the validators' reasons, a count of
new decisions in the menu until they look."""

import pytest

from corpus.models import QAPair
from hits import services as hits
from hits.models import Batch
from tests.factories import UserFactory

from .factories import written_pair

pytestmark = pytest.mark.django_db
NO = {"answer_correct": False, "follows_guidelines": True, "sources_needed": True,
      "comment": "The kettle costs $30 at shop B, not $34.50."}  # fmt: skip


def _reject(pair):
    batch = Batch.objects.get(kind="validation", state="open")
    for _ in range(2):
        validator = UserFactory(role="validator")
        assignment, _ = hits.request_next_task(worker=validator, batch_id=batch.pk)
        assert assignment.task.payload == {"qa_pair": pair.pk}
        hits.submit_assignment(assignment_id=assignment.pk, worker=validator, data=NO)


def test_an_author_reads_the_validators_reason_and_the_menu_counts_new_decisions(rater, client):
    pair = written_pair(author=rater)
    waiting = written_pair(author=rater, question="Which shop is cheapest?")
    client.force_login(rater)
    assert 'data-testid="decisions-to-read"' not in client.get("/").content.decode()
    _reject(pair)
    pair.refresh_from_db()
    assert pair.state == QAPair.State.REJECTED and pair.decided_at is not None
    home = client.get("/").content.decode()
    assert 'data-testid="decisions-to-read"' in home and ">1</span>" in home
    page = client.get("/training/questions/").content.decode()
    assert "Rejected" in page and "not $34.50" in page and "Pending validation" in page
    assert "1 decision since your last visit" in page
    assert 'data-testid="decisions-to-read"' not in client.get("/").content.decode()  # read now
    assert waiting.state == QAPair.State.PENDING_VALIDATION


def test_nobody_sees_anyone_elses_questions(rater, other_rater, client):
    written_pair(author=rater, question="Mine, not yours?")
    client.force_login(other_rater)
    page = client.get("/training/questions/").content.decode()
    assert "Mine, not yours?" not in page and "You have not written a question yet" in page
    client.logout()
    assert client.get("/training/questions/").status_code == 302
