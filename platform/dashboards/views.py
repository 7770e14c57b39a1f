"""Staff dashboards. Every table can be downloaded as CSV (``?format=csv``)."""

import csv
import json

from django.conf import settings
from django.core.paginator import Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.models import Role, User
from accounts.permissions import role_required

from . import columns, selectors, services

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


def _chart(data):
    return json.dumps(data, cls=DjangoJSONEncoder)


BATCH_COLUMNS = ["id", "name", "kind", "state", "tasks", "wanted", "assigned", "submitted", "approved", "rejected",
                 "returned", "expired", "percent_done", "last_24h", "hours_to_finish"]  # fmt: skip


@role_required(Role.ADMIN, DASHBOARDS)
def overview(request):
    _fold_without_beat()
    return render(
        request, "dashboards/overview.html", {"queues": selectors.queues(), "batches": selectors.batch_progress()[:10]}
    )


@role_required(Role.ADMIN, DASHBOARDS)
def batches(request):
    _fold_without_beat()
    rows = selectors.batch_progress()
    if request.GET.get("format") == "csv":
        return _csv("batches", rows, BATCH_COLUMNS)
    daily = selectors.completion_by_day()
    chart = {"labels": [row["day"].date() for row in daily], "values": [row["submitted"] for row in daily]}
    return render(request, "dashboards/batches.html", {"rows": rows, "chart": _chart(chart)})


@role_required(Role.REVIEWER, DASHBOARDS)
def queues(request):
    _fold_without_beat()
    rows = selectors.queues()
    if request.GET.get("format") == "csv":
        return _csv("queues", rows, ["queue", "depth", "oldest", "age_hours"])
    return render(request, "dashboards/queues.html", {"rows": rows})


@role_required(Role.ADMIN, DASHBOARDS)
def throughput(request):
    _fold_without_beat()
    hourly, daily = selectors.throughput()
    if request.GET.get("format") == "csv":
        rows = [{"granularity": "hour", **row} for row in hourly] + [{"granularity": "day", **row} for row in daily]
        return _csv("throughput", rows, ["granularity", "period", "kind", "submitted"])
    return render(request, "dashboards/throughput.html", {"hourly": _series(hourly), "daily": _series(daily)})


def _series(rows):
    """Chart.js data: one line per kind over the periods."""
    periods = sorted({row["period"] for row in rows})
    kinds = sorted({row["kind"] for row in rows})
    counts = {(row["period"], row["kind"]): row["submitted"] for row in rows}
    return _chart(
        {
            "labels": [period.isoformat() for period in periods],
            "datasets": [{"label": kind, "data": [counts.get((p, kind), 0) for p in periods]} for kind in kinds],
        }
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
    charts = {
        "trace": _chart({"labels": [r["screens"] for r in per_trace], "values": [r["traces"] for r in per_trace]}),
        "example": _chart(
            {"labels": [r["screens"] for r in per_example], "values": [r["examples"] for r in per_example]}
        ),
    }
    return render(
        request,
        "dashboards/dataset.html",
        {"by": by, "per_trace": per_trace, "per_example": per_example, "charts": charts},
    )
