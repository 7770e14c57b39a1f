"""Reads of the work engine: eligibility, the work a worker can see, history, earnings."""

from decimal import Decimal

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Count, Exists, F, Min, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce

from accounts.models import QualificationGrant, RaterProfile

from . import registry
from .kinds.base import ELIGIBLE, Eligibility
from .models import Assignment, Batch, Disqualification, KindRequirements, Task


def batches_with_rules():
    """Batches annotated with whether they require any qualification, so that checking
    eligibility for one without requirements costs no further query."""
    required = Batch.required_qualifications.through.objects.filter(batch_id=OuterRef("pk"))
    return Batch.objects.annotate(has_requirements=Exists(required))


def hand_out_facts(*, batch_id, worker_id):
    """``(batch, profile)`` for a hand-out, in one query: the batch (None if there is none)
    with ``has_requirements``, ``kind_has_requirements``, ``disqualified_reason`` (None
    unless the worker is disqualified from its kind) and ``open_assignment_id`` (the
    worker's open assignment in it, or None); and the worker's profile.

    Raw SQL, prepared on PostgreSQL, because it runs on every hand-out, where building it
    with the ORM cost more than running it, and planning it as much again. The open
    assignment's state is written in the statement, not passed: the plan a prepared
    statement settles on is made without its parameters' values, and only a known state
    lets it look the assignment up in an index of open assignments only (the
    ``state = 'assigned'`` partial indexes) instead of walking the worker's whole history."""
    db = connections[DEFAULT_DB_ALIAS]
    batch_rows, profile_rows = _rows(Batch, db), _rows(RaterProfile, db)
    sql = _HAND_OUT_FACTS.get(db.vendor)
    if sql is None:
        columns = [f"b.{f.column}" for f in Batch._meta.concrete_fields]
        columns += [f"p.{f.column}" for f in RaterProfile._meta.concrete_fields]
        sql = _HAND_OUT_FACTS[db.vendor] = f"""
            SELECT {", ".join(columns)},
                EXISTS (SELECT 1 FROM {Batch.required_qualifications.through._meta.db_table} q
                        WHERE q.batch_id = b.id),
                EXISTS (SELECT 1 FROM {KindRequirements._meta.db_table} k WHERE k.kind = b.kind),
                (SELECT d.reason FROM {Disqualification._meta.db_table} d
                 WHERE d.worker_id = p.user_id AND d.kind = b.kind AND d.lifted_at IS NULL LIMIT 1),
                (SELECT a.id FROM {Assignment._meta.db_table} a
                 WHERE a.worker_id = p.user_id AND a.batch_id = b.id AND a.state = '{Assignment.State.ASSIGNED}' LIMIT 1)
            FROM {RaterProfile._meta.db_table} p LEFT JOIN {Batch._meta.db_table} b ON b.id = %s
            WHERE p.user_id = %s
        """
    with db.cursor() as cursor:
        execute(cursor, sql, [batch_id, worker_id])
        row = cursor.fetchone()
    if row is None:
        raise RaterProfile.DoesNotExist(f"Worker {worker_id} has no profile.")
    batch_end = len(batch_rows[0])
    profile_end = batch_end + len(profile_rows[0])
    profile = _from_row(RaterProfile, profile_rows, row[batch_end:profile_end], db)
    if row[0] is None:
        return None, profile
    batch = _from_row(Batch, batch_rows, row[:batch_end], db)
    batch.has_requirements, batch.kind_has_requirements, batch.disqualified_reason, batch.open_assignment_id = row[
        profile_end:
    ]
    return batch, profile


_HAND_OUT_FACTS = {}
_ASSIGNMENT_WITH_TASK_AND_BATCH = {}


def assignment_with_task_and_batch(assignment_id):
    """The assignment ``assignment_id`` with its task and batch, as
    ``select_related("task", "batch")`` reads it, or None if there is none.

    Raw SQL, prepared on PostgreSQL, because every submission reads it first, where
    building the ORM's query cost more than running it."""
    db = connections[DEFAULT_DB_ALIAS]
    parts = [(Assignment, "a"), (Task, "t"), (Batch, "b")]
    sql = _ASSIGNMENT_WITH_TASK_AND_BATCH.get(db.vendor)
    if sql is None:
        quote = db.ops.quote_name
        columns = [f"{alias}.{quote(f.column)}" for model, alias in parts for f in model._meta.concrete_fields]
        sql = _ASSIGNMENT_WITH_TASK_AND_BATCH[db.vendor] = f"""
            SELECT {", ".join(columns)}
            FROM {Assignment._meta.db_table} a
            JOIN {Task._meta.db_table} t ON t.id = a.task_id
            JOIN {Batch._meta.db_table} b ON b.id = a.batch_id
            WHERE a.id = %s
        """
    with db.cursor() as cursor:
        execute(cursor, sql, [assignment_id])
        row = cursor.fetchone()
    if row is None:
        return None
    objects, start = [], 0
    for model, _ in parts:
        rows = _rows(model, db)
        end = start + len(rows[0])
        objects.append(_from_row(model, rows, row[start:end], db))
        start = end
    assignment, assignment.task, assignment.batch = objects
    return assignment


def execute(cursor, sql, params):
    """``cursor.execute(sql, params)``, as a prepared statement where the database has
    them (config/postgresql/base.py)."""
    prepared = getattr(cursor.db, "execute_prepared", None)
    return prepared(cursor, sql, params) if prepared else cursor.execute(sql, params)


def _from_row(model, rows, values, db):
    """An instance of ``model`` from a raw row of its concrete fields, its values converted
    as the ORM converts them (the backend's converters, e.g. SQLite's dates, then the
    field's own). ``rows`` is ``_rows(model, db)``."""
    attnames, converting = rows
    if converting:
        values = list(values)
        for index, column, converters in converting:
            value = values[index]
            for converter in converters:
                value = converter(value, column, db)
            values[index] = value
    return model.from_db(db.alias, attnames, values)


_ROWS = {}


def _rows(model, db):
    """``(attnames, converting)`` of ``model``'s concrete fields on ``db``'s backend:
    ``converting`` lists ``(index, column, converters)`` of the fields with converters."""
    key = (db.vendor, model)
    found = _ROWS.get(key)
    if found is None:
        converting = []
        for index, field in enumerate(model._meta.concrete_fields):
            column = field.get_col(model._meta.db_table)
            converters = db.ops.get_db_converters(column) + column.get_db_converters(db)
            if converters:
                converting.append((index, column, converters))
        found = _ROWS[key] = ([field.attname for field in model._meta.concrete_fields], converting)
    return found


def disqualifications_of(worker):
    """The kinds of work ``worker`` is disqualified from, each with the reason."""
    return dict(Disqualification.objects.filter(worker=worker, lifted_at__isnull=True).values_list("kind", "reason"))


def eligibility(*, worker, batch, granted_slugs=None, disqualified=None, kind_rules=None):
    """Whether ``worker`` may take tasks from ``batch``; the reason says what to do if not.

    The rules checked in turn: the account is not blocked, nor disqualified from the
    kind; the kind's own rule (e.g. a role); the kind's requirements (``KindRequirements``);
    the batch's. ``granted_slugs``, ``disqualified`` (``disqualifications_of``) and
    ``kind_rules`` (``kind_requirements``) save queries when checking many batches.
    """
    profile = worker.profile
    if profile.blocked:
        return Eligibility(False, "Your account is blocked from taking work: " + profile.blocked_reason)
    try:
        kind = registry.get(batch.kind)
    except registry.UnknownKind:
        return Eligibility(False, "This batch's kind of work is not available on this server.")
    if disqualified is None:
        disqualified = disqualifications_of(worker)
    if batch.kind in disqualified:
        return Eligibility(False, f"You can no longer take {kind.title.lower()} work: {disqualified[batch.kind]}")
    kind_rule = kind.check_eligibility(worker=worker)
    if not kind_rule.eligible:
        return kind_rule
    if kind_rules is None:
        kind_rules = kind_requirements()
    checks = [(kind_rules.get(batch.kind), f"“{kind.title}”"), (batch, "This batch")]
    reasons = []
    for rules, subject in checks:
        if rules is None:
            continue
        required = rules.qualifications if rules is not batch else _batch_qualifications(batch)
        if required and granted_slugs is None:
            granted_slugs = set(
                QualificationGrant.objects.filter(user=worker).values_list("qualification__slug", flat=True)
            )
        verdict = _meets(rules, subject=subject, profile=profile, required=required, granted_slugs=granted_slugs)
        if not verdict.eligible:
            reasons.append(verdict.reason)
    # Every rule the worker misses, so they know all they need (not one at a time).
    return Eligibility(False, " ".join(reasons)) if reasons else ELIGIBLE


def _batch_qualifications(batch):
    return list(batch.required_qualifications.all()) if getattr(batch, "has_requirements", True) else []


def kind_requirements():
    """Each kind's own requirements (``KindRequirements``), by kind name, with their
    qualifications as ``.qualifications``."""
    rules = {}
    for row in KindRequirements.objects.prefetch_related("required_qualifications"):
        row.qualifications = list(row.required_qualifications.all())
        rules[row.kind] = row
    return rules


def _meets(rules, *, subject, profile, required, granted_slugs):
    """Checks one set of rules (a batch's or a kind's); ``subject`` names it in the reason,
    which lists every rule missed."""
    reasons = []
    missing = [q.name for q in required if q.slug not in granted_slugs]
    if missing:
        needs = "You need" if subject == "This batch" else f"{subject} needs"
        reasons.append(f"{needs} the qualification: " + ", ".join(missing) + ".")
    if profile.screened_by_provider:
        # The provider applied these rules (MTurk's qualification requirements, the study's
        # screeners) to the worker's record there; a new linked account has no record here.
        return Eligibility(False, " ".join(reasons)) if reasons else ELIGIBLE
    if rules.allowed_locales and profile.locale not in rules.allowed_locales:
        reasons.append(
            f"{subject} is for workers in {', '.join(rules.allowed_locales)}; your profile says {profile.locale}."
        )
    if profile.approved_count < rules.min_approved_count:
        reasons.append(
            f"{subject} needs {rules.min_approved_count} approved assignments; you have {profile.approved_count}."
        )
    rate = profile.approval_rate
    if rules.min_approval_rate is not None and rate is not None and Decimal(str(rate)) < rules.min_approval_rate:
        reasons.append(f"{subject} needs an approval rate of {rules.min_approval_rate:.0%}; yours is {rate:.0%}.")
    return Eligibility(False, " ".join(reasons)) if reasons else ELIGIBLE


def open_batches_for(*, worker):
    """Open batches with, for each, the worker's eligibility and how many tasks are left
    for them. Five or six queries, however many batches are open."""
    tried_by_worker = Assignment.objects.filter(task=OuterRef("pk"), worker=worker)
    left_for_worker = (
        Task.objects.filter(batch=OuterRef("pk"), slots_taken__lt=F("assignments_wanted"))
        .filter(Q(reserved_for__isnull=True) | Q(reserved_for=worker))
        .exclude(Exists(tried_by_worker))
        .exclude(_never_for(worker))
        .order_by()
        .values("batch")
        .annotate(n=Count("id"))
        .values("n")
    )
    batches = (
        Batch.objects.filter(state=Batch.State.OPEN)
        .prefetch_related("required_qualifications")
        .annotate(available=Coalesce(Subquery(left_for_worker), 0))
        .order_by("-opened_at", "-id")
    )
    granted = set(QualificationGrant.objects.filter(user=worker).values_list("qualification__slug", flat=True))
    disqualified = disqualifications_of(worker)
    kind_rules = kind_requirements()
    known = {kind.name: kind for kind in registry.all_kinds()}
    return [
        {
            "batch": batch,
            "kind": known.get(batch.kind),
            "eligibility": eligibility(
                worker=worker, batch=batch, granted_slugs=granted, disqualified=disqualified, kind_rules=kind_rules
            ),
            "available": batch.available,
        }
        for batch in batches
    ]


def _never_for(worker):
    """Tasks no kind would hand ``worker`` (``TaskKind.excluded_tasks``, e.g. validations
    of their own pairs), as one condition, so that counts match what hand-out gives."""
    condition = Q(pk__in=[])
    for kind in registry.all_kinds():
        excluded = kind.excluded_tasks(worker_id=worker.pk)
        if excluded is not None:
            condition |= Q(batch__kind=kind.name, pk__in=excluded.values("pk"))
    return condition


def open_assignments_for(*, worker):
    return Assignment.objects.filter(worker=worker, state=Assignment.State.ASSIGNED).select_related("batch", "task")


def history_for(*, worker):
    return (
        Assignment.objects.filter(worker=worker)
        .exclude(state=Assignment.State.ASSIGNED)
        .select_related("batch")
        .order_by("-assigned_at")
    )


def earnings_for(*, worker):
    """Approved pay and bonuses, and the pay waiting on a decision."""
    totals = Assignment.objects.filter(worker=worker).aggregate(
        earned=Sum("pay", filter=Q(state=Assignment.State.APPROVED), default=Decimal("0")),
        bonus=Sum("bonus", default=Decimal("0")),
        pending=Sum("batch__reward", filter=Q(state=Assignment.State.SUBMITTED), default=Decimal("0")),
        approved=Count("id", filter=Q(state=Assignment.State.APPROVED)),
        submitted=Count("id", filter=Q(state=Assignment.State.SUBMITTED)),
        rejected=Count("id", filter=Q(state=Assignment.State.REJECTED)),
    )
    cents = Decimal("0.01")
    for key in ("earned", "bonus", "pending"):
        # SQLite sums decimals as floats; money is shown to the cent everywhere.
        totals[key] = Decimal(str(totals[key])).quantize(cents)
    totals["total"] = totals["earned"] + totals["bonus"]
    return totals


def spot_check_sample(*, batch):
    """The batch's submissions drawn for a spot check, still waiting on a decision."""
    return Assignment.objects.filter(batch=batch, spot_check=True, state=Assignment.State.SUBMITTED).select_related(
        "worker", "task"
    )


def spot_check_counts(*, batch):
    """How far a batch's spot check has gone: submissions, the sample, and decisions."""
    state = Assignment.State
    return Assignment.objects.filter(batch=batch).aggregate(
        submitted=Count("id", filter=Q(state__in=[state.SUBMITTED, state.APPROVED, state.REJECTED])),
        sampled=Count("id", filter=Q(spot_check=True, state__in=[state.SUBMITTED, state.APPROVED, state.REJECTED])),
        waiting=Count("id", filter=Q(spot_check=True, state=state.SUBMITTED)),
        approved=Count("id", filter=Q(spot_check=True, state=state.APPROVED)),
        rejected=Count("id", filter=Q(spot_check=True, state=state.REJECTED)),
        unsampled_waiting=Count("id", filter=Q(spot_check=False, state=state.SUBMITTED)),
    )


def batches_to_spot_check():
    """Batches with sampled submissions waiting for a decision, with how many, oldest
    first: one query."""
    return (
        Batch.objects.filter(assignments__spot_check=True, assignments__state=Assignment.State.SUBMITTED)
        .annotate(waiting=Count("assignments"), since=Min("assignments__submitted_at"))
        .order_by("since", "id")
    )
