"""The workers table shows validation agreement and disqualifications; the queues page
shows the reference answers still being collected."""

import pytest

from corpus.models import ReferenceSet
from hits import services
from hits.models import Assignment, Batch, Task
from tests.factories import UserFactory, open_batch
from validation.models import WorkerQuality

pytestmark = pytest.mark.django_db


def _did_some_work(worker):
    batch = open_batch(tasks=1)
    assignment, _ = services.request_next_task(worker=worker, batch_id=batch.pk)
    services.submit_assignment(assignment_id=assignment.pk, worker=worker, data={"answer": "7", "confidence": "high"})


def test_agreement_and_disqualifications_in_the_workers_table(client, admin_user, reviewer):
    careful, sloppy = UserFactory.create_batch(2)
    for worker in (careful, sloppy):
        _did_some_work(worker)
    WorkerQuality.objects.create(worker=careful, judgements_decided=10, judgements_agreeing=9)
    WorkerQuality.objects.create(worker=sloppy, judgements_decided=10, judgements_agreeing=4)
    services.disqualify(worker_id=sloppy.pk, kind="demo_question", reason="Too many misses.", actor=reviewer)
    client.force_login(admin_user)

    rows = {r["username"]: r for r in client.get("/dashboards/workers/?sort=agreement").context["page"]}
    assert rows[careful.username]["agreement_rate"] == pytest.approx(0.9)
    assert (rows[sloppy.username]["agreement_rate"], rows[sloppy.username]["disqualified_from"]) == (
        pytest.approx(0.4),
        1,
    )
    page = client.get("/dashboards/workers/").content.decode()
    assert "90%" in page and "40%" in page and "disqualified (1 kind)" in page
    flagged = [r["username"] for r in client.get("/dashboards/workers/?flag=disqualified").context["page"]]
    assert flagged == [sloppy.username]
    header = client.get("/dashboards/workers/?format=csv").content.decode().splitlines()[0]
    assert "agreement_rate" in header and "disqualified_from" in header


def test_reference_answers_still_collecting_are_a_queue(client, admin_user, rater):
    from corpus.models import QAPair

    batch = Batch.objects.create(name="References", kind="references", state="open")
    for n in range(2):
        pair = QAPair.objects.create(family="webqa", question=f"Q{n}?", answer="A full answer here.", author=rater)
        task = Task.objects.create(batch=batch, payload={"qa_pair": pair.pk}, assignments_wanted=5)
        ReferenceSet.objects.create(qa_pair=pair, task=task)
    client.force_login(admin_user)
    rows = {row["queue"]: row for row in client.get("/dashboards/queues/").context["rows"]}
    assert rows["Reference answers (test items still collecting)"]["depth"] == 2
    assert Assignment.objects.count() == 0
