"""Staff dashboards. Every table can be downloaded as CSV (``?format=csv``)."""

import csv
from datetime import timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from accounts.models import Role, User
from accounts.permissions import role_required
from corpus.models import QAPair, ReasoningType
from hits import registry
from hits.models import Batch

from . import charts, columns, selectors, services

DASHBOARDS = "Dashboards are for admins; reviewers see the queues."


def _fold_without_beat():
    """Without a broker (the embedded default) no Celery beat folds the logged assignment
    changes into the tallies, so each page does it first. The numbers are exact either
    way; this keeps the log, and the pages' work of adding it in, small."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        services.fold_changes()


def _csv(name, rows, columns):
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    writer = csv.writer(response)
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row.get(column, "") for column in columns])
    return response


_chart = charts.as_json


def _listing(admin_list, **filters):
    """The admin's list of some rows, filtered; for the figures that count them."""
    return f"{reverse(f'admin:{admin_list}_changelist')}?{urlencode(filters)}"


def _page(name, *args):
    """The URL of another app's page, or None if it has none by that name (a missing link
    is better than a broken dashboard)."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


def _kind_names():
    return dict(registry.choices())


_ANY_ID = 2_147_483_647  # stands for a batch's id in a URL reversed once per page


def _per_batch(name):
    """``name``'s URL for any batch id (reversed once, not once per row), or None."""
    url = _page(name, _ANY_ID)
    return (lambda batch_id: url.replace(str(_ANY_ID), str(batch_id))) if url else (lambda batch_id: None)


def _batch_rows(rows):
    """Batch rows with their kind and state as people name them, and the lists behind
    their figures: the spot check, the tasks, the assignments in each state, the
    console's batch page."""
    kinds, states = _kind_names(), dict(Batch.State.choices)
    tasks, assignments = (reverse(f"admin:{name}_changelist") for name in ("hits_task", "hits_assignment"))
    spot_check, console = _per_batch("hits:spot_check"), _per_batch("console:batch")
    for row in rows:
        batch = row["id"]
        row["kind_name"] = kinds.get(row["kind"], row["kind"])
        row["state_name"] = states.get(row["state"], row["state"])
        row["spot_check_link"], row["console_link"] = spot_check(batch), console(batch)
        row["tasks_link"] = f"{tasks}?batch__id__exact={batch}"
        row["state_links"] = {
            state: f"{assignments}?batch__id__exact={batch}&state__exact={state}"
            for state in ("assigned", "submitted", "approved", "rejected", "returned", "expired")
        }
    return rows


def _queue_rows(rows, user):
    """Queue rows, each with the page that lists its items (the admin's lists for admins)."""
    links = {
        "validation": lambda: _listing("corpus_qapair", state__exact=QAPair.State.PENDING_VALIDATION),
        "references": lambda: _page("console:reference-answers"),
        "decisions": lambda: _listing("hits_assignment", state__exact="submitted"),
    }
    for row in rows:
        if row["key"].startswith("review:"):
            row["link"] = _page("moderation:queues")
        elif user.is_admin:
            row["link"] = links[row["key"]]()
    return rows


BATCH_COLUMNS = ["id", "name", "kind", "state", "tasks", "wanted", "assigned", "submitted", "approved", "rejected",
                 "returned", "expired", "percent_done", "last_24h", "hours_to_finish"]  # fmt: skip


@role_required(Role.ADMIN, DASHBOARDS)
def overview(request):
    _fold_without_beat()
    return render(
        request,
        "dashboards/overview.html",
        {
            "queues": _queue_rows(selectors.queues(), request.user),
            "batches": _batch_rows(selectors.batch_progress()[:10]),
        },
    )


@role_required(Role.ADMIN, DASHBOARDS)
def batches(request):
    _fold_without_beat()
    rows = selectors.batch_progress()
    if request.GET.get("format") == "csv":
        return _csv("batches", rows, BATCH_COLUMNS)
    chart = {**charts.time_series(selectors.submissions_by_hour(), empty="Submissions"), "y_title": "Submissions"}
    return render(
        request,
        "dashboards/batches.html",
        {"rows": _batch_rows(rows), "chart": _chart(chart), "bucket": chart["bucket"]},
    )


@role_required(Role.REVIEWER, DASHBOARDS)
def queues(request):
    _fold_without_beat()
    rows = selectors.queues()
    if request.GET.get("format") == "csv":
        return _csv("queues", rows, ["queue", "depth", "oldest", "age_hours"])
    return render(request, "dashboards/queues.html", {"rows": _queue_rows(rows, request.user)})


@role_required(Role.ADMIN, DASHBOARDS)
def throughput(request):
    _fold_without_beat()
    if request.GET.get("format") == "csv":
        hourly, daily = selectors.throughput()
        rows = [{"granularity": "hour", **row} for row in hourly] + [{"granularity": "day", **row} for row in daily]
        return _csv("throughput", rows, ["granularity", "period", "kind", "submitted"])
    counts = selectors.submissions_by_hour(by_kind=True)
    since = timezone.now() - timedelta(hours=48)
    recent = {(hour, kind): n for (hour, kind), n in counts.items() if hour >= since - timedelta(hours=1)}
    names = _kind_names()
    recent_chart = {**charts.time_series(recent, names=names), "y_title": "Submissions", "stacked": True}
    month_chart = {**charts.time_series(counts, names=names), "y_title": "Submissions", "stacked": True}
    return render(
        request,
        "dashboards/throughput.html",
        {
            "recent": _chart(recent_chart),
            "month": _chart(month_chart),
            "recent_bucket": recent_chart["bucket"],
            "month_bucket": month_chart["bucket"],
        },
    )


WORKER_COLUMNS = ["id", "username", "role", "done", "approval_rate", "median_seconds", "earned",
                  "active_hours", "hourly_pay", "last_submitted", "profile__blocked", "disqualified_from"]  # fmt: skip


@role_required(Role.ADMIN, DASHBOARDS)
def workers(request):
    _fold_without_beat()
    sort, query, flag = request.GET.get("sort", "done"), request.GET.get("q", ""), request.GET.get("flag", "")
    rows = selectors.workers(sort=sort, query=query, flag=flag)
    if request.GET.get("format") == "csv":
        contributed = [column.name for column in columns.worker_columns()]
        return _csv("workers", rows.iterator(), [*WORKER_COLUMNS[:5], *contributed, *WORKER_COLUMNS[5:]])
    page = Paginator(rows, 50).get_page(request.GET.get("page"))
    contributed = columns.worker_columns()
    page.object_list = [{**row, "contributed": [(c, row[c.name]) for c in contributed]} for row in page.object_list]
    return render(
        request,
        "dashboards/workers.html",
        {
            "page": page,
            "sort": sort,
            "q": query,
            "flag": flag,
            "sorts": selectors.worker_sorts(),
            "columns": contributed,
        },
    )


@role_required(Role.ADMIN, DASHBOARDS)
def worker(request, user_id):
    _fold_without_beat()
    person = get_object_or_404(User.objects.select_related("profile"), pk=user_id)
    submissions = selectors.worker_submissions(worker=person)
    if request.GET.get("format") == "csv":
        rows = submissions.values(
            "id", "batch__name", "state", "assigned_at", "submitted_at", "active_seconds", "pay", "bonus", "feedback"
        )
        return _csv(
            f"worker-{person.pk}",
            rows.iterator(),
            ["id", "batch__name", "state", "assigned_at", "submitted_at", "active_seconds", "pay", "bonus", "feedback"],
        )
    page = Paginator(submissions, 50).get_page(request.GET.get("page"))
    return render(request, "dashboards/worker.html", {"person": person, "page": page})


# The dataset page's breakdowns: heading, the names of the values, and the admin's filter
# for the QA pairs behind each count (None: the admin cannot list them by it).
BREAKDOWNS = {
    "family": ("Family", dict(QAPair.Family.choices), "family__exact"),
    "split_kind": ("Split", dict(QAPair.SplitKind.choices), "split_kind__exact"),
    "category": ("Website category", {}, "category__id__exact"),
    "state": ("State", dict(QAPair.State.choices), "state__exact"),
    "question_category": ("Question category", {}, "question_category__exact"),
    "reasoning_type": ("Reasoning type", dict(ReasoningType.choices), None),
}


def _breakdown(name, rows):
    """A breakdown's rows for people: the value's name, the count, the QA pairs behind it."""
    _heading, labels, lookup = BREAKDOWNS[name]
    shown = []
    for row in rows:
        value = next(iter(row.values()))
        link = None
        if name == "category":
            value, link = (
                row["category__name"],
                (
                    _listing("corpus_qapair", category__id__exact=row["category_id"])
                    if row["category_id"] is not None
                    else _listing("corpus_qapair", category__isnull="True")
                ),
            )
        elif lookup is not None:
            link = _listing("corpus_qapair", **{lookup: value or ""})
        shown.append({"name": labels.get(value, value) or "(none)", "n": row["n"], "link": link if row["n"] else None})
    return shown


@role_required(Role.ADMIN, DASHBOARDS)
def dataset(request):
    _fold_without_beat()
    by, per_trace, per_example = selectors.dataset()
    table = request.GET.get("table", "family")
    if request.GET.get("format") == "csv":
        if table == "screens_per_trace":
            return _csv("screens-per-trace", per_trace, ["screens", "traces"])
        if table == "screens_per_example":
            return _csv("screens-per-example", per_example, ["screens", "examples"])
        rows = by.get(table, by["family"])
        return _csv(f"qa-pairs-by-{table}", rows, [next(iter(rows[0]), table), "n"] if rows else [table, "n"])
    charts_data = {
        "trace": _chart(_histogram(per_trace, "traces", "Traces")),
        "example": _chart(_histogram(per_example, "examples", "Multi-screen QA pairs")),
    }
    breakdowns = [(name, BREAKDOWNS[name][0], _breakdown(name, rows)) for name, rows in by.items()]
    return render(
        request,
        "dashboards/dataset.html",
        {"breakdowns": breakdowns, "per_trace": per_trace, "per_example": per_example, "charts": charts_data},
    )


def _histogram(rows, counted, name):
    """Bars for 1, 2, 3 … screens up to the most, the missing ones as zero."""
    counts = {row["screens"]: row[counted] for row in rows}
    top = max(counts, default=0)
    bars = range(1, top + 1)
    return {
        "labels": [f"{n} screen{'s' if n != 1 else ''}" for n in bars],
        "datasets": [{"label": name, "data": [counts.get(n, 0) for n in bars]}],
        "x_title": "Screens",
        "y_title": name,
    }
