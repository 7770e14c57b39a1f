"""Validators racing for work never get their own pairs, nor one pair twice."""

import pytest
from django.db import connection
from django.db.models import F

from hits import services as hits
from hits.errors import NoTaskAvailable
from hits.models import Assignment, Batch
from tests.concurrency import at_once
from validation.models import Judgement, PairValidation
from validation.tests.factories import validators, written_pair

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks (FOR UPDATE SKIP LOCKED) need PostgreSQL"),
]

YES = {"answer_correct": True, "follows_guidelines": True, "sources_needed": True}


def test_concurrent_validators_never_get_their_own_pairs():
    workers = validators(6)
    for worker in workers:
        for n in range(2):
            written_pair(author=worker, question=f"Question {n} by {worker.username}?")
    batch = Batch.objects.get(kind="validation")

    def work_through(worker):
        done = 0
        while True:
            try:
                assignment, _ = hits.request_next_task(worker=worker, batch_id=batch.pk)
            except NoTaskAvailable:
                return done
            hits.submit_assignment(assignment_id=assignment.pk, worker=worker, data=YES)
            done += 1

    done, errors = at_once(work_through, workers)
    assert errors == []
    assert sum(done) == Judgement.objects.count() > 0
    own = Assignment.objects.filter(batch=batch, task__pair_validation__qa_pair__author=F("worker"))
    assert Assignment.objects.filter(batch=batch).count() == sum(done) and not own.exists()
    for validation in PairValidation.objects.all():
        judgements = list(validation.judgements.all())
        assert len(judgements) <= 2
        assert validation.qa_pair.author_id not in {j.validator_id for j in judgements}
        if len(judgements) == 2:
            assert (validation.outcome, validation.accept_votes) == ("accepted", 2)
