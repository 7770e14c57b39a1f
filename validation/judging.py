"""Validation of QA pairs: every new pair gets a task wanting two validators; a third
is asked for when the two disagree; the majority decides and the pair's state follows.

Validators never see each other's verdicts before answering (the task page shows only
the pair and its evidence), and never get their own pairs (``kinds.validation``
excludes them at hand-out).
"""

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from corpus import services as corpus
from corpus.models import QAPair
from hits import services as hits
from hits.models import Task

from . import quality
from .batches import batch_for
from .models import Judgement, PairValidation

VALIDATORS_WANTED = 2
TIE_BREAKER = 3

PROBLEMS = {
    "answer_correct": "the answer is not correct",
    "follows_guidelines": "the question does not follow the guidelines",
    "sources_needed": "not every cited source is needed, or two repeat each other",
}


def queue_for_validation(*, qa_pairs, **_signal):
    """Gives each pair still pending validation a validation task, once. Runs inside
    the transaction that wrote the pairs (the ``corpus.signals.pairs_written`` signal)."""
    from .kinds.validation import Validation

    pending = [p for p in qa_pairs if p.state == QAPair.State.PENDING_VALIDATION]
    queued = set(PairValidation.objects.filter(qa_pair__in=pending).values_list("qa_pair_id", flat=True))
    created = []
    for pair in pending:
        if pair.pk in queued:
            continue
        batch = batch_for(kind=Validation.name, family=pair.family)
        if batch is None:
            continue
        (task,) = hits.add_tasks(batch=batch, payloads=[{"qa_pair": pair.pk}], assignments_wanted=VALIDATORS_WANTED)
        created.append(PairValidation.objects.create(qa_pair=pair, task=task))
    return created


def queue_pending_pairs():
    """Queues pairs written before validation was set up (or by the demo)."""
    with transaction.atomic():
        return queue_for_validation(
            qa_pairs=QAPair.objects.filter(state=QAPair.State.PENDING_VALIDATION, validation__isnull=True).order_by(
                "id"
            )
        )


def record_judgement(*, assignment, answer):
    """Stores a validator's judgement and decides the pair when the votes allow.

    Called from the validation kind inside the submit transaction; the pair's
    validation row is locked so that judgements arriving together are counted one
    after the other.
    """
    validation = PairValidation.objects.select_for_update().select_related("qa_pair").get(task_id=assignment.task_id)
    accept = all(answer[key] for key in PROBLEMS)
    judgement = Judgement.objects.create(
        validation=validation,
        qa_pair=validation.qa_pair,
        assignment=assignment,
        validator_id=assignment.worker_id,
        answer_correct=answer["answer_correct"],
        follows_guidelines=answer["follows_guidelines"],
        sources_needed=answer["sources_needed"],
        corrected_answer=answer.get("corrected_answer", "").strip(),
        comment=answer.get("comment", "").strip(),
        accept=accept,
    )
    if validation.outcome:
        # A late judgement on a decided pair (e.g. the third of a task that wanted
        # three): it counts for the validator's agreement, not for the verdict.
        judgement.agrees_with_majority = accept == (validation.outcome == PairValidation.Outcome.ACCEPTED)
        judgement.save(update_fields=["agrees_with_majority"])
        quality.count_judgements([judgement])
        return judgement
    _decide_if_ready(validation)
    return judgement


def _decide_if_ready(validation):
    judgements = list(validation.judgements.all())
    accepts = sum(j.accept for j in judgements)
    rejects = len(judgements) - accepts
    validation.accept_votes, validation.reject_votes = accepts, rejects
    if len(judgements) < VALIDATORS_WANTED:
        validation.save(update_fields=["accept_votes", "reject_votes"])
        return
    if accepts == rejects:
        # Two validators disagree: one more decides.
        Task.objects.filter(pk=validation.task_id, assignments_wanted__lt=TIE_BREAKER).update(
            assignments_wanted=F("assignments_wanted") + 1
        )
        validation.save(update_fields=["accept_votes", "reject_votes"])
        return
    accepted = accepts > rejects
    _decide(validation, judgements, accepted=accepted)


def _decide(validation, judgements, *, accepted):
    """Records the majority's verdict on the pair, the judgements and the workers."""
    now = timezone.now()
    Outcome = PairValidation.Outcome
    validation.outcome, validation.decided_at = (Outcome.ACCEPTED if accepted else Outcome.REJECTED), now
    validation.save(update_fields=["outcome", "decided_at", "accept_votes", "reject_votes"])
    for judgement in judgements:
        judgement.agrees_with_majority = judgement.accept == accepted
    Judgement.objects.bulk_update(judgements, ["agrees_with_majority"])
    pair = QAPair.objects.select_for_update().get(pk=validation.qa_pair_id)
    if pair.state == QAPair.State.PENDING_VALIDATION:
        # A pair rejected meanwhile (e.g. its screen failed review) stays rejected.
        state = QAPair.State.ACCEPTED if accepted else QAPair.State.REJECTED
        corpus.decide_pair(qa_pair=pair, state=state, reason="" if accepted else rejection_reason(judgements))
    quality.count_decision(judgements=judgements, pair=pair, accepted=accepted)
    quality.recompute_agreement_later(batch_ids={validation_batch_id(validation), pair_batch_id(pair)})


def rejection_reason(judgements):
    """The problems the rejecting validators found, in words for the pair's author."""
    rejecting = [j for j in judgements if not j.accept]
    found = [
        text for key, text in PROBLEMS.items() if sum(not getattr(j, key) for j in rejecting) * 2 >= len(rejecting)
    ]
    reason = f"{len(rejecting)} of {len(judgements)} validators rejected it: " + "; ".join(found or PROBLEMS.values())
    comments = [j.comment for j in rejecting if j.comment]
    if comments:
        reason += ". Their notes: " + " / ".join(comments)
    corrections = [j.corrected_answer for j in rejecting if j.corrected_answer]
    if corrections:
        reason += ". Suggested answer: " + " / ".join(corrections)
    return reason + "."


def validation_batch_id(validation):
    return Task.objects.filter(pk=validation.task_id).values_list("batch_id", flat=True).first()


def pair_batch_id(pair):
    if pair.assignment_id is None:
        return None
    from hits.models import Assignment

    return Assignment.objects.filter(pk=pair.assignment_id).values_list("batch_id", flat=True).first()
