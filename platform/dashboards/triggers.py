"""The database side of the tallies: triggers that log every change to a counted column of
``hits_assignment`` as ``AssignmentChange`` rows, and the ``…Total`` views that add those
rows to the tallies.

They are put in place after every ``migrate`` (and test-database flush), not by a
migration, because SQLite drops a table's triggers whenever Django rebuilds the table to
alter it. When a trigger was missing, the tallies are rebuilt: emptied, and every
assignment logged as if just made, for the next fold to add up. To change a trigger or a
view, write a migration that calls ``uninstall``; the next check installs the new ones.
"""

from django.db import connections, transaction

from .models import DONE_STATES, AssignmentChange, BatchTally, SubmissionTally, WorkerTally

SOURCE = "hits_assignment"
CHANGES, BATCHES, SUBMISSIONS, WORKERS = (
    model._meta.db_table for model in (AssignmentChange, BatchTally, SubmissionTally, WorkerTally)
)
COLUMNS = "sign, worker_id, batch_id, state, submitted_at, submitted_hour, active_seconds, pay, bonus"
# The columns of hits_assignment the dashboards count. Renaming or dropping one of them
# needs a migration here that calls ``uninstall``, or every write of assignments fails.
COUNTED = ("worker_id", "batch_id", "state", "submitted_at", "active_seconds", "pay", "bonus")
# The submission's hour in UTC, so that the views can group changes like the tallies.
HOUR = {"postgresql": "date_trunc('hour', {}, 'UTC')", "sqlite": "strftime('%Y-%m-%d %H:00:00', {})"}
TRIGGERS = ("dashboards_assignment_inserted", "dashboards_assignment_deleted", "dashboards_assignment_updated")
_DONE = ", ".join(f"'{state}'" for state in DONE_STATES)

# Each view is its tally plus the changes not folded in yet. A fold moves rows from one to
# the other in one transaction, so a query sees the same sums before and after it.
VIEWS = {
    "dashboards_batchstatetotal": f"""
        SELECT batch_id, state, CAST(SUM(assignments) AS bigint) AS assignments FROM (
            SELECT batch_id, state, assignments FROM {BATCHES}
            UNION ALL
            SELECT batch_id, state, sign FROM {CHANGES}
        ) AS parts GROUP BY batch_id, state""",
    "dashboards_submissiontotal": f"""
        SELECT batch_id, hour, CAST(SUM(submitted) AS bigint) AS submitted FROM (
            SELECT batch_id, hour, submitted FROM {SUBMISSIONS}
            UNION ALL
            SELECT batch_id, submitted_hour, sign FROM {CHANGES} WHERE submitted_hour IS NOT NULL
        ) AS parts GROUP BY batch_id, hour""",
    # Per worker, changes are grouped by active time and by submission time too: a value
    # whose count is unchanged (a decision takes a submission out in one state and puts it
    # back in another) leaves the median and the latest submission as the fold left them.
    "dashboards_workertotal": f"""
        SELECT worker_id, CAST(SUM(done) AS bigint) AS done, CAST(SUM(active_seconds) AS bigint) AS active_seconds,
               SUM(earned) AS earned, MAX(median_seconds) AS median_seconds, MAX(last_submitted) AS last_submitted,
               CAST(SUM(times_changed) AS bigint) AS times_changed,
               CAST(SUM(submissions_changed) AS bigint) AS submissions_changed
        FROM (
            SELECT worker_id, done, active_seconds, earned, median_seconds, last_submitted,
                   0 AS times_changed, 0 AS submissions_changed
            FROM {WORKERS}
            UNION ALL
            SELECT worker_id, SUM(CASE WHEN state IN ({_DONE}) THEN sign ELSE 0 END),
                   SUM(CASE WHEN state IN ({_DONE}) THEN sign * COALESCE(active_seconds, 0) ELSE 0 END),
                   SUM(sign * (pay + bonus)), NULL, NULL,
                   CASE WHEN SUM(CASE WHEN state IN ({_DONE}) AND active_seconds IS NOT NULL THEN sign ELSE 0 END) <> 0
                        THEN 1 ELSE 0 END,
                   0
            FROM {CHANGES} GROUP BY worker_id, active_seconds
            UNION ALL
            SELECT worker_id, 0, 0, 0, NULL, NULL, 0, CASE WHEN SUM(sign) <> 0 THEN 1 ELSE 0 END
            FROM {CHANGES} WHERE submitted_at IS NOT NULL GROUP BY worker_id, submitted_at
        ) AS parts GROUP BY worker_id""",
}


def _values(vendor, sign, row=""):
    """The change row for one assignment row (``NEW.``, ``OLD.`` or a plain table row)."""
    hour = HOUR[vendor].format(f"{row}submitted_at")
    return (
        f"{sign}, {row}worker_id, {row}batch_id, {row}state, {row}submitted_at, {hour}, "
        f"{row}active_seconds, {row}pay, {row}bonus"
    )


def _postgresql_triggers():
    inserted, deleted, updated = TRIGGERS
    changed = " OR ".join(f"OLD.{column} IS DISTINCT FROM NEW.{column}" for column in COUNTED)
    # Inserts and deletes come in bulk too (loads, cascades): a statement-level trigger
    # reads them all from the transition table at once. Most updates (drafts) change
    # nothing counted: a row-level trigger that its WHEN clause skips.
    return [
        f"""CREATE OR REPLACE FUNCTION {inserted}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO {CHANGES} ({COLUMNS}) SELECT {_values("postgresql", 1)} FROM new_rows;
            RETURN NULL;
        END $$""",
        f"""CREATE TRIGGER {inserted} AFTER INSERT ON {SOURCE}
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {inserted}()""",
        f"""CREATE OR REPLACE FUNCTION {deleted}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO {CHANGES} ({COLUMNS}) SELECT {_values("postgresql", -1)} FROM old_rows;
            RETURN NULL;
        END $$""",
        f"""CREATE TRIGGER {deleted} AFTER DELETE ON {SOURCE}
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION {deleted}()""",
        f"""CREATE OR REPLACE FUNCTION {updated}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO {CHANGES} ({COLUMNS})
            VALUES ({_values("postgresql", -1, "OLD.")}), ({_values("postgresql", 1, "NEW.")});
            RETURN NULL;
        END $$""",
        f"""CREATE TRIGGER {updated} AFTER UPDATE ON {SOURCE} FOR EACH ROW
        WHEN ({changed}) EXECUTE FUNCTION {updated}()""",
    ]


def _sqlite_triggers():
    inserted, deleted, updated = TRIGGERS
    changed = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in COUNTED)
    return [
        f"""CREATE TRIGGER {inserted} AFTER INSERT ON {SOURCE} BEGIN
            INSERT INTO {CHANGES} ({COLUMNS}) VALUES ({_values("sqlite", 1, "NEW.")});
        END""",
        f"""CREATE TRIGGER {deleted} AFTER DELETE ON {SOURCE} BEGIN
            INSERT INTO {CHANGES} ({COLUMNS}) VALUES ({_values("sqlite", -1, "OLD.")});
        END""",
        f"""CREATE TRIGGER {updated} AFTER UPDATE ON {SOURCE} WHEN {changed} BEGIN
            INSERT INTO {CHANGES} ({COLUMNS})
            VALUES ({_values("sqlite", -1, "OLD.")}), ({_values("sqlite", 1, "NEW.")});
        END""",
    ]


def _installed(cursor, vendor):
    """The names of this module's triggers and views that the database has."""
    if vendor == "postgresql":
        cursor.execute(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND tgname LIKE 'dashboards%%'"
            " UNION ALL SELECT viewname FROM pg_views WHERE schemaname = current_schema()",
            [SOURCE],
        )
    else:
        cursor.execute("SELECT name FROM sqlite_master WHERE type IN ('trigger', 'view')")
    return {name for (name,) in cursor.fetchall()}


def ensure_installed(*, using="default"):
    """Puts back whatever trigger or view is missing; after a missing trigger, rebuilds
    the tallies. Returns True if it had anything to do."""
    connection = connections[using]
    vendor = connection.vendor
    if vendor not in HOUR:
        raise NotImplementedError(f"The dashboards' triggers are written for PostgreSQL and SQLite, not {vendor}.")
    with transaction.atomic(using=using), connection.cursor() as cursor:
        tables = set(connection.introspection.table_names(cursor))
        if not {SOURCE, CHANGES, BATCHES, SUBMISSIONS, WORKERS} <= tables:
            return False  # migrated to before the tallies, or to before the assignments
        installed = _installed(cursor, vendor)
        triggers_missing = not set(TRIGGERS) <= installed
        if not triggers_missing and set(VIEWS) <= installed:
            return False
        if vendor == "postgresql":
            # Writers of assignments wait until the triggers are back and every assignment
            # is logged, so that none is missed or counted twice.
            cursor.execute(f"LOCK TABLE {SOURCE} IN SHARE ROW EXCLUSIVE MODE")
        _drop(cursor, vendor)
        for statement in _postgresql_triggers() if vendor == "postgresql" else _sqlite_triggers():
            cursor.execute(statement)
        for view, query in VIEWS.items():
            cursor.execute(f"CREATE VIEW {view} AS {query}")
        if triggers_missing:
            for table in (CHANGES, BATCHES, SUBMISSIONS, WORKERS):
                cursor.execute(f"DELETE FROM {table}")
            cursor.execute(f"INSERT INTO {CHANGES} ({COLUMNS}) SELECT {_values(vendor, 1)} FROM {SOURCE}")
    return True


def uninstall(apps=None, schema_editor=None):
    """Drops the triggers and views (usable as a migration's ``RunPython``)."""
    connection = schema_editor.connection if schema_editor else connections["default"]
    with connection.cursor() as cursor:
        _drop(cursor, connection.vendor)


def _drop(cursor, vendor):
    for view in VIEWS:
        cursor.execute(f"DROP VIEW IF EXISTS {view}")
    for trigger in TRIGGERS:
        if vendor == "postgresql":
            cursor.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {SOURCE}")
            cursor.execute(f"DROP FUNCTION IF EXISTS {trigger}()")
        else:
            cursor.execute(f"DROP TRIGGER IF EXISTS {trigger}")
