"""The tallies behind the dashboards: whatever changes the assignments, and whether or not
the changes are folded in yet, every number equals a direct count of the assignments."""

import statistics
import threading
from collections import Counter, defaultdict
from datetime import UTC, timedelta
from decimal import Decimal
from unittest import mock

import pytest
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from dashboards import selectors, services, triggers
from dashboards.models import AssignmentChange, WorkerTally, WorkerTotal
from hits import services as hits
from hits.models import Assignment, Batch, Task
from tests.factories import GOOD_ANSWER, UserFactory, open_batch

pytestmark = pytest.mark.django_db

DONE = ("submitted", "approved", "rejected")
# A fixed "now" a few minutes past the hour, so that every window starts inside an hour.
NOW = timezone.now().astimezone(UTC).replace(minute=7, second=30, microsecond=250000) - timedelta(hours=1)


def _expected():
    """What the dashboards should say, counted in Python from every assignment."""
    rows = list(Assignment.objects.values_list("batch_id", "batch__kind", "worker_id", "state", "submitted_at",
                                               "active_seconds", "pay", "bonus"))  # fmt: skip
    submitted = [(batch, kind, at) for batch, kind, _w, _s, at, *_ in rows if at is not None]
    day, hour = (
        (lambda at: at.replace(hour=0, minute=0, second=0, microsecond=0)),
        (lambda at: at.replace(minute=0, second=0, microsecond=0)),
    )
    since_day, since_month, since_two_days = (
        NOW - timedelta(hours=24),
        NOW - timedelta(days=30),
        NOW - timedelta(hours=48),
    )
    workers = defaultdict(lambda: {"done": 0, "times": [], "earned": Decimal(0), "active": 0, "last": None})
    for _batch, _kind, worker, state, at, seconds, pay, bonus in rows:
        mine = workers[worker]
        mine["earned"] += pay + bonus
        if at is not None:
            mine["last"] = max(mine["last"] or at, at)
        if state in DONE:
            mine["done"] += 1
            if seconds is not None:
                mine["times"].append(seconds)
                mine["active"] += seconds
    average = statistics.median if connection.vendor == "postgresql" else statistics.mean
    return {
        "states": Counter((batch, state) for batch, _k, _w, state, *_ in rows),
        "last_24h": Counter(batch for batch, _k, at in submitted if at >= since_day),
        "by_day": Counter(day(at) for _b, _k, at in submitted if at >= since_month),
        "hourly": Counter((hour(at), kind) for _b, kind, at in submitted if at >= since_two_days),
        "daily": Counter((day(at), kind) for _b, kind, at in submitted if at >= since_month),
        "waiting": sorted(at for _b, _k, _w, state, at, *_ in rows if state == "submitted"),
        "workers": {
            worker: {
                "done": mine["done"],
                "median_seconds": average(mine["times"]) if mine["times"] else None,
                "earned": float(mine["earned"]),
                "active_hours": mine["active"] / 3600,
                "last_submitted": mine["last"],
            }
            for worker, mine in workers.items()
            if mine["done"]
        },
    }


def _shown():
    """What the dashboards say, in the shape of ``_expected``."""
    with mock.patch.object(timezone, "now", return_value=NOW):
        batches = selectors.batch_progress()
        hourly, daily = selectors.throughput()
        by_day = selectors.completion_by_day()
        queue = {row["queue"]: row for row in selectors.queues()}["Submissions waiting for a decision"]
        workers = list(selectors.workers())
    return {
        "states": Counter(
            {(b["id"], state): b[state] for b in batches for state in Assignment.State.values if b[state]}
        ),
        "last_24h": Counter({b["id"]: b["last_24h"] for b in batches if b["last_24h"]}),
        "by_day": Counter({row["day"]: row["submitted"] for row in by_day}),
        "hourly": Counter({(row["period"], row["kind"]): row["submitted"] for row in hourly}),
        "daily": Counter({(row["period"], row["kind"]): row["submitted"] for row in daily}),
        "waiting": (queue["depth"], queue["oldest"]),
        "workers": {
            w["id"]: {key: w[key] for key in ("done", "median_seconds", "earned", "active_hours", "last_submitted")}
            for w in workers
        },
    }


def assert_dashboards_match_the_assignments():
    expected, shown = _expected(), _shown()
    waiting = expected.pop("waiting")
    assert shown.pop("waiting") == (len(waiting), waiting[0] if waiting else None)
    assert _rounded(shown.pop("workers")) == _rounded(expected.pop("workers"))
    assert shown == expected


def _rounded(workers):
    """Sums of money and time, to the precision they are shown with and beyond."""
    return {
        worker: {key: round(value, 6) if isinstance(value, float) else value for key, value in numbers.items()}
        for worker, numbers in workers.items()
    }


def _workload():
    """Two kinds of batch, six workers, assignments in every state at times chosen around
    the windows' edges: just inside and just outside the last 24 and 48 hours and 30 days."""
    batches = [open_batch(tasks=12, wanted=6, kind="demo_question", reward="0.20") for _ in range(2)]
    batches.append(open_batch(tasks=12, wanted=6, reward="0.35"))
    Batch.objects.filter(pk=batches[2].pk).update(kind="single_screen_qa")  # a second kind, as far as counting goes
    batches[2].refresh_from_db()
    people = UserFactory.create_batch(6)
    edges = [timedelta(hours=24), timedelta(hours=48), timedelta(days=30)]
    moments = [NOW - edge + nudge for edge in edges for nudge in (timedelta(seconds=-1), timedelta(seconds=1))]
    moments += [NOW - timedelta(minutes=m) for m in (0, 5, 50, 61, 300, 1440 + 7, 4000, 50000)]
    states = ["submitted", "approved", "rejected", "returned", "expired", "approved", "submitted"]
    rows = []
    for n, (batch, task) in enumerate((b, t) for b in batches for t in Task.objects.filter(batch=b)):
        for k, worker in enumerate(people[: 1 + n % len(people)]):
            state = states[(n + k) % len(states)]
            done = state in DONE
            rows.append(
                Assignment(
                    task=task, batch=batch, worker=worker, state=state, expires_at=NOW,
                    submitted_at=moments[(n * 7 + k) % len(moments)] if done else None,
                    active_seconds=20 + (n * 13 + k * 7) % 90 if state != "expired" else None,
                    pay=batch.reward if state == "approved" else 0,
                    bonus=Decimal("0.05") if state == "approved" and k == 1 else 0,
                    bonus_reason="Careful." if state == "approved" and k == 1 else "",
                    feedback="Wrong." if state == "rejected" else "",
                )
            )  # fmt: skip
    Assignment.objects.bulk_create(rows)
    held = Counter(a.task_id for a in rows if a.state in Assignment.SLOT_STATES)
    for task_id, slots in held.items():
        Task.objects.filter(pk=task_id).update(slots_taken=slots)
    return batches, people


def test_numbers_match_the_assignments_through_every_kind_of_change_folded_or_not(admin_user):
    batches, people = _workload()
    assert_dashboards_match_the_assignments()  # all logged, nothing folded
    assert services.fold_changes() > 0
    assert AssignmentChange.objects.count() == 0
    assert_dashboards_match_the_assignments()

    # The work engine's own steps: hand-out, submission, approval, rejection, bonus, return.
    fresh = UserFactory()
    assignment, _ = hits.request_next_task(worker=fresh, batch_id=batches[0].pk)
    hits.submit_assignment(assignment_id=assignment.pk, worker=fresh, data=GOOD_ANSWER, active_seconds=33)
    assert_dashboards_match_the_assignments()
    hits.approve_assignment(assignment_id=assignment.pk, actor=admin_user)
    hits.grant_bonus(assignment_id=assignment.pk, actor=admin_user, amount="0.50", reason="Quick and right.")
    waiting = Assignment.objects.filter(state="submitted").order_by("submitted_at")
    hits.reject_assignment(assignment_id=waiting[0].pk, actor=admin_user, feedback="Not on the page.")
    second, _ = hits.request_next_task(worker=fresh, batch_id=batches[1].pk)
    hits.return_assignment(assignment_id=second.pk, worker=fresh)
    assert_dashboards_match_the_assignments()
    services.fold_changes()
    assert_dashboards_match_the_assignments()

    # Bulk changes that no service makes one by one: they are logged all the same.
    Assignment.objects.filter(worker=people[0], state__in=DONE).update(active_seconds=500)
    Assignment.objects.filter(worker=people[1], state="submitted").update(submitted_at=NOW - timedelta(minutes=90))
    one_per_task = dict(Assignment.objects.filter(batch=batches[2], state="approved").values_list("task", "pk"))
    Assignment.objects.filter(pk__in=one_per_task.values()).update(worker=UserFactory())  # a worker new to the tallies
    assert_dashboards_match_the_assignments()
    services.fold_changes()
    assert_dashboards_match_the_assignments()

    # Deletions cascade from a batch and from a worker.
    Batch.objects.filter(pk=batches[1].pk).delete()
    assert_dashboards_match_the_assignments()
    people[3].delete()
    services.fold_changes()
    assert_dashboards_match_the_assignments()
    assert services.fold_changes() == 0  # nothing left: a second fold changes nothing
    assert_dashboards_match_the_assignments()


def test_a_draft_changes_nothing_counted_and_logs_nothing():
    batch = open_batch(tasks=1)
    worker = UserFactory()
    assignment, _ = hits.request_next_task(worker=worker, batch_id=batch.pk)
    services.fold_changes()
    hits.save_draft(assignment_id=assignment.pk, worker=worker, draft={"answer": "sev"})
    assert AssignmentChange.objects.count() == 0


def test_a_worker_with_unfolded_changes_gets_the_median_of_their_work_as_it_is_now():
    _workload()
    services.fold_changes()
    worker = Assignment.objects.filter(state="submitted").values_list("worker", flat=True).first()
    Assignment.objects.filter(worker=worker, state__in=DONE).update(active_seconds=7)
    assert WorkerTally.objects.get(worker_id=worker).median_seconds != 7  # the tally is behind…
    (shown,) = [w for w in selectors.workers() if w["id"] == worker]
    assert shown["median_seconds"] == 7  # …the page is not
    services.fold_changes()
    assert WorkerTally.objects.get(worker_id=worker).median_seconds == 7


def test_a_decision_leaves_the_median_and_latest_submission_to_the_tally(admin_user):
    _workload()
    services.fold_changes()
    waiting = Assignment.objects.filter(state="submitted").first()
    hits.approve_assignment(assignment_id=waiting.pk, actor=admin_user)
    total = WorkerTotal.objects.get(worker=waiting.worker_id)
    assert (total.times_changed, total.submissions_changed) == (0, 0)  # no look-up needed
    assert_dashboards_match_the_assignments()
    Assignment.objects.filter(pk=waiting.pk).update(active_seconds=F("active_seconds") + 1)
    total = WorkerTotal.objects.get(worker=waiting.worker_id)
    assert (total.times_changed, total.submissions_changed) == (2, 0)  # one time less, one more
    assert_dashboards_match_the_assignments()


def test_missing_triggers_are_put_back_and_the_tallies_rebuilt():
    _workload()
    services.fold_changes()
    triggers.uninstall()  # as SQLite does to a table's triggers when Django rebuilds the table
    Assignment.objects.filter(state="submitted").update(active_seconds=3)  # logged by nobody
    assert triggers.ensure_installed() is True  # what runs after every migrate
    assert_dashboards_match_the_assignments()
    services.fold_changes()
    assert_dashboards_match_the_assignments()
    assert triggers.ensure_installed() is False


def test_without_a_broker_a_page_folds_the_changes_in_first(client, admin_user, settings):
    _workload()
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the embedded default: no Celery beat
    client.force_login(admin_user)
    assert client.get("/dashboards/batches/").status_code == 200
    assert AssignmentChange.objects.count() == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="SQLite lets one writer in at a time")
def test_a_change_committed_while_a_fold_runs_is_left_for_the_next_fold(admin_user):
    batches, _people = _workload()
    services.fold_changes()
    late = Assignment.objects.filter(state="submitted").first()

    def approve_elsewhere():
        try:
            hits.approve_assignment(assignment_id=late.pk, actor=admin_user)
        finally:
            connection.close()

    class ApprovedMidFold(list):
        """The fold's additions, with an approval committed on another connection after
        the fold has claimed its changes and before it deletes them."""

        def __iter__(self):
            thread = threading.Thread(target=approve_elsewhere)
            thread.start()
            thread.join()
            return super().__iter__()

    # Something to fold, so that the fold gets as far as its additions.
    Assignment.objects.filter(batch=batches[0], state="returned").update(active_seconds=1)
    with mock.patch.object(services, "ADDITIONS", ApprovedMidFold(services.ADDITIONS)):
        services.fold_changes()
    assert AssignmentChange.objects.count() == 2  # the approval: its old values out, new ones in
    assert_dashboards_match_the_assignments()
    services.fold_changes()
    assert AssignmentChange.objects.count() == 0
    assert_dashboards_match_the_assignments()


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="SQLite lets one writer in at a time")
def test_a_fold_started_while_another_runs_leaves_the_changes_to_it():
    _workload()
    holding, done = threading.Event(), threading.Event()

    def another_fold():
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [services.FOLD_LOCK])
                holding.set()
                done.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=another_fold)
    thread.start()
    try:
        assert holding.wait(10)
        assert services.fold_changes() == 0
        assert AssignmentChange.objects.exists()
    finally:
        done.set()
        thread.join()
    assert services.fold_changes() > 0
    assert_dashboards_match_the_assignments()
