"""Folding the changes the database logged (assignments, tasks, QA pairs, screens) into the dashboards' tallies."""

from django.db import OperationalError, connection, transaction
from django.db.models import OuterRef

from . import selectors
from .models import DONE_STATES, AssignmentChange, WorkerTally
from .triggers import (
    BATCHES,
    CHANGES,
    HISTOGRAM,
    LOGS,
    QA_BREAKDOWNS,
    QA_PAIRS,
    SCREEN_CHANGES,
    SCREENS,
    SHOWN,
    SUBMISSIONS,
    TASK_CHANGES,
    TASKS,
    WORKERS,
)

# Any fixed number: the key of the advisory lock that lets one fold run at a time on PostgreSQL.
FOLD_LOCK = 5_318_009

_DONE = f"state IN ({', '.join(['%s'] * len(DONE_STATES))})"

# Each adds every logged change to one tally, creating the rows it lacks. The same SQL
# runs on PostgreSQL and SQLite (the WHERE clause keeps SQLite's parser from reading ON
# CONFLICT as part of a join).
ADDITIONS = [
    (
        f"""INSERT INTO {BATCHES} (batch_id, state, assignments)
        SELECT batch_id, state, SUM(sign) FROM {CHANGES} WHERE true GROUP BY batch_id, state
        ON CONFLICT (batch_id, state) DO UPDATE SET assignments = {BATCHES}.assignments + excluded.assignments""",
        [],
    ),
    (
        f"""INSERT INTO {SUBMISSIONS} (batch_id, hour, submitted)
        SELECT batch_id, submitted_hour, SUM(sign) FROM {CHANGES}
        WHERE submitted_hour IS NOT NULL GROUP BY batch_id, submitted_hour
        ON CONFLICT (hour, batch_id) DO UPDATE SET submitted = {SUBMISSIONS}.submitted + excluded.submitted""",
        [],
    ),
    (
        f"""INSERT INTO {WORKERS} (worker_id, done, active_seconds, earned)
        SELECT worker_id, SUM(CASE WHEN {_DONE} THEN sign ELSE 0 END),
               SUM(CASE WHEN {_DONE} THEN sign * COALESCE(active_seconds, 0) ELSE 0 END), SUM(sign * (pay + bonus))
        FROM {CHANGES} WHERE true GROUP BY worker_id
        ON CONFLICT (worker_id) DO UPDATE SET done = {WORKERS}.done + excluded.done,
            active_seconds = {WORKERS}.active_seconds + excluded.active_seconds,
            earned = {WORKERS}.earned + excluded.earned""",
        [*DONE_STATES, *DONE_STATES],
    ),
]


# The owners (traces, QA pairs) whose screens changed, each once.
_TOUCHED = f"SELECT DISTINCT kind, owner_id FROM {SCREEN_CHANGES}"
_BAR = f"""INSERT INTO {HISTOGRAM} (kind, screens, owners)
    SELECT t.kind, t.screens, {{sign}} * COUNT(*) FROM {SCREENS} t JOIN ({_TOUCHED}) AS c
    ON c.kind = t.kind AND c.owner_id = t.owner_id
    WHERE {SHOWN.format(screens="t.screens", kind="t.kind", counted="t.counted")} GROUP BY t.kind, t.screens
    ON CONFLICT (kind, screens) DO UPDATE SET owners = {HISTOGRAM}.owners + excluded.owners"""

# The tallies of tasks, QA pairs and screens, in order: the owners whose screens changed
# leave their bar of the histogram, take their changes, and join their new bar.
COUNT_ADDITIONS = [
    f"""INSERT INTO {TASKS} (batch_id, tasks, wanted)
    SELECT batch_id, SUM(sign), SUM(sign * assignments_wanted) FROM {TASK_CHANGES} WHERE true GROUP BY batch_id
    ON CONFLICT (batch_id) DO UPDATE SET tasks = {TASKS}.tasks + excluded.tasks, wanted = {TASKS}.wanted + excluded.wanted""",
    f"""INSERT INTO {QA_PAIRS} (breakdown, value, pairs)
    SELECT breakdown, value, SUM(pairs) FROM ({QA_BREAKDOWNS}) AS parts WHERE true GROUP BY breakdown, value
    ON CONFLICT (breakdown, value) DO UPDATE SET pairs = {QA_PAIRS}.pairs + excluded.pairs""",
    _BAR.format(sign=-1),
    f"""INSERT INTO {SCREENS} (kind, owner_id, screens, counted)
    SELECT kind, owner_id, SUM(screens), SUM(counted) FROM {SCREEN_CHANGES} WHERE true GROUP BY kind, owner_id
    ON CONFLICT (kind, owner_id) DO UPDATE SET screens = {SCREENS}.screens + excluded.screens,
        counted = {SCREENS}.counted + excluded.counted""",
    _BAR.format(sign=1),
    # Rows that count nothing any more are no different from rows not there.
    f"DELETE FROM {TASKS} WHERE tasks = 0",
    f"DELETE FROM {QA_PAIRS} WHERE pairs = 0",
    f"DELETE FROM {SCREENS} WHERE screens = 0 AND counted = 0",
    f"DELETE FROM {HISTOGRAM} WHERE owners = 0",
]


def _logged(cursor):
    cursor.execute(" UNION ALL ".join(f"SELECT 1 FROM (SELECT 1 FROM {log} LIMIT 1) AS {log}" for log in LOGS))
    return cursor.fetchone() is not None


def fold_changes():
    """Adds every logged change (of assignments, tasks, QA pairs, evidence and trace steps) to the tallies and deletes it, in one transaction;
    returns how many changes it folded in. Safe to run at any time, and twice at once.

    Every statement of a fold must see the same changes, and the assignments as they were
    once those changes were made (for the medians), while workers go on changing
    assignments. On PostgreSQL a fold reads one snapshot (repeatable read): changes
    committed meanwhile are left for the next fold, and until then the views add them in.
    Inside a caller's transaction it locks the log against new changes instead. One fold
    runs at a time; another one started meanwhile does nothing. SQLite lets one writer in
    at a time, which is all it takes there.
    """
    for attempt in range(3):
        try:
            return _fold()
        except OperationalError as error:
            # A rebuild of the tallies (triggers.ensure_installed) committed under the fold.
            code = getattr(error.__cause__, "pgcode", None) or getattr(error.__cause__, "sqlstate", None)
            if code not in ("40001", "40P01") or attempt == 2:
                raise
    return 0


def _fold():
    outermost = not connection.in_atomic_block
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            if outermost:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [FOLD_LOCK])
            if not cursor.fetchone()[0]:
                return 0  # another fold is running
            if not outermost:
                cursor.execute(f"LOCK TABLE {', '.join(LOGS)} IN EXCLUSIVE MODE")
        if not _logged(cursor):
            return 0
        for sql, params in ADDITIONS:
            cursor.execute(sql, params)
        for sql in COUNT_ADDITIONS:
            cursor.execute(sql)
        # A median cannot be added to: it is recomputed for every worker the fold touches.
        WorkerTally.objects.filter(worker_id__in=AssignmentChange.objects.values("worker_id")).update(
            median_seconds=selectors.median_active_seconds(OuterRef("worker_id")),
            last_submitted=selectors.last_submitted(OuterRef("worker_id")),
        )
        folded = 0
        for log in LOGS:
            cursor.execute(f"DELETE FROM {log}")
            folded += cursor.rowcount
        return folded
