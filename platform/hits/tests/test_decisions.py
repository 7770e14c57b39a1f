from decimal import Decimal

import pytest

from hits import selectors, services
from hits.errors import AssignmentClosed, InvalidDecision, NotAllowed, NotEligible
from hits.models import Assignment, Task, WorkEvent
from tests.factories import GOOD_ANSWER, open_batch

pytestmark = pytest.mark.django_db


def _submitted(worker, batch):
    assignment, _ = services.request_next_task(worker=worker, batch_id=batch.pk)
    return services.submit_assignment(assignment_id=assignment.pk, worker=worker, data=GOOD_ANSWER, active_seconds=40)


def test_approval_pays_the_batch_reward_and_counts_for_the_worker(rater, reviewer):
    batch = open_batch(tasks=1, reward="0.35")
    assignment = _submitted(rater, batch)
    services.approve_assignment(assignment_id=assignment.pk, actor=reviewer, feedback="Clear and correct.")
    assignment.refresh_from_db()
    rater.profile.refresh_from_db()
    assert (assignment.state, assignment.pay, assignment.decided_by) == ("approved", Decimal("0.35"), reviewer)
    assert (rater.profile.approved_count, rater.profile.approval_rate) == (1, 1.0)
    assert selectors.earnings_for(worker=rater)["total"] == Decimal("0.35")
    assert WorkEvent.objects.filter(action="approved", assignment=assignment, actor=reviewer).exists()


def test_rejection_needs_feedback_and_offers_the_task_again(rater, other_rater, reviewer):
    batch = open_batch(tasks=1)
    assignment = _submitted(rater, batch)
    with pytest.raises(InvalidDecision, match="Say why"):
        services.reject_assignment(assignment_id=assignment.pk, actor=reviewer, feedback="  ")
    services.reject_assignment(assignment_id=assignment.pk, actor=reviewer, feedback="The answer ignores the passage.")
    assignment.refresh_from_db()
    rater.profile.refresh_from_db()
    assert assignment.state == "rejected" and assignment.pay == 0
    assert rater.profile.rejected_count == 1
    assert Task.objects.get(pk=assignment.task_id).slots_taken == 0
    again, _ = services.request_next_task(worker=other_rater, batch_id=batch.pk)
    assert again.task_id == assignment.task_id


def test_work_can_be_judged_only_once_and_only_by_reviewers(rater, other_rater, reviewer):
    batch = open_batch(tasks=1)
    assignment = _submitted(rater, batch)
    with pytest.raises(NotAllowed):
        services.approve_assignment(assignment_id=assignment.pk, actor=other_rater)
    services.approve_assignment(assignment_id=assignment.pk, actor=reviewer)
    with pytest.raises(AssignmentClosed):
        services.reject_assignment(assignment_id=assignment.pk, actor=reviewer, feedback="changed my mind")
    rater.profile.refresh_from_db()
    assert (rater.profile.approved_count, rater.profile.rejected_count) == (1, 0)


def test_bonus_needs_a_reason_and_adds_up(rater, reviewer):
    assignment = _submitted(rater, open_batch(tasks=1))
    with pytest.raises(InvalidDecision, match="more than zero"):
        services.grant_bonus(assignment_id=assignment.pk, actor=reviewer, amount="0", reason="x")
    with pytest.raises(InvalidDecision, match="Say why"):
        services.grant_bonus(assignment_id=assignment.pk, actor=reviewer, amount="0.50", reason="")
    services.grant_bonus(assignment_id=assignment.pk, actor=reviewer, amount="0.50", reason="Unusual question")
    services.grant_bonus(assignment_id=assignment.pk, actor=reviewer, amount="0.25", reason="Careful work")
    assignment.refresh_from_db()
    assert assignment.bonus == Decimal("0.75")
    assert assignment.bonus_reason == "Unusual question\nCareful work"


def test_blocking_returns_open_work_and_stops_new_work(rater, reviewer):
    batch = open_batch(tasks=2)
    assignment, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    services.block_worker(worker=rater, actor=reviewer, reason="Answers copied from other workers")
    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.RETURNED
    assert Task.objects.get(pk=assignment.task_id).slots_taken == 0
    with pytest.raises(NotEligible, match="copied"):
        services.request_next_task(worker=rater, batch_id=batch.pk)
    services.unblock_worker(worker=rater, actor=reviewer)
    rater.refresh_from_db()
    new, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    assert new.task_id != assignment.task_id


def test_spot_check_draws_about_the_batch_percentage(db):
    from tests.factories import UserFactory

    batch = open_batch(tasks=60, spot_check_percent=25)
    for worker in UserFactory.create_batch(60):
        _submitted(worker, batch)
    drawn = selectors.spot_check_sample(batch=batch).count()
    assert 5 <= drawn <= 25, drawn
    # The draw is a property of the assignment, not of when it is looked at.
    assert selectors.spot_check_sample(batch=batch).count() == drawn
