from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import QualificationGrant, Role
from hits import selectors, services
from hits.errors import BatchNotOpen, NoTaskAvailable, NotEligible
from hits.models import Assignment, Task
from tests.factories import GOOD_ANSWER, QualificationFactory, UserFactory, open_batch

pytestmark = pytest.mark.django_db


def test_worker_gets_each_task_once_and_then_runs_out(rater):
    batch = open_batch(tasks=3, wanted=2)
    seen = []
    for _ in range(3):
        assignment, created = services.request_next_task(worker=rater, batch_id=batch.pk)
        assert created
        seen.append(assignment.task_id)
        services.submit_assignment(assignment_id=assignment.pk, worker=rater, data=GOOD_ANSWER)
    assert len(set(seen)) == 3
    with pytest.raises(NoTaskAvailable, match="no task left for you"):
        services.request_next_task(worker=rater, batch_id=batch.pk)


def test_asking_again_returns_the_assignment_already_held(rater):
    batch = open_batch(tasks=3)
    first, created = services.request_next_task(worker=rater, batch_id=batch.pk)
    again, created_again = services.request_next_task(worker=rater, batch_id=batch.pk)
    assert created and not created_again
    assert again.pk == first.pk
    assert Assignment.objects.filter(worker=rater).count() == 1


def test_task_is_never_handed_out_beyond_its_wanted_assignments(db):
    batch = open_batch(tasks=1, wanted=2)
    workers = UserFactory.create_batch(3)
    services.request_next_task(worker=workers[0], batch_id=batch.pk)
    services.request_next_task(worker=workers[1], batch_id=batch.pk)
    with pytest.raises(NoTaskAvailable):
        services.request_next_task(worker=workers[2], batch_id=batch.pk)
    assert Task.objects.get(batch=batch).slots_taken == 2


def test_returned_task_goes_to_someone_else_but_not_straight_back_to_the_same_worker(rater, other_rater):
    batch = open_batch(tasks=1)
    assignment, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    services.return_assignment(assignment_id=assignment.pk, worker=rater)
    with pytest.raises(NoTaskAvailable):
        services.request_next_task(worker=rater, batch_id=batch.pk)
    handed, _ = services.request_next_task(worker=other_rater, batch_id=batch.pk)
    assert handed.task_id == assignment.task_id


def test_draft_and_closed_batches_hand_out_nothing(rater):
    batch = open_batch(tasks=2)
    services.close_batch(batch=batch)
    with pytest.raises(BatchNotOpen, match="closed"):
        services.request_next_task(worker=rater, batch_id=batch.pk)


def test_expired_assignment_is_closed_and_a_new_one_given(rater):
    batch = open_batch(tasks=2)
    old, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    Assignment.objects.filter(pk=old.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    new, created = services.request_next_task(worker=rater, batch_id=batch.pk)
    assert created and new.task_id != old.task_id
    old.refresh_from_db()
    assert old.state == Assignment.State.EXPIRED
    assert Task.objects.get(pk=old.task_id).slots_taken == 0


def test_sweep_expires_only_overdue_assignments_and_frees_their_tasks(rater, other_rater):
    batch = open_batch(tasks=2)
    overdue, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    current, _ = services.request_next_task(worker=other_rater, batch_id=batch.pk)
    Assignment.objects.filter(pk=overdue.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert services.expire_overdue_assignments() == 1
    assert services.expire_overdue_assignments() == 0  # idempotent
    states = dict(Assignment.objects.values_list("pk", "state"))
    assert states == {overdue.pk: "expired", current.pk: "assigned"}
    assert Task.objects.get(pk=overdue.task_id).slots_taken == 0


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        (
            lambda w, b: services.block_worker(worker=w, actor=UserFactory(role=Role.ADMIN), reason="copied answers"),
            "blocked",
        ),
        (
            lambda w, b: b.required_qualifications.add(QualificationFactory(slug="screen-qa", name="Screen QA")),
            "Screen QA",
        ),
        (lambda w, b: _set(b, allowed_locales=["de-DE"]), "de-DE"),
        (lambda w, b: _set(b, min_approved_count=5), "5 approved"),
        (lambda w, b: (_set(w.profile, approved_count=1, rejected_count=3), _set(b, min_approval_rate="0.9")), "90%"),
    ],
    ids=["blocked", "qualification", "locale", "approved-count", "approval-rate"],
)
def test_ineligible_worker_is_refused_with_the_reason(rater, setup, reason):
    batch = open_batch(tasks=1)
    setup(rater, batch)
    rater.refresh_from_db()
    batch.refresh_from_db()
    with pytest.raises(NotEligible, match=reason):
        services.request_next_task(worker=rater, batch_id=batch.pk)
    assert selectors.eligibility(worker=rater, batch=batch).reason.count(reason) == 1
    assert not Assignment.objects.filter(worker=rater).exists()


def test_granted_qualification_makes_worker_eligible(rater):
    batch = open_batch(tasks=1)
    qualification = QualificationFactory(slug="image-qa")
    batch.required_qualifications.add(qualification)
    assert not selectors.eligibility(worker=rater, batch=batch).eligible
    QualificationGrant.objects.create(user=rater, qualification=qualification)
    assignment, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    assert assignment.state == "assigned"


def test_new_worker_without_decisions_passes_an_approval_rate_rule(rater):
    batch = open_batch(tasks=1, min_approval_rate="0.95")
    assert selectors.eligibility(worker=rater, batch=batch).eligible


def test_home_listing_counts_tasks_left_for_this_worker(rater, other_rater):
    batch = open_batch(tasks=3)
    services.request_next_task(worker=other_rater, batch_id=batch.pk)
    (row,) = selectors.open_batches_for(worker=rater)
    assert row["batch"].pk == batch.pk and row["available"] == 2 and row["eligibility"].eligible


def _set(obj, **fields):
    for key, value in fields.items():
        setattr(obj, key, value)
    obj.save()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL: its claim statement is checked")
def test_the_claim_checks_each_task_by_a_probe_whatever_the_workers_history(rater):
    batch = open_batch(tasks=1600, wanted=2)
    tasks = list(Task.objects.filter(batch=batch).order_by("id").values_list("id", flat=True))
    had, now = tasks[:1500], timezone.now()
    Assignment.objects.bulk_create(
        Assignment(batch=batch, task_id=task_id, worker=rater, state="submitted", submitted_at=now, expires_at=now)
        for task_id in had
    )
    Task.objects.filter(pk__in=had).update(slots_taken=1)  # each still wants another worker
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE hits_task")
        cursor.execute("ANALYZE hits_assignment")
    with CaptureQueriesContext(connection) as queries:
        assignment, created = services.request_next_task(worker=rater, batch_id=batch.pk)
    assert created and assignment.task_id == tasks[1500]
    # Prepared on the connection (with its first run there, "PREPARE name AS …; EXECUTE
    # name(…)"), run by name since.
    claims = {f"EXECUTE {name}(" for sql, name in connection.prepared_statements.items() if "slots_taken + 1" in sql}
    (execute,) = [
        query["sql"].rsplit("; ", 1)[-1]
        for query in queries.captured_queries
        if any(name in query["sql"] for name in claims)
    ]
    with connection.cursor() as cursor:
        # The plans it gets: custom ones for its first runs, then the generic one.
        for mode in ("force_custom_plan", "force_generic_plan"):
            cursor.execute(f"SET plan_cache_mode = {mode}")
            cursor.execute("EXPLAIN " + execute)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            # Not an anti-join over the worker's 1,500 assignments: one probe per task looked at.
            assert "Anti Join" not in plan and "SubPlan" in plan, (mode, plan)
        cursor.execute("RESET plan_cache_mode")


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL: the plans of its prepared statements are checked"
)
def test_the_hand_out_finds_the_workers_open_assignment_by_index_whatever_their_history(rater):
    batch = open_batch(tasks=1600)
    tasks = list(Task.objects.filter(batch=batch).order_by("id").values_list("id", flat=True))
    now = timezone.now()
    Assignment.objects.bulk_create(
        Assignment(batch=batch, task_id=task_id, worker=rater, state="submitted", submitted_at=now, expires_at=now)
        for task_id in tasks[:1500]
    )
    Task.objects.filter(pk__in=tasks[:1500]).update(slots_taken=1)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE hits_assignment")
    with CaptureQueriesContext(connection) as queries:
        assignment, created = services.request_next_task(worker=rater, batch_id=batch.pk)
    again, created_again = services.request_next_task(worker=rater, batch_id=batch.pk)
    assert created and not created_again and again.pk == assignment.pk
    names = {f"EXECUTE {name}(" for sql, name in connection.prepared_statements.items() if "kindrequirements" in sql}
    (execute,) = [
        query["sql"].rsplit("; ", 1)[-1] for query in queries.captured_queries if any(n in query["sql"] for n in names)
    ]
    with connection.cursor() as cursor:
        # A prepared statement's first runs get custom plans, the later ones the generic
        # plan, made without the parameters' values.
        for mode in ("force_custom_plan", "force_generic_plan"):
            cursor.execute(f"SET plan_cache_mode = {mode}")
            cursor.execute("EXPLAIN " + execute)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            # One of the indexes that hold open assignments only, not a walk over the
            # worker's 1,500 past ones.
            (scan,) = [line for line in plan.splitlines() if " on hits_assignment " in line]
            assert "one_open_assignment_per_batch" in scan or "assignment_open_expiry" in scan, (mode, plan)
        cursor.execute("RESET plan_cache_mode")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL: reads its catalogue")
@pytest.mark.django_db
@pytest.mark.parametrize("table", ["hits_assignment", "hits_task"])
def test_no_index_of_the_hand_outs_tables_is_the_start_of_another(table):
    # Every claim and submission writes an entry in each index: one whose columns lead
    # another (whole-table) index serves no lookup the other does not.
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT i.indexrelid::regclass::text,
                      array(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(n, o)
                            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o)
               FROM pg_index i WHERE i.indrelid = %s::regclass AND i.indpred IS NULL""",
            [table],
        )
        indexes = cursor.fetchall()
    assert len(indexes) >= 2
    redundant = [
        (name, other)
        for name, columns in indexes
        for other, longer in indexes
        if name != other and len(columns) < len(longer) and longer[: len(columns)] == columns
    ]
    assert redundant == []


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL: reads its catalogue")
@pytest.mark.django_db
def test_tasks_are_vacuumed_after_a_few_thousand_claims_whatever_the_tables_size():
    # Claimed tasks' dead entries in task_open_slots slow every claim until a vacuum.
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE oid = 'hits_task'::regclass")
        (options,) = cursor.fetchone()
    assert sorted(options) == [
        "autovacuum_vacuum_scale_factor=0.0",
        "autovacuum_vacuum_threshold=5000",
        "vacuum_index_cleanup=on",
    ]
