"""Validation of QA pairs: two validators, a third on disagreement, the majority decides."""

from datetime import timedelta

import pytest
from django.utils import timezone

from corpus.models import QAPair
from hits import selectors
from hits import services as hits
from hits.errors import NoTaskAvailable
from hits.models import Assignment, Batch, Disqualification, Task
from validation.errors import OwnPair
from validation.models import Judgement, PairValidation, WorkerQuality
from validation.services import queue_pending_pairs
from validation.tests.factories import validators, written_pair

pytestmark = pytest.mark.django_db

YES = {"answer_correct": True, "follows_guidelines": True, "sources_needed": True}
NO = {"answer_correct": False, "follows_guidelines": True, "sources_needed": True, "comment": "It is $5.50."}


def judge(validator, pair, *, accept, **extra):
    """``validator`` takes the next validation task, which must be ``pair``'s, and judges it."""
    batch = Batch.objects.get(kind="validation", state="open")
    assignment, _ = hits.request_next_task(worker=validator, batch_id=batch.pk)
    assert assignment.task.payload == {"qa_pair": pair.pk}
    return hits.submit_assignment(
        assignment_id=assignment.pk, worker=validator, data={**(YES if accept else NO), **extra}
    )


def test_every_new_pair_gets_a_validation_task_wanting_two_in_an_opened_batch(rater):
    pair = written_pair(author=rater)
    validation = PairValidation.objects.get(qa_pair=pair)
    assert validation.task.assignments_wanted == 2 and validation.task.payload == {"qa_pair": pair.pk}
    batch = validation.task.batch
    assert (batch.kind, batch.state, batch.kind_settings) == ("validation", "open", {"family": "webquest"})
    other = written_pair(author=rater, question="Another?")
    assert other.validation.task.batch == batch  # one batch per family, reused


def test_an_admins_open_validation_batch_is_used_and_pairs_written_earlier_are_queued(rater, admin_user):
    batch = hits.open_batch(batch=hits.create_batch(name="Checkers", kind="validation", created_by=admin_user))
    pair = QAPair.objects.create(family="webqa", question="Q?", answer="A sentence.", author=rater)
    assert not PairValidation.objects.filter(qa_pair=pair).exists()
    assert [v.qa_pair for v in queue_pending_pairs()] == [pair]
    assert pair.validation.task.batch == batch
    assert queue_pending_pairs() == []


def test_two_agreeing_validators_accept_the_pair(rater):
    pair = written_pair(author=rater)
    first, second = validators(2)
    judge(first, pair, accept=True)
    pair.refresh_from_db()
    assert pair.state == "pending_validation"
    judge(second, pair, accept=True, corrected_answer="")
    pair.refresh_from_db()
    assert pair.state == "accepted" and pair.state_reason == ""
    validation = pair.validation
    validation.refresh_from_db()
    assert (validation.outcome, validation.accept_votes, validation.reject_votes) == ("accepted", 2, 0)
    assert validation.task.assignments_wanted == 2
    assert set(Judgement.objects.values_list("agrees_with_majority", flat=True)) == {True}
    assert WorkerQuality.objects.get(worker=rater).pairs_accepted == 1


def test_second_validator_disagreeing_sends_pair_to_third_who_decides(rater):
    pair = written_pair(author=rater)
    first, second, third = validators(3)
    judge(first, pair, accept=True)
    judge(second, pair, accept=False)
    pair.refresh_from_db()
    assert pair.state == "pending_validation"
    assert Task.objects.get(pk=pair.validation.task_id).assignments_wanted == 3

    judge(third, pair, accept=False, corrected_answer="$5.50")
    pair.refresh_from_db()
    assert pair.state == "rejected"
    assert pair.state_reason.startswith("2 of 3 validators rejected it: the answer is not correct")
    assert "It is $5.50." in pair.state_reason and "Suggested answer: $5.50" in pair.state_reason
    agreement = dict(Judgement.objects.values_list("validator__username", "agrees_with_majority"))
    assert agreement == {first.username: False, second.username: True, third.username: True}
    assert WorkerQuality.objects.get(worker=first).agreement_rate == 0
    assert WorkerQuality.objects.get(worker=third).agreement_rate == 1
    assert WorkerQuality.objects.get(worker=rater).pairs_rejected == 1


def test_saying_no_needs_a_note_for_the_author(rater):
    written_pair(author=rater)
    (validator,) = validators(1)
    batch = Batch.objects.get(kind="validation")
    assignment, _ = hits.request_next_task(worker=validator, batch_id=batch.pk)
    from rest_framework.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:
        hits.submit_assignment(assignment_id=assignment.pk, worker=validator, data={**NO, "comment": ""})
    assert "comment" in refused.value.detail
    assert not Judgement.objects.exists()


def test_a_worker_is_never_offered_their_own_pair(rater):
    (validator,) = validators(1)
    own = written_pair(author=validator)
    others = written_pair(author=rater, question="Someone else's?")
    batch = Batch.objects.get(kind="validation")
    assignment, _ = hits.request_next_task(worker=validator, batch_id=batch.pk)
    assert assignment.task.payload == {"qa_pair": others.pk}
    hits.submit_assignment(assignment_id=assignment.pk, worker=validator, data=YES)
    with pytest.raises(NoTaskAvailable):
        hits.request_next_task(worker=validator, batch_id=batch.pk)
    assert not own.judgements.exists()


def test_a_handed_out_own_pair_is_refused_at_submission(rater):
    # Defence in depth: should a validator ever hold their own pair's task, the
    # submission is refused and nothing is recorded.
    (validator,) = validators(1)
    own = written_pair(author=validator)
    task = own.validation.task
    assignment = Assignment.objects.create(
        task=task, batch=task.batch, worker=validator, expires_at=timezone.now() + timedelta(minutes=5)
    )
    with pytest.raises(OwnPair):
        hits.submit_assignment(assignment_id=assignment.pk, worker=validator, data=YES)
    assert not Judgement.objects.exists()


def test_raters_are_told_validation_needs_the_validator_role(rater, other_rater):
    written_pair(author=other_rater)
    batch = Batch.objects.get(kind="validation")
    verdict = selectors.eligibility(worker=rater, batch=batch)
    assert not verdict.eligible and "validator role" in verdict.reason


def test_validators_below_the_agreement_threshold_are_disqualified_with_the_reason(
    rater, settings, django_capture_on_commit_callbacks
):
    settings.QUALITY_MIN_JUDGEMENTS, settings.QUALITY_MIN_AGREEMENT = 2, 0.6
    contrarian, first, second = validators(3)
    pairs = [written_pair(author=rater, question=f"Question {n}?") for n in range(2)]
    with django_capture_on_commit_callbacks(execute=True):
        for pair in pairs:
            judge(first, pair, accept=True)
            judge(contrarian, pair, accept=False)
            judge(second, pair, accept=True)
    record = Disqualification.objects.get(worker=contrarian, kind="validation")
    assert record.automatic and "0 of 2 questions (0%)" in record.reason
    batch = Batch.objects.get(kind="validation")
    verdict = selectors.eligibility(worker=contrarian, batch=batch)
    assert not verdict.eligible and record.reason in verdict.reason
    assert not Disqualification.objects.filter(worker__in=[first, second]).exists()


def test_validators_add_other_ways_to_write_a_correct_answer(rater):
    pair = written_pair(author=rater)  # its answer is "$4.50"
    first, second = validators(2)
    judge(first, pair, accept=True, answer_variants="4.50 dollars\n $4.50 \nUSD 4.50\n4.50 dollars")
    judge(second, pair, accept=True, answer_variants="four dollars fifty")
    pair.refresh_from_db()
    assert pair.state == "accepted"
    assert pair.answer_variants == ["4.50 dollars", "USD 4.50", "four dollars fifty"]  # once each, never the answer


def test_other_ways_to_write_a_wrong_answer_are_refused_and_nothing_is_kept(rater):
    pair = written_pair(author=rater)
    (validator,) = validators(1)
    batch = Batch.objects.get(kind="validation")
    assignment, _ = hits.request_next_task(worker=validator, batch_id=batch.pk)
    from rest_framework.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:
        hits.submit_assignment(assignment_id=assignment.pk, worker=validator, data={**NO, "answer_variants": "5.50"})
    assert "only when the answer is correct" in str(refused.value.detail["answer_variants"])
    too_many = "\n".join(str(n) for n in range(6))
    with pytest.raises(ValidationError) as refused:
        hits.submit_assignment(assignment_id=assignment.pk, worker=validator, data={**YES, "answer_variants": too_many})
    assert "at most 5" in str(refused.value.detail["answer_variants"])
    pair.refresh_from_db()
    assert pair.answer_variants == [] and not Judgement.objects.exists()


def test_a_pair_rejected_while_its_check_waited_is_never_handed_out(rater):
    from tests.factories import UserFactory

    pair = written_pair(author=rater)
    QAPair.objects.filter(pk=pair.pk).update(state=QAPair.State.REJECTED, state_reason="Its screenshot failed review.")
    batch = Batch.objects.get(kind="validation", state="open")
    with pytest.raises(NoTaskAvailable):
        hits.request_next_task(worker=UserFactory(role="validator"), batch_id=batch.pk)
