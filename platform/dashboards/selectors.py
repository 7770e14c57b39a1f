"""The dashboards' numbers, each computed by the database in a fixed number of queries,
however many rows there are.

Counts of assignments come from the tallies (``models.py``): the ``…Total`` views add the
changes not folded in yet, so they are exact, and reading them costs the same with ten
assignments or a million.
"""

from collections import Counter
from datetime import UTC, timedelta

from django.db.models import (
    Aggregate,
    Avg,
    Case,
    Count,
    ExpressionWrapper,
    F,
    FloatField,
    Max,
    Min,
    OuterRef,
    Subquery,
    Sum,
    When,
)
from django.db.models.functions import Cast, Coalesce, NullIf, TruncDay, TruncHour
from django.utils import timezone

from accounts.models import User
from corpus.models import Category, QAPair, ReasoningType, ReferenceSet
from hits.models import Assignment, Batch, Disqualification
from moderation.models import ReviewItem

from . import columns
from .models import DONE_STATES, BatchStateTotal, BatchTaskTotal, QAPairTotal, ScreenKind, ScreenTotal, SubmissionTotal

State = Assignment.State


class Median(Aggregate):
    """The median on PostgreSQL; other databases have no ordered-set aggregate, and get
    the mean instead (the embedded SQLite default is for trying things out)."""

    function = "PERCENTILE_CONT"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def as_sqlite(self, compiler, connection, **extra):
        return Avg(*self.source_expressions, filter=self.filter).as_sql(compiler, connection)


def median_active_seconds(worker):
    """A subquery: the median active time of the done assignments of ``worker`` (an
    ``OuterRef`` to a user's id)."""
    done = Assignment.objects.filter(worker=worker, state__in=DONE_STATES).order_by()
    return Subquery(done.values("worker").annotate(median=Median("active_seconds")).values("median"))


def last_submitted(worker):
    """A subquery: the latest submission of ``worker`` (an ``OuterRef`` to a user's id)."""
    mine = Assignment.objects.filter(worker=worker).order_by()
    return Subquery(mine.values("worker").annotate(latest=Max("submitted_at")).values("latest"))


def _submissions(*, since, key=None, period=None):
    """Submissions at or after ``since`` counted by ``key`` (an expression over a batch)
    and ``period`` (a truncation of time), either or both: ``{(period, key): n}``, no zeros.

    Whole hours come from the submission tallies; the part of an hour at the start is
    counted from the assignments themselves (an index on ``submitted_at`` finds them)."""
    whole = since.astimezone(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    counts = Counter()
    for rows, moment, count in (
        (SubmissionTotal.objects.filter(hour__gte=whole), "hour", Sum("submitted")),
        (Assignment.objects.filter(submitted_at__gte=since, submitted_at__lt=whole), "submitted_at", Count("id")),
    ):
        groups = {"key": key} if key is not None else {}
        if period is not None:
            groups["period"] = period(moment)
        for row in rows.values(**groups).annotate(n=count).order_by():
            counts[row.get("period"), row.get("key")] += row["n"]
    return {group: n for group, n in counts.items() if n}


# --- Batches ----------------------------------------------------------------------------------


def batch_progress():
    """Per batch: tasks, slots wanted, assignments by state, the last day's submissions
    and, from those, an estimate of the hours to finish."""
    since = timezone.now() - timedelta(hours=24)
    batches = list(Batch.objects.order_by("-created_at").values("id", "name", "kind", "state", "created_at"))
    tasks = {row["batch"]: row for row in BatchTaskTotal.objects.values("batch", "tasks", "wanted")}
    states = {}
    for batch_id, state, n in BatchStateTotal.objects.values_list("batch", "state", "assignments"):
        states.setdefault(batch_id, {})[state] = n
    recent = {batch_id: n for (_period, batch_id), n in _submissions(since=since, key=F("batch")).items()}
    rows = []
    for batch in batches:
        counts = states.get(batch["id"], {})
        task = tasks.get(batch["id"], {"tasks": 0, "wanted": 0})
        done = counts.get(State.APPROVED, 0) + counts.get(State.SUBMITTED, 0)
        remaining = max(0, (task["wanted"] or 0) - done)
        per_hour = recent.get(batch["id"], 0) / 24
        rows.append(
            {
                **batch,
                "tasks": task["tasks"],
                "wanted": task["wanted"] or 0,
                "remaining": remaining,
                **{state: counts.get(state, 0) for state in State.values},
                "last_24h": recent.get(batch["id"], 0),
                "hours_to_finish": round(remaining / per_hour, 1)
                if per_hour and remaining
                else (0 if not remaining else None),
                "percent_done": round(100 * done / task["wanted"]) if task["wanted"] else 0,
            }
        )
    return rows


def submissions_by_hour(*, days=30, by_kind=False):
    """Submissions per hour (UTC) over the last ``days`` days, by task kind or all
    together: ``{(hour, kind or None): n}``, for charts that choose their own buckets.

    The tallies' hours are read as they are stored: no truncation, and no conversion to
    local time, row by row (charts bucket in local time once, later)."""
    since = timezone.now() - timedelta(days=days)
    whole = since.astimezone(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    key = {"key": F("batch__kind")} if by_kind else {}
    counts = Counter()
    tallied = SubmissionTotal.objects.filter(hour__gte=whole).values("hour", **key).annotate(n=Sum("submitted"))
    for row in tallied.order_by():
        counts[row["hour"], row.get("key")] += row["n"]
    start = Assignment.objects.filter(submitted_at__gte=since, submitted_at__lt=whole)
    for row in start.values(**key).annotate(n=Count("id")).order_by():
        counts[whole - timedelta(hours=1), row.get("key")] += row["n"]
    return {group: n for group, n in counts.items() if n}


def completion_by_day(days=30):
    """Submissions per day, for the completion chart."""
    counts = _submissions(since=timezone.now() - timedelta(days=days), period=TruncDay)
    return [{"day": day, "submitted": n} for (day, _key), n in sorted(counts.items())]


# --- Queues -------------------------------------------------------------------------------------


def queues():
    """Depth and age of every queue of work waiting on people."""
    now = timezone.now()
    rows = []
    review = {
        row["queue"]: row
        for row in ReviewItem.objects.filter(decided_at__isnull=True)
        .values("queue")
        .annotate(depth=Count("id"), oldest=Min("created_at"))
    }
    for queue, label in ReviewItem.Queue.choices:
        row = review.get(queue, {"depth": 0, "oldest": None})
        rows.append(
            {"key": f"review:{queue}", "queue": f"{label} review", "depth": row["depth"], "oldest": row["oldest"]}
        )
    pending = QAPair.objects.filter(state=QAPair.State.PENDING_VALIDATION).aggregate(
        depth=Count("id"), oldest=Min("created_at")
    )
    rows.append({"key": "validation", "queue": "Validation (QA pairs waiting)", **pending})
    collecting = (
        ReferenceSet.objects.annotate(answers_in=Count("answers"))
        .filter(answers_in__lt=F("task__assignments_wanted"))
        .aggregate(depth=Count("id"), oldest=Min("created_at"))
    )
    rows.append({"key": "references", "queue": "Reference answers (test items still collecting)", **collecting})
    waiting = Assignment.objects.filter(state=State.SUBMITTED, submitted_at__isnull=False)
    rows.append(
        {
            "key": "decisions",
            "queue": "Submissions waiting for a decision",
            **BatchStateTotal.objects.filter(state=State.SUBMITTED).aggregate(depth=Coalesce(Sum("assignments"), 0)),
            **waiting.aggregate(oldest=Min("submitted_at")),
        }
    )
    for row in rows:
        row["age_hours"] = round((now - row["oldest"]).total_seconds() / 3600, 1) if row["oldest"] else None
    return rows


# --- Throughput ----------------------------------------------------------------------------------


def throughput(*, hours=48, days=30):
    """Submissions per hour (recent) and per day, by task kind."""
    now = timezone.now()
    return (
        _submissions_per(TruncHour, since=now - timedelta(hours=hours)),
        _submissions_per(TruncDay, since=now - timedelta(days=days)),
    )


def _submissions_per(truncate, *, since):
    counts = _submissions(since=since, key=F("batch__kind"), period=truncate)
    return [{"period": period, "kind": kind, "submitted": n} for (period, kind), n in sorted(counts.items())]


# --- Workers ---------------------------------------------------------------------------------------

WORKER_SORTS = {
    "username": "username",
    "done": "-done",
    "approval": "approval_rate",
    "median": "-median_seconds",
    "hourly": "-hourly_pay",
}


def worker_sorts():
    """The table's sorts: its own, and those of the columns other apps contribute."""
    contributed = {c.sort: ("-" if c.descending else "") + c.name for c in columns.worker_columns()}
    return {**WORKER_SORTS, **contributed}


# How many kinds of work a worker is disqualified from.
_active_disqualifications = (
    Disqualification.objects.filter(worker=OuterRef("pk"), lifted_at__isnull=True)
    .order_by()
    .values("worker")
    .annotate(n=Count("id"))
    .values("n")
)


def workers(*, sort="done", query="", flag=""):
    """One row per worker who has done work: HITs done, approval rate, median active time,
    effective hourly pay, flags. Sorted, filtered and paginated in the database.

    Sums come from the worker tallies. The median and the latest submission are as of the
    last fold, unless the worker's changes since add or remove an active time or a
    submission time: then they are read from the worker's assignments (an index holds
    them)."""
    judged = F("profile__approved_count") + F("profile__rejected_count")
    rows = (
        User.objects.filter(dashboard_total__done__gt=0)
        .annotate(
            done=F("dashboard_total__done"),
            median_seconds=Case(
                When(dashboard_total__times_changed=0, then=F("dashboard_total__median_seconds")),
                default=median_active_seconds(OuterRef("pk")),
            ),
            earned=Cast("dashboard_total__earned", FloatField()),
            active_hours=Cast("dashboard_total__active_seconds", FloatField()) / 3600.0,
            last_submitted=Case(
                When(dashboard_total__submissions_changed=0, then=F("dashboard_total__last_submitted")),
                default=last_submitted(OuterRef("pk")),
            ),
            approval_rate=ExpressionWrapper(F("profile__approved_count") * 1.0 / NullIf(judged, 0), FloatField()),
            hourly_pay=ExpressionWrapper(F("earned") / NullIf(F("active_hours"), 0), FloatField()),
            disqualified_from=Coalesce(Subquery(_active_disqualifications), 0),
            **{column.name: column.expression() for column in columns.worker_columns()},
        )
        .values(
            "id",
            "username",
            "role",
            "done",
            "median_seconds",
            "earned",
            "active_hours",
            "approval_rate",
            "hourly_pay",
            "last_submitted",
            "disqualified_from",
            "profile__blocked",
            "profile__approved_count",
            "profile__rejected_count",
            *(column.name for column in columns.worker_columns()),
        )  # fmt: skip
    )
    if query:
        rows = rows.filter(username__icontains=query)
    if flag == "blocked":
        rows = rows.filter(profile__blocked=True)
    elif flag == "low-approval":
        rows = rows.filter(profile__rejected_count__gte=5, approval_rate__lt=0.8)
    elif flag == "disqualified":
        rows = rows.filter(disqualified_from__gt=0)
    order = worker_sorts().get(sort, "-done")
    field = order.lstrip("-")
    return rows.order_by(
        F(field).desc(nulls_last=True) if order.startswith("-") else F(field).asc(nulls_last=True), "id"
    )


def worker_submissions(*, worker):
    return (
        Assignment.objects.filter(worker=worker)
        .exclude(state=State.ASSIGNED)
        .select_related("batch")
        .order_by("-assigned_at")
    )


# --- Dataset ----------------------------------------------------------------------------------------


def dataset():
    """What the collected data looks like: QA pairs by family, split, category, state,
    reasoning type and question category; screens per trace and per multi-screen pair.

    All of it comes from the tallies (``models.py``): the QA pairs counted by each value
    of each breakdown (a few dozen rows; reasoning types by each distinct list), and the
    two histograms of screens. Three small queries, whatever the number of QA pairs."""
    breakdowns = {
        "family": "family",
        "split_kind": "split_kind",
        "category": "category__name",
        "state": "state",
        "question_category": "question_category",
    }
    names = dict(Category.objects.values_list("pk", "name"))
    tallied = {"category_id": "category", **{column: column for column in breakdowns if column != "category"}}
    counts = {name: Counter() for name in breakdowns}
    lists = Counter()
    for breakdown, value, n in QAPairTotal.objects.values_list("breakdown", "value", "pairs"):
        if breakdown == "reasoning_types":
            lists[value] += n
        elif breakdown == "category_id":
            counts["category"][names.get(int(value))] += n
        elif breakdown in tallied:
            counts[tallied[breakdown]][value] += n
    by = {
        name: [
            {breakdowns[name]: value, "n": n}
            for value, n in sorted(counts[name].items(), key=lambda item: (-item[1], item[0] is None, item[0] or ""))
            if n
        ]
        for name in breakdowns
    }
    ids = {name: pk for pk, name in names.items()}
    for row in by["category"]:
        row["category_id"] = ids.get(row["category__name"])  # for links; not a column of the CSV
    reasoning = Counter({value: 0 for value in ReasoningType.values})
    for listed, n in lists.items():
        # What the database's case-insensitive LIKE on the list's JSON text matches.
        listed = (listed or "").upper()
        for value in ReasoningType.values:
            if f'"{value}"'.upper() in listed:
                reasoning[value] += n
    by["reasoning_type"] = [{"reasoning_type": value, "n": n} for value, n in reasoning.items()]
    histograms = {kind: [] for kind in ScreenKind.values}
    for kind, screens, owners in ScreenTotal.objects.order_by("kind", "screens").values_list(
        "kind", "screens", "owners"
    ):
        histograms[kind].append((screens, owners))
    per_trace = [{"screens": n, "traces": count} for n, count in histograms[ScreenKind.TRACE]]
    per_example = [{"screens": n, "examples": count} for n, count in histograms[ScreenKind.EXAMPLE]]
    return by, per_trace, per_example
