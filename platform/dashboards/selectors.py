"""The dashboards' numbers, each computed by the database in a fixed number of queries,
however many rows there are."""

from datetime import timedelta

from django.db import connection
from django.db.models import Aggregate, Avg, Count, ExpressionWrapper, F, FloatField, Max, Min, Q, Sum
from django.db.models.functions import Coalesce, NullIf, TruncDay, TruncHour
from django.utils import timezone

from accounts.models import User
from collection.models import Evidence, QAPair, ReasoningType, TraceStep
from hits.models import Assignment, Batch, Task
from validation.models import ReviewItem

State = Assignment.State


class Median(Aggregate):
    """The median on PostgreSQL; other databases have no ordered-set aggregate, and get
    the mean instead (the embedded SQLite default is for trying things out)."""

    function = "PERCENTILE_CONT"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def as_sqlite(self, compiler, connection, **extra):
        return Avg(*self.source_expressions, filter=self.filter).as_sql(compiler, connection)


# --- Batches ----------------------------------------------------------------------------------


def batch_progress():
    """Per batch: tasks, slots wanted and taken, assignments by state, the last day's
    submissions and, from those, an estimate of the hours to finish."""
    since = timezone.now() - timedelta(hours=24)
    batches = list(Batch.objects.order_by("-created_at").values("id", "name", "kind", "state", "created_at"))
    tasks = {
        row["batch"]: row
        for row in Task.objects.values("batch").annotate(
            tasks=Count("id"), wanted=Sum("assignments_wanted"), taken=Sum("slots_taken")
        )
    }
    states = {}
    for row in Assignment.objects.values("batch", "state").annotate(n=Count("id")).order_by():
        states.setdefault(row["batch"], {})[row["state"]] = row["n"]
    recent = dict(
        Assignment.objects.filter(submitted_at__gte=since)
        .values("batch")
        .annotate(n=Count("id"))
        .values_list("batch", "n")
    )
    rows = []
    for batch in batches:
        counts = states.get(batch["id"], {})
        task = tasks.get(batch["id"], {"tasks": 0, "wanted": 0, "taken": 0})
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


def completion_by_day(days=30):
    """Submissions per day, for the completion chart."""
    since = timezone.now() - timedelta(days=days)
    return list(
        Assignment.objects.filter(submitted_at__gte=since)
        .annotate(day=TruncDay("submitted_at"))
        .values("day")
        .annotate(submitted=Count("id"))
        .order_by("day")
    )


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
        rows.append({"queue": f"{label} review", "depth": row["depth"], "oldest": row["oldest"]})
    pending = QAPair.objects.filter(state=QAPair.State.PENDING_VALIDATION).aggregate(
        depth=Count("id"), oldest=Min("created_at")
    )
    rows.append({"queue": "Validation (QA pairs waiting)", **pending})
    spot = Assignment.objects.filter(state=State.SUBMITTED).aggregate(depth=Count("id"), oldest=Min("submitted_at"))
    rows.append({"queue": "Submissions waiting for a decision", **spot})
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
    return list(
        Assignment.objects.filter(submitted_at__gte=since)
        .annotate(period=truncate("submitted_at"))
        .values("period", kind=F("batch__kind"))
        .annotate(submitted=Count("id"))
        .order_by("period", "kind")
    )


# --- Workers ---------------------------------------------------------------------------------------

WORKER_SORTS = {
    "username": "username",
    "done": "-done",
    "approval": "approval_rate",
    "median": "-median_seconds",
    "hourly": "-hourly_pay",
}


def workers(*, sort="done", query="", flag=""):
    """One row per worker who has done work: HITs done, approval rate, median active time,
    effective hourly pay, flags. Sorted and filtered in the database."""
    judged = F("profile__approved_count") + F("profile__rejected_count")
    done_states = [State.SUBMITTED, State.APPROVED, State.REJECTED]
    done = Q(assignments__state__in=done_states)
    rows = (
        User.objects.annotate(
            done=Count("assignments", filter=done),
            median_seconds=Median("assignments__active_seconds", filter=done),
            earned=Coalesce(Sum("assignments__pay"), 0, output_field=FloatField())
            + Coalesce(Sum("assignments__bonus"), 0, output_field=FloatField()),
            active_hours=Coalesce(Sum("assignments__active_seconds", filter=done), 0, output_field=FloatField())
            / 3600.0,
            last_submitted=Max("assignments__submitted_at"),
        )
        .filter(done__gt=0)
        .annotate(
            approval_rate=ExpressionWrapper(F("profile__approved_count") * 1.0 / NullIf(judged, 0), FloatField()),
            hourly_pay=ExpressionWrapper(F("earned") / NullIf(F("active_hours"), 0), FloatField()),
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
            "profile__blocked",
            "profile__approved_count",
            "profile__rejected_count",
        )  # fmt: skip
    )
    if query:
        rows = rows.filter(username__icontains=query)
    if flag == "blocked":
        rows = rows.filter(profile__blocked=True)
    elif flag == "low-approval":
        rows = rows.filter(profile__rejected_count__gte=5, approval_rate__lt=0.8)
    order = WORKER_SORTS.get(sort, "-done")
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
    reasoning type and question category; screens per trace and per multi-screen pair."""
    pairs = QAPair.objects.all()
    by = {
        name: list(pairs.values(key).annotate(n=Count("id")).order_by("-n"))
        for name, key in (
            ("family", "family"),
            ("split_kind", "split_kind"),
            ("category", "category__name"),
            ("state", "state"),
            ("question_category", "question_category"),
        )
    }
    reasoning = pairs.aggregate(
        **{value: Count("id", filter=Q(reasoning_types__icontains=f'"{value}"')) for value in ReasoningType.values}
    )
    by["reasoning_type"] = [{"reasoning_type": key, "n": n} for key, n in reasoning.items()]
    steps = TraceStep._meta.db_table
    evidence, qa = Evidence._meta.db_table, QAPair._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT n, COUNT(*) FROM (SELECT trace_id, COUNT(*) AS n FROM {steps} GROUP BY trace_id) AS t GROUP BY n ORDER BY n"
        )
        per_trace = [{"screens": n, "traces": count} for n, count in cursor.fetchall()]
        cursor.execute(
            f"SELECT n, COUNT(*) FROM (SELECT e.qa_pair_id, COUNT(*) AS n FROM {evidence} e JOIN {qa} q ON q.id = e.qa_pair_id"
            f" WHERE q.split_kind = %s GROUP BY e.qa_pair_id) AS t GROUP BY n ORDER BY n",
            [QAPair.SplitKind.MULTI_SCREEN],
        )
        per_example = [{"screens": n, "examples": count} for n, count in cursor.fetchall()]
    return by, per_trace, per_example
