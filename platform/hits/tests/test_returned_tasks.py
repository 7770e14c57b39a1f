"""A task a rater gives back ("Return and stop", or skip) comes back to them later: after
every task they never had, and not within a few minutes of giving it back."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hits import services
from hits.errors import NoTaskAvailable, NotEligible
from hits.models import Assignment, Task
from tests.factories import GOOD_ANSWER, open_batch

pytestmark = pytest.mark.django_db


def _returned_minutes_ago(assignment, minutes):
    Assignment.objects.filter(pk=assignment.pk).update(ended_at=timezone.now() - timedelta(minutes=minutes))


def test_a_returned_task_comes_back_after_the_tasks_never_had(rater, settings):
    settings.RETURNED_TASK_PAUSE_MINUTES = 5
    batch = open_batch(tasks=2)
    first, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    services.save_draft(assignment_id=first.pk, worker=rater, draft={"answer": "sev"})
    services.return_assignment(assignment_id=first.pk, worker=rater)
    _returned_minutes_ago(first, 10)

    second, created = services.request_next_task(worker=rater, batch_id=batch.pk)
    assert created and second.task_id != first.task_id  # the fresh task first
    services.submit_assignment(assignment_id=second.pk, worker=rater, data=GOOD_ANSWER)

    again, created = services.request_next_task(worker=rater, batch_id=batch.pk)
    assert created and again.pk == first.pk and again.task_id == first.task_id
    assert again.state == Assignment.State.ASSIGNED and again.ended_at is None
    assert again.task.payload == first.task.payload and again.batch_id == batch.pk
    stored = Assignment.objects.get(pk=first.pk)
    assert stored.state == "assigned" and stored.draft == {"answer": "sev"}  # the work in progress is kept
    assert stored.expires_at > timezone.now() + timedelta(minutes=20)
    assert Task.objects.get(pk=first.task_id).slots_taken == 1
    services.submit_assignment(assignment_id=again.pk, worker=rater, data=GOOD_ANSWER)
    with pytest.raises(NoTaskAvailable):
        services.request_next_task(worker=rater, batch_id=batch.pk)


def test_a_task_just_returned_is_not_handed_straight_back(rater, settings):
    settings.RETURNED_TASK_PAUSE_MINUTES = 5
    batch = open_batch(tasks=1)
    assignment, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    services.return_assignment(assignment_id=assignment.pk, worker=rater)
    _returned_minutes_ago(assignment, 2)
    with pytest.raises(NoTaskAvailable, match="right now"):
        services.request_next_task(worker=rater, batch_id=batch.pk)
    _returned_minutes_ago(assignment, 6)
    again, created = services.request_next_task(worker=rater, batch_id=batch.pk)
    assert created and again.pk == assignment.pk


def test_a_returned_task_someone_else_took_meanwhile_is_not_offered_back(rater, other_rater):
    batch = open_batch(tasks=1)
    assignment, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    services.return_assignment(assignment_id=assignment.pk, worker=rater)
    _returned_minutes_ago(assignment, 60)
    taken, _ = services.request_next_task(worker=other_rater, batch_id=batch.pk)
    assert taken.task_id == assignment.task_id
    with pytest.raises(NoTaskAvailable):
        services.request_next_task(worker=rater, batch_id=batch.pk)


def test_the_returned_task_given_back_longest_ago_comes_first(rater):
    batch = open_batch(tasks=2)
    first, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    services.return_assignment(assignment_id=first.pk, worker=rater)
    second, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    services.return_assignment(assignment_id=second.pk, worker=rater)
    _returned_minutes_ago(first, 30)
    _returned_minutes_ago(second, 60)
    again, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    assert again.pk == second.pk


def test_a_blocked_worker_gets_no_returned_task_back(rater, reviewer):
    batch = open_batch(tasks=1)
    assignment, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    services.return_assignment(assignment_id=assignment.pk, worker=rater)
    _returned_minutes_ago(assignment, 60)
    services.block_worker(worker=rater, actor=reviewer, reason="Copied answers.")
    with pytest.raises(NotEligible, match="blocked"):
        services.request_next_task(worker=rater, batch_id=batch.pk)
    assert Assignment.objects.get(pk=assignment.pk).state == "returned"


def test_an_expired_task_is_not_offered_back(rater):
    batch = open_batch(tasks=1)
    assignment, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    assert services.expire_overdue_assignments() == 1
    with pytest.raises(NoTaskAvailable):
        services.request_next_task(worker=rater, batch_id=batch.pk)
    assert Assignment.objects.filter(worker=rater).count() == 1
