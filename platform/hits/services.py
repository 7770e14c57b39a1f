"""Every change to the work engine goes through one of these functions.

Each runs in one transaction, writes the audit event with the change, and relies on
database constraints (``hits.models``) to back its invariants: a worker never holds
the same task twice, and a task never has more live assignments than it wants.
"""

import contextlib
import json
from datetime import timedelta
from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.db.models import Count, F, Q
from django.utils import timezone
from rest_framework import serializers

from accounts.models import RaterProfile, Role

from . import registry, selectors, signals
from .errors import (
    AssignmentClosed,
    AssignmentNotFound,
    BatchNotFound,
    BatchNotOpen,
    InvalidDecision,
    NotAllowed,
    NoTaskAvailable,
    NotEligible,
    NotYourAssignment,
)
from .kinds.base import TaskKind
from .models import Assignment, Batch, Disqualification, Task, WorkEvent

State = Assignment.State


def _event(action, *, actor=None, worker_id=None, assignment=None, batch_id=None, **detail):
    WorkEvent.objects.create(
        action=action, actor=actor, worker_id=worker_id, assignment=assignment, batch_id=batch_id, detail=detail
    )


def _in_spot_check(assignment_id, percent):
    # A fixed multiplicative hash of the id: the sample is spread evenly over the batch
    # and the same every time it is computed.
    return (assignment_id * 2654435761) % 2**32 % 100 < percent


# --- Batches and tasks --------------------------------------------------------------------


@transaction.atomic
def create_batch(*, name, kind, created_by=None, **fields):
    registry.get(kind)  # raises UnknownKind for a kind this server does not have
    return Batch.objects.create(name=name, kind=kind, created_by=created_by, **fields)


@transaction.atomic
def add_tasks(*, batch, payloads, assignments_wanted=None, reserved_for=None):
    """Checks every payload against the kind's input schema before adding any."""
    kind = registry.get(batch.kind)
    wanted = assignments_wanted or kind.default_assignments_wanted
    cleaned, errors = [], {}
    for index, payload in enumerate(payloads):
        try:
            cleaned.append(kind.clean_input(payload))
        except serializers.ValidationError as error:
            errors[index] = error.detail
    if errors:
        raise serializers.ValidationError(errors)
    tasks = Task.objects.bulk_create(
        [
            Task(batch=batch, payload=payload, assignments_wanted=wanted, reserved_for=reserved_for)
            for payload in cleaned
        ]
    )
    if len(tasks) >= BULK_ANALYZE_THRESHOLD and connection.vendor == "postgresql":
        # Hand-out finds tasks by an ordered index scan only when the planner knows the
        # table is big; a bulk load leaves the statistics stale until autovacuum comes.
        transaction.on_commit(_analyze_tasks)
    return tasks


BULK_ANALYZE_THRESHOLD = 500


def _analyze_tasks():
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Task._meta.db_table}")


@transaction.atomic
def open_batch(*, batch, actor=None):
    batch = Batch.objects.select_for_update().get(pk=batch.pk)
    if batch.state != Batch.State.DRAFT:
        raise BatchNotOpen(f"Only a draft batch can be opened; this one is {batch.state}.")
    batch.state, batch.opened_at = Batch.State.OPEN, timezone.now()
    batch.save(update_fields=["state", "opened_at"])
    _event(WorkEvent.Action.BATCH_OPENED, actor=actor, batch_id=batch.pk)
    return batch


@transaction.atomic
def close_batch(*, batch, actor=None):
    """Stops handing out work. Assignments already out can still be submitted."""
    batch = Batch.objects.select_for_update().get(pk=batch.pk)
    if batch.state != Batch.State.CLOSED:
        batch.state, batch.closed_at = Batch.State.CLOSED, timezone.now()
        batch.save(update_fields=["state", "closed_at"])
        _event(WorkEvent.Action.BATCH_CLOSED, actor=actor, batch_id=batch.pk)
    return batch


# --- Hand-out ---------------------------------------------------------------------------------


def request_next_task(*, worker, batch_id):
    """Gives ``worker`` a task from ``batch``: their open one if they have it, else a new one.

    Returns ``(assignment, created)``. Safe under any number of concurrent callers: tasks
    are claimed with ``SELECT … FOR UPDATE SKIP LOCKED`` so that parallel workers take
    different rows instead of queueing on the same one, and one worker's requests at
    once meet the unique constraint on their open assignment in the batch: the ones that
    lose retry, and find the assignment the winner made.
    """
    for _attempt in range(3):
        try:
            return _request_next_task(worker=worker, batch_id=batch_id)
        except IntegrityError:
            # Only reachable if a constraint caught a race the locks did not; the retry
            # sees the committed state and answers from it.
            continue
    raise NoTaskAvailable("Work could not be handed out just now; please try again.")


def _request_next_task(*, worker, batch_id):
    batch, profile = selectors.hand_out_facts(batch_id=batch_id, worker_id=worker.pk)
    if batch is None:
        raise BatchNotFound(f"There is no batch {batch_id}.")
    if batch.state != Batch.State.OPEN:
        raise BatchNotOpen(f"The batch “{batch.name}” is {batch.get_state_display().lower()}; it hands out no work.")
    registry.get(batch.kind)  # a kind since removed from the server: UnknownKind (409)
    worker.profile = profile
    disqualified = {batch.kind: batch.disqualified_reason} if batch.disqualified_reason is not None else {}
    kind_rules = selectors.kind_requirements() if batch.kind_has_requirements else {}
    verdict = selectors.eligibility(worker=worker, batch=batch, disqualified=disqualified, kind_rules=kind_rules)
    if not verdict.eligible:
        raise NotEligible(verdict.reason)

    now = timezone.now()
    if batch.open_assignment_id is not None:
        with transaction.atomic():
            current = _locked_assignment(batch.open_assignment_id)
            if current.state == State.ASSIGNED and current.expires_at > now:
                return current, False
            if current.state == State.ASSIGNED:
                _end_assignment(current, state=State.EXPIRED, now=now)
    minutes = batch.assignment_minutes or settings.ASSIGNMENT_MINUTES
    new = Assignment(batch=batch, worker=worker, expires_at=now + timedelta(minutes=minutes))
    assignment = _claim_task(assignment=new) or _claim_returned_task(assignment=new, now=now)
    if assignment is None:
        raise NoTaskAvailable(f"The batch “{batch.name}” has no task left for you right now.")
    # Hand-out and submission are recorded on the assignment itself (assigned_at,
    # submitted_at); the event log keeps the decisions and the ends that free a slot.
    return assignment, True


def _candidate_tasks(*, batch, worker_id):
    """The conditions on a task ``t`` that ``worker_id`` may be handed, as SQL and its
    parameters: a free slot, not reserved for someone else, not excluded by the kind."""
    where = [
        "t.batch_id = %s AND t.slots_taken < t.assignments_wanted",
        "(t.reserved_for_id IS NULL OR t.reserved_for_id = %s)",
    ]
    params = [batch.pk, worker_id]
    excluded_tasks = registry.get(batch.kind).excluded_tasks(worker_id=worker_id)
    if excluded_tasks is not None:
        excluded_sql, excluded_params = excluded_tasks.values("id").query.sql_with_params()
        where.append(f"t.id NOT IN ({excluded_sql})")
        params.extend(excluded_params)
    return " AND ".join(where), params


def _not_blocked(worker_id):
    # Read under a share lock: a block taken meanwhile (which locks the profile to end the
    # worker's open assignments) waits for this hand-out, or this hand-out waits for it
    # and then sees the block.
    profile_table = RaterProfile._meta.db_table
    return f"SELECT 1 FROM {profile_table} WHERE user_id = %s AND NOT blocked FOR SHARE", [worker_id]


def _claim_task(*, assignment):
    """Gives ``assignment`` (unsaved) the first task of its batch that its worker never had,
    saves it and returns it; None when there is no such task.

    On PostgreSQL one statement finds the task, locks it (skipping tasks other hand-outs
    hold), counts the slot and inserts the assignment. On SQLite, which lets one writer at
    a time, the caller's transaction is the lock. The check constraint on ``slots_taken``
    backs it all (a task is never counted past ``assignments_wanted``), and the unique
    constraints on assignments refuse a second open assignment in the batch or a task
    already had (an ``IntegrityError`` the caller retries on).

    The statement runs on its own, without BEGIN and COMMIT: two round trips fewer on
    every hand-out. Inside a caller's transaction it gets a savepoint, so that an error
    leaves that transaction usable.
    """
    worker_id = assignment.worker_id
    where, params = _candidate_tasks(batch=assignment.batch, worker_id=worker_id)
    task_table, assignment_table = Task._meta.db_table, Assignment._meta.db_table
    # OFFSET 0 keeps the check a probe of each candidate task's few assignments: without
    # it the planner turns NOT EXISTS into an anti-join, and with fresh statistics it
    # merge-joins over the assignments index up to the first free task, a cost that grows
    # with everyone's history (4 ms after 4,400 assignments, against 0.1 ms).
    # (PostgreSQL's planner only: SQLite probes by index anyway, and wants LIMIT before OFFSET.)
    fence = " OFFSET 0" if connection.vendor == "postgresql" else ""
    never_had = f"NOT EXISTS (SELECT 1 FROM {assignment_table} a WHERE a.task_id = t.id AND a.worker_id = %s{fence})"
    pick = f"SELECT t.id FROM {task_table} t WHERE {where} AND {never_had} ORDER BY t.id LIMIT 1"
    params = [*params, worker_id]
    if not connection.features.has_select_for_update_skip_locked:
        return _claim_in_steps(assignment, pick=pick, params=params)
    db = connections[DEFAULT_DB_ALIAS]
    blocked_sql, blocked_params = _not_blocked(worker_id)
    fields, columns, types = _insert_columns(db)
    values = [field.get_db_prep_save(field.pre_save(assignment, add=True), db) for field in fields]
    # Typed, for the statement prepared on PostgreSQL: a parameter in the SELECT list
    # takes no type from the column it is inserted into.
    placeholders = ", ".join(f"CAST(%s AS {db_type})" for db_type in types)
    sql = f"""
        WITH worker AS ({blocked_sql}),
        claimed AS (
            UPDATE {task_table} SET slots_taken = slots_taken + 1
            WHERE id = ({pick} FOR UPDATE SKIP LOCKED) AND EXISTS (SELECT 1 FROM worker)
            RETURNING id, payload
        ),
        inserted AS (
            INSERT INTO {assignment_table} (task_id, {", ".join(columns)})
            SELECT id, {placeholders} FROM claimed
            RETURNING id, task_id
        )
        SELECT inserted.id, claimed.id, claimed.payload FROM inserted JOIN claimed ON claimed.id = inserted.task_id
    """
    savepoint = transaction.atomic() if db.in_atomic_block else contextlib.nullcontext()
    with savepoint, db.cursor() as cursor:
        selectors.execute(cursor, sql, [*blocked_params, *params, *values])
        row = cursor.fetchone()
    if row is None:
        return None
    assignment.pk = row[0]
    assignment._state.adding = False
    assignment.task = _task_from_row(row[1], row[2], batch=assignment.batch, db=db)
    return assignment


_INSERT_COLUMNS = {}


def _insert_columns(db):
    """``(fields, columns, types)`` of a new assignment but its id and task, on ``db``:
    the fields whose values ``Model.save`` would write (``pre_save``, then
    ``get_db_prep_save``), their quoted columns and their types."""
    found = _INSERT_COLUMNS.get(db.vendor)
    if found is None:
        fields = [f for f in Assignment._meta.concrete_fields if not f.primary_key and f.name != "task"]
        columns = [db.ops.quote_name(field.column) for field in fields]
        found = _INSERT_COLUMNS[db.vendor] = (fields, columns, [field.cast_db_type(db) for field in fields])
    return found


@transaction.atomic
def _claim_in_steps(assignment, *, pick, params):
    """``_claim_task`` for databases without ``SKIP LOCKED`` (SQLite), whose one writer at
    a time makes the transaction's steps one."""
    with connection.cursor() as cursor:
        cursor.execute(pick, params)
        row = cursor.fetchone()
    if row is None or not _may_take_work(assignment.worker_id):
        return None
    Task.objects.filter(pk=row[0]).update(slots_taken=F("slots_taken") + 1)
    assignment.task = _task_only(row[0], batch=assignment.batch)
    assignment.save(force_insert=True)
    return assignment


def _may_take_work(worker_id):
    """Not blocked, read under the profile's lock (which ``block_worker`` takes too)."""
    return RaterProfile.objects.select_for_update().filter(user_id=worker_id, blocked=False).values("pk").first()


def _task_only(task_id, *, batch):
    task = Task.objects.only("id", "payload").get(pk=task_id)
    task.batch = batch
    return task


def _task_from_row(task_id, payload, *, batch, db):
    # The other fields stay deferred: they load if anything reads them.
    payload = Task._meta.get_field("payload").from_db_value(payload, None, db)
    task = Task.from_db(db.alias, ["id", "payload"], [task_id, payload])
    task.batch = batch
    return task


@transaction.atomic
def _claim_returned_task(*, assignment, now):
    """When no task is left that the worker never had: the one they gave back longest ago,
    if at least ``RETURNED_TASK_PAUSE_MINUTES`` ago and still free, reopened as
    ``assignment`` (their draft kept). A rater who returns a task meets it again after
    every other task, not as the very next one."""
    worker_id = assignment.worker_id
    where, params = _candidate_tasks(batch=assignment.batch, worker_id=worker_id)
    returned_before = now - timedelta(minutes=settings.RETURNED_TASK_PAUSE_MINUTES)
    task_table, assignment_table = Task._meta.db_table, Assignment._meta.db_table
    skip_locked = "SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    lock = f"FOR UPDATE OF t {skip_locked}" if connection.features.has_select_for_update_of else ""
    pick = f"""
        SELECT t.id FROM {task_table} t
        JOIN {assignment_table} a ON a.task_id = t.id AND a.worker_id = %s AND a.state = %s AND a.ended_at <= %s
        WHERE {where} ORDER BY a.ended_at, t.id LIMIT 1 {lock}
    """
    with connection.cursor() as cursor:
        cursor.execute(pick, [worker_id, State.RETURNED, returned_before, *params])
        row = cursor.fetchone()
    if row is None or not _may_take_work(worker_id):
        return None
    Task.objects.filter(pk=row[0]).update(slots_taken=F("slots_taken") + 1)
    reopened = Assignment.objects.select_for_update().get(task_id=row[0], worker_id=worker_id)
    reopened.state, reopened.assigned_at, reopened.ended_at = State.ASSIGNED, now, None
    reopened.expires_at = assignment.expires_at
    reopened.save(update_fields=["state", "assigned_at", "expires_at", "ended_at"])
    reopened.batch, reopened.task = assignment.batch, _task_only(row[0], batch=assignment.batch)
    return reopened


def _locked_assignment(assignment_id):
    assignment = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("task", "batch")
        .filter(pk=assignment_id)
        .first()
    )
    if assignment is None:
        raise AssignmentNotFound(f"There is no assignment {assignment_id}.")
    return assignment


def _end_assignment(assignment, *, state, now):
    """Ends an open assignment without a submission and frees its task's slot."""
    assignment.state, assignment.ended_at = state, now
    assignment.save(update_fields=["state", "ended_at"])
    Task.objects.filter(pk=assignment.task_id).update(slots_taken=F("slots_taken") - 1)
    action = WorkEvent.Action.EXPIRED if state == State.EXPIRED else WorkEvent.Action.RETURNED
    _event(action, worker_id=assignment.worker_id, assignment=assignment, batch_id=assignment.batch_id)


def _check_open(assignment, *, worker, now):
    if assignment.worker_id != worker.pk:
        raise NotYourAssignment("This assignment belongs to another worker.")
    if assignment.state != State.ASSIGNED:
        raise AssignmentClosed(f"This assignment is already {assignment.get_state_display().lower()}.")
    if assignment.expires_at <= now:
        _end_assignment(assignment, state=State.EXPIRED, now=now)
        raise AssignmentClosed("This assignment expired before it was submitted; request a new task.")


def submit_assignment(*, assignment_id, worker, data, active_seconds=None):
    """Checks ``data`` against the kind's schema and records the submission, once.

    A refused submission leaves nothing behind; an expired assignment is closed and
    stays closed (the expiry commits even though the submission is refused).

    For a kind that stores nothing of its own on submission (``on_submitted`` left as
    it is), the answer is recorded by one conditional statement after a plain read: the
    statement only changes an open assignment of ``worker`` that has not expired, so two
    submissions at once record one. When it changes nothing, the locked path below
    finds out why and says so.
    """
    assignment = selectors.assignment_with_task_and_batch(assignment_id)
    if assignment is not None and assignment.worker_id == worker.pk:
        kind, now = registry.get(assignment.batch.kind), timezone.now()
        open_now = assignment.state == State.ASSIGNED and assignment.expires_at > now
        if open_now and type(kind).on_submitted is TaskKind.on_submitted:
            answer = kind.clean_submission(assignment=assignment, data=data)
            _record_submission(assignment, kind=kind, answer=answer, active_seconds=active_seconds, now=now)
            if _record_if_open(assignment, now=now):
                return assignment
    return _submit_locked(assignment_id=assignment_id, worker=worker, data=data, active_seconds=active_seconds)


SUBMISSION_FIELDS = ["state", "submitted_at", "active_seconds", "answer", "spot_check"]


def _record_if_open(assignment, *, now):
    """Writes ``assignment``'s submission fields if it is still open and unexpired at
    ``now``, in one statement (prepared on PostgreSQL); whether it did."""
    db = connections[DEFAULT_DB_ALIAS]
    fields = [Assignment._meta.get_field(name) for name in SUBMISSION_FIELDS]
    sql = _RECORD_IF_OPEN.get(db.vendor)
    if sql is None:
        quote = db.ops.quote_name
        sql = _RECORD_IF_OPEN[db.vendor] = (
            f"UPDATE {Assignment._meta.db_table} SET {', '.join(f'{quote(field.column)} = %s' for field in fields)} "
            "WHERE id = %s AND worker_id = %s AND state = %s AND expires_at > %s"
        )
    values = [field.get_db_prep_save(getattr(assignment, field.attname), db) for field in fields]
    expires = Assignment._meta.get_field("expires_at").get_db_prep_value(now, db)
    with db.cursor() as cursor:
        selectors.execute(cursor, sql, [*values, assignment.pk, assignment.worker_id, State.ASSIGNED, expires])
        return cursor.rowcount == 1


_RECORD_IF_OPEN = {}


def _record_submission(assignment, *, kind, answer, active_seconds, now):
    """Sets the submission's fields on ``assignment`` (the caller saves them)."""
    wall_seconds = max(0, int((now - assignment.assigned_at).total_seconds()))
    assignment.state, assignment.submitted_at = State.SUBMITTED, now
    assignment.active_seconds = wall_seconds if active_seconds is None else min(int(active_seconds), wall_seconds)
    assignment.spot_check = _in_spot_check(assignment.pk, assignment.batch.spot_check_percent)
    assignment.answer = _jsonable(kind.on_submitted(assignment=assignment, answer=answer))


def _submit_locked(*, assignment_id, worker, data, active_seconds):
    with transaction.atomic():
        assignment = _locked_assignment(assignment_id)
        now = timezone.now()
        try:
            _check_open(assignment, worker=worker, now=now)
        except AssignmentClosed as refusal:
            closed = refusal
        else:
            closed = None
            kind = registry.get(assignment.batch.kind)
            answer = kind.clean_submission(assignment=assignment, data=data)
            _record_submission(assignment, kind=kind, answer=answer, active_seconds=active_seconds, now=now)
            assignment.save(update_fields=SUBMISSION_FIELDS)
    if closed is not None:
        raise closed
    return assignment


def _jsonable(answer):
    return {
        key: str(value) if isinstance(value, Decimal) else sorted(value) if isinstance(value, set) else value
        for key, value in dict(answer).items()
    }


MAX_DRAFT_BYTES = 64 * 1024


@transaction.atomic
def save_draft(*, assignment_id, worker, draft):
    """Keeps the worker's unfinished work on the server, so a reload loses nothing."""
    if len(json.dumps(draft)) > MAX_DRAFT_BYTES:
        raise InvalidDecision(f"A draft may hold at most {MAX_DRAFT_BYTES // 1024} KB.")
    assignment = _locked_assignment(assignment_id)
    _check_open(assignment, worker=worker, now=timezone.now())
    assignment.draft = draft
    assignment.save(update_fields=["draft"])
    return assignment


@transaction.atomic
def return_assignment(*, assignment_id, worker):
    """The worker gives the task back for someone else, or for themselves later: it comes
    back to them once they have no other task in the batch (``_claim_returned_task``)."""
    assignment = _locked_assignment(assignment_id)
    now = timezone.now()
    _check_open(assignment, worker=worker, now=now)
    _end_assignment(assignment, state=State.RETURNED, now=now)
    return assignment


def expire_overdue_assignments(*, now=None, limit=1000):
    """Closes open assignments past their time and frees their tasks; returns how many."""
    now = now or timezone.now()
    expired = 0
    with transaction.atomic():
        overdue = list(
            Assignment.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(state=State.ASSIGNED, expires_at__lte=now)
            .order_by("expires_at")[:limit]
        )
        for assignment in overdue:
            _end_assignment(assignment, state=State.EXPIRED, now=now)
            expired += 1
    return expired


# --- Decisions, pay and blocks ---------------------------------------------------------------


def _check_reviewer(actor):
    if not actor.has_role(Role.REVIEWER):
        raise NotAllowed("Only reviewers and admins can judge work.")


def _decide(*, assignment_id, actor, state, feedback):
    """Records a reviewer's decision on a submission (the shared half of approve and reject)."""
    _check_reviewer(actor)
    assignment = _locked_assignment(assignment_id)
    if assignment.state != State.SUBMITTED:
        verb = "approved" if state == State.APPROVED else "rejected"
        raise AssignmentClosed(f"Only submitted work can be {verb}; this is {assignment.get_state_display().lower()}.")
    assignment.state, assignment.decided_at, assignment.decided_by = state, timezone.now(), actor
    assignment.feedback = feedback.strip()
    if state == State.APPROVED:
        assignment.pay = assignment.batch.reward
    assignment.save(update_fields=["state", "decided_at", "decided_by", "feedback", "pay"])
    counter = "approved_count" if state == State.APPROVED else "rejected_count"
    RaterProfile.objects.filter(user_id=assignment.worker_id).update(**{counter: F(counter) + 1})
    action = WorkEvent.Action.APPROVED if state == State.APPROVED else WorkEvent.Action.REJECTED
    _event(action, actor=actor, worker_id=assignment.worker_id, assignment=assignment, batch_id=assignment.batch_id)
    return assignment


@transaction.atomic
def approve_assignment(*, assignment_id, actor, feedback=""):
    """Approves a submission: the worker is paid the batch's reward."""
    assignment = _decide(assignment_id=assignment_id, actor=actor, state=State.APPROVED, feedback=feedback)
    registry.get(assignment.batch.kind).on_approved(assignment=assignment)
    signals.assignment_decided.send(Assignment, assignment=assignment, state=State.APPROVED, actor=actor)
    return assignment


@transaction.atomic
def reject_assignment(*, assignment_id, actor, feedback):
    """Rejects a submission with the reason the worker will read; the task is offered again."""
    if not feedback or not feedback.strip():
        _check_reviewer(actor)
        raise InvalidDecision("Say why the work is rejected: the worker sees this feedback.")
    assignment = _decide(assignment_id=assignment_id, actor=actor, state=State.REJECTED, feedback=feedback)
    Task.objects.filter(pk=assignment.task_id).update(slots_taken=F("slots_taken") - 1)
    registry.get(assignment.batch.kind).on_rejected(assignment=assignment)
    _disqualify_if_failing(worker_id=assignment.worker_id, kind=assignment.batch.kind)
    signals.assignment_decided.send(Assignment, assignment=assignment, state=State.REJECTED, actor=actor)
    return assignment


def _disqualify_if_failing(*, worker_id, kind):
    """Disqualifies a worker from ``kind`` once enough of their work of that kind is
    rejected: at least ``DISQUALIFY_MIN_REJECTIONS`` rejections making up at least
    ``DISQUALIFY_REJECTION_SHARE`` of their decided work of that kind."""
    counts = Assignment.objects.filter(worker_id=worker_id, batch__kind=kind).aggregate(
        rejected=Count("id", filter=Q(state=State.REJECTED)),
        decided=Count("id", filter=Q(state__in=[State.REJECTED, State.APPROVED])),
    )
    rejected, decided = counts["rejected"], counts["decided"]
    if rejected < settings.DISQUALIFY_MIN_REJECTIONS or rejected < settings.DISQUALIFY_REJECTION_SHARE * decided:
        return None
    if Disqualification.objects.filter(worker_id=worker_id, kind=kind, lifted_at__isnull=True).exists():
        return None
    title = registry.get(kind).title.lower()
    reason = (
        f"{rejected} of your {decided} reviewed {title} submissions were rejected, which is over the limit. "
        "The feedback on each is in your history; ask an admin to be reinstated."
    )
    return disqualify(worker_id=worker_id, kind=kind, reason=reason, automatic=True)


@transaction.atomic
def disqualify(*, worker_id, kind, reason, actor=None, automatic=False):
    """Stops a worker from taking one kind of work; their open assignments of it go back."""
    if actor is not None:
        _check_reviewer(actor)
    registry.get(kind)
    if not reason or not reason.strip():
        raise InvalidDecision("Say why the worker is disqualified: they see the reason.")
    try:
        with transaction.atomic():
            record = Disqualification.objects.create(
                worker_id=worker_id, kind=kind, reason=reason.strip(), automatic=automatic, created_by=actor
            )
    except IntegrityError:
        raise InvalidDecision("The worker is already disqualified from this kind of work.") from None
    now = timezone.now()
    for assignment in (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("batch")
        .filter(worker_id=worker_id, batch__kind=kind, state=State.ASSIGNED)
    ):
        _end_assignment(assignment, state=State.RETURNED, now=now)
    _event(WorkEvent.Action.DISQUALIFIED, actor=actor, worker_id=worker_id, kind=kind, reason=record.reason)
    return record


@transaction.atomic
def requalify(*, worker_id, kind, actor):
    """Lifts a worker's disqualification from ``kind``; the record is kept."""
    _check_reviewer(actor)
    lifted = Disqualification.objects.filter(worker_id=worker_id, kind=kind, lifted_at__isnull=True).update(
        lifted_at=timezone.now(), lifted_by=actor
    )
    if lifted:
        _event(WorkEvent.Action.REQUALIFIED, actor=actor, worker_id=worker_id, kind=kind)
    return lifted


def approve_unsampled(*, batch, actor):
    """Approves every submission of ``batch`` not drawn for its spot check; returns how many."""
    _check_reviewer(actor)
    ids = list(
        Assignment.objects.filter(batch=batch, spot_check=False, state=State.SUBMITTED).values_list("id", flat=True)
    )
    for assignment_id in ids:
        try:
            approve_assignment(assignment_id=assignment_id, actor=actor)
        except AssignmentClosed:
            continue  # decided meanwhile by someone else
    return len(ids)


@transaction.atomic
def grant_bonus(*, assignment_id, actor, amount, reason):
    _check_reviewer(actor)
    try:
        amount = Decimal(str(amount))
    except InvalidOperation:
        raise InvalidDecision(f"“{amount}” is not an amount of money.") from None
    if not amount.is_finite() or amount <= 0:
        raise InvalidDecision("A bonus must be more than zero.")
    if not reason or not reason.strip():
        raise InvalidDecision("Say why the bonus is given: the worker sees the reason.")
    assignment = _locked_assignment(assignment_id)
    if assignment.state not in (State.SUBMITTED, State.APPROVED):
        raise AssignmentClosed("Bonuses are for submitted or approved work.")
    assignment.bonus += amount
    assignment.bonus_reason = "\n".join(filter(None, [assignment.bonus_reason, reason.strip()]))
    assignment.save(update_fields=["bonus", "bonus_reason"])
    _event(
        WorkEvent.Action.BONUSED,
        actor=actor,
        worker_id=assignment.worker_id,
        assignment=assignment,
        batch_id=assignment.batch_id,
        amount=str(amount),
        reason=reason.strip(),
    )
    signals.bonus_granted.send(Assignment, assignment=assignment, amount=amount, reason=reason.strip(), actor=actor)
    return assignment


@transaction.atomic
def block_worker(*, worker, actor, reason):
    """Stops a worker from taking or submitting work; their open assignments go back."""
    _check_reviewer(actor)
    if not reason or not reason.strip():
        raise InvalidDecision("Say why the worker is blocked: they see the reason.")
    profile = RaterProfile.objects.select_for_update().get(user=worker)
    profile.blocked, profile.blocked_reason, profile.blocked_at = True, reason.strip(), timezone.now()
    profile.save(update_fields=["blocked", "blocked_reason", "blocked_at"])
    now = timezone.now()
    for assignment in (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("batch")
        .filter(worker=worker, state=State.ASSIGNED)
    ):
        _end_assignment(assignment, state=State.RETURNED, now=now)
    _event(WorkEvent.Action.BLOCKED, actor=actor, worker_id=worker.pk, reason=reason.strip())
    return profile


@transaction.atomic
def unblock_worker(*, worker, actor):
    _check_reviewer(actor)
    RaterProfile.objects.filter(user=worker).update(blocked=False, blocked_reason="", blocked_at=None)
    _event(WorkEvent.Action.UNBLOCKED, actor=actor, worker_id=worker.pk)
