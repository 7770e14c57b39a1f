"""What a worker needs to plan their time: how long a batch's tasks take, what that pays
by the hour, and each task's number within its batch.

The estimate comes from the active time (``Assignment.active_seconds``) of the batch's
submitted assignments, by anyone: the median, so one tab left open all night does not
move it. Too few submissions give no estimate rather than a guess.
"""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from statistics import median

from django.db import connection
from django.db.models import Aggregate, Count, FloatField, OuterRef, Subquery

from .models import Assignment, Task

# Fewer submissions than this and the median says more about the workers than the work.
MIN_SUBMISSIONS = 3
DONE = (Assignment.State.SUBMITTED, Assignment.State.APPROVED, Assignment.State.REJECTED)


class Median(Aggregate):
    function = "PERCENTILE_CONT"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()


@dataclass(frozen=True)
class Estimate:
    """A batch's typical task: ``minutes`` of active work, paying ``hourly`` dollars an
    hour at the batch's reward; both None (``known`` False) with too few submissions."""

    submissions: int
    minutes: int | None = None
    hourly: Decimal | None = None

    @property
    def known(self):
        return self.minutes is not None


def estimates_for(batches):
    """An ``Estimate`` per batch id for ``batches`` (each with ``reward``), in one query
    whatever their number."""
    batches = list(batches)
    timed = Assignment.objects.filter(
        batch_id__in=[batch.pk for batch in batches], state__in=DONE, active_seconds__isnull=False
    )
    if connection.vendor == "postgresql":
        rows = timed.order_by().values("batch_id").annotate(n=Count("id"), typical=Median("active_seconds"))
        found = {row["batch_id"]: (row["n"], row["typical"]) for row in rows}
    else:  # SQLite has no median; the seconds of the few batches on a page fit in memory
        seconds = {}
        for batch_id, value in timed.values_list("batch_id", "active_seconds"):
            seconds.setdefault(batch_id, []).append(value)
        found = {batch_id: (len(values), median(values)) for batch_id, values in seconds.items()}
    return {batch.pk: _estimate(batch, *found.get(batch.pk, (0, None))) for batch in batches}


def _estimate(batch, submissions, typical_seconds):
    if submissions < MIN_SUBMISSIONS or not typical_seconds:
        return Estimate(submissions=submissions)
    minutes = max(1, round(typical_seconds / 60))
    hourly = (Decimal(batch.reward) * Decimal(3600) / Decimal(str(typical_seconds))).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_UP
    )
    return Estimate(submissions=submissions, minutes=minutes, hourly=hourly)


def task_numbers(task_ids):
    """Each task's number within its batch (1 for the batch's first task), by task id:
    what a worker sees instead of the global id. One query."""
    task_ids = list(task_ids)
    if not task_ids:
        return {}
    earlier = (
        Task.objects.filter(batch_id=OuterRef("batch_id"), pk__lte=OuterRef("pk"))
        .order_by()
        .values("batch_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    return dict(Task.objects.filter(pk__in=task_ids).annotate(number=Subquery(earlier)).values_list("pk", "number"))
