"""Worker quality: how often a validator agrees with the majority, how many of a
writer's QA pairs are accepted, and the automatic disqualification of those below the
thresholds in settings (``QUALITY_…``). The reason is shown to the worker wherever
the work is offered (``hits.selectors.eligibility``)."""

from collections import Counter
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import F

from hits import registry
from hits import services as hits
from hits.models import Assignment, Disqualification
from outbox import services as outbox

from .models import WorkerQuality


def count_decision(*, judgements, pair, accepted):
    """Adds a decided pair to its author's record and its judgements to the validators'
    agreement, then checks each of them (after commit).

    Rows are written in worker order: decisions committing at the same time then lock
    the same rows in the same order, and never wait on each other in a circle.
    """
    changes = {}
    for judgement in judgements:
        row = changes.setdefault(judgement.validator_id, Counter())
        row["judgements_decided"] += 1
        row["judgements_agreeing"] += int(bool(judgement.agrees_with_majority))
    changes.setdefault(pair.author_id, Counter())["pairs_accepted" if accepted else "pairs_rejected"] += 1
    _apply(changes)
    for judgement in judgements:
        _check_after_commit(_check_validator, judgement.validator_id)
    kind = None
    if pair.assignment_id:
        kind = Assignment.objects.filter(pk=pair.assignment_id).values_list("batch__kind", flat=True).first()
    if kind:
        _check_after_commit(_check_writer, pair.author_id, kind)


def count_judgements(judgements):
    """Adds judgements made after their pair was decided to the validators' agreement."""
    changes = {}
    for judgement in judgements:
        row = changes.setdefault(judgement.validator_id, Counter())
        row["judgements_decided"] += 1
        row["judgements_agreeing"] += int(bool(judgement.agrees_with_majority))
        _check_after_commit(_check_validator, judgement.validator_id)
    _apply(changes)


def _apply(changes):
    workers = sorted(changes)
    # ON CONFLICT DO NOTHING: a new worker's row may be made by two decisions at once.
    WorkerQuality.objects.bulk_create([WorkerQuality(worker_id=w) for w in workers], ignore_conflicts=True)
    for worker_id in workers:
        WorkerQuality.objects.filter(worker_id=worker_id).update(
            **{field: F(field) + amount for field, amount in changes[worker_id].items()}
        )


def _check_after_commit(check, *args):
    # After the submission that decided the pair has committed: disqualifying ends the
    # worker's open assignments, and one of them may be the one being submitted.
    transaction.on_commit(lambda: transaction.atomic(check)(*args))


def _active(worker_id, kind):
    return Disqualification.objects.filter(worker_id=worker_id, kind=kind, lifted_at__isnull=True).exists()


def _check_validator(worker_id):
    row = WorkerQuality.objects.select_for_update().get(worker_id=worker_id)
    rate = row.agreement_rate
    if row.judgements_decided < settings.QUALITY_MIN_JUDGEMENTS or rate >= settings.QUALITY_MIN_AGREEMENT:
        return None
    from .kinds.validation import Validation

    if _active(worker_id, Validation.name):
        return None
    reason = (
        f"Your verdicts agreed with the other validators' majority on {row.judgements_agreeing} of "
        f"{row.judgements_decided} questions ({rate:.0%}); at least {settings.QUALITY_MIN_AGREEMENT:.0%} is needed. "
        "Read the tutorial again and ask an admin to be reinstated."
    )
    return hits.disqualify(worker_id=worker_id, kind=Validation.name, reason=reason, automatic=True)


def _check_writer(worker_id, kind):
    row = WorkerQuality.objects.select_for_update().get(worker_id=worker_id)
    decided = row.pairs_accepted + row.pairs_rejected
    rate = row.acceptance_rate
    if decided < settings.QUALITY_MIN_PAIRS or rate >= settings.QUALITY_MIN_ACCEPTANCE or _active(worker_id, kind):
        return None
    reason = (
        f"Validators accepted {row.pairs_accepted} of your {decided} questions ({rate:.0%}); at least "
        f"{settings.QUALITY_MIN_ACCEPTANCE:.0%} is needed. The reasons are in your history; "
        "ask an admin to be reinstated."
    )
    return hits.disqualify(worker_id=worker_id, kind=kind, reason=reason, automatic=True)


def recompute_agreement_later(*, batch_ids):
    from .tasks import compute_batch_agreement

    for batch_id in filter(None, batch_ids):
        outbox.enqueue(compute_batch_agreement, batch_id)


@dataclass(frozen=True)
class Standing:
    """Everything a worker (or an admin looking at them) needs about their quality."""

    profile: object
    quality: WorkerQuality
    disqualifications: list
    qualification_history: list
    attempts: list


def standing_of(*, worker):
    from .models import QualificationAttempt, QualificationChange

    quality = WorkerQuality.objects.filter(worker=worker).first() or WorkerQuality(worker=worker)
    titles = {kind.name: kind.title for kind in registry.all_kinds()}
    disqualifications = [
        {"record": record, "title": titles.get(record.kind, record.kind)}
        for record in Disqualification.objects.filter(worker=worker)
    ]
    return Standing(
        profile=worker.profile,
        quality=quality,
        disqualifications=disqualifications,
        qualification_history=list(
            QualificationChange.objects.filter(worker=worker).select_related("qualification", "actor")
        ),
        attempts=list(QualificationAttempt.objects.filter(worker=worker).select_related("test")),
    )
