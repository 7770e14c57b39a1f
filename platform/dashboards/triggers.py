"""The database side of the tallies: triggers that log every counted change to the rows the
dashboards count (assignments, tasks, QA pairs, evidence, trace steps) as change rows, and
the ``…Total`` views that add those rows to the tallies.

They are put in place after every ``migrate`` (and test-database flush), not by a
migration, because SQLite drops a table's triggers whenever Django rebuilds the table to
alter it. When a trigger was missing, the tallies are rebuilt: emptied, and every
counted row logged as if just made, for the next fold to add up. To change a trigger or a
view, write a migration that calls ``uninstall``; the next check installs the new ones.
"""

from dataclasses import dataclass

from django.db import connections, transaction

from .models import (
    DONE_STATES,
    AssignmentChange,
    BatchTally,
    QAPairChange,
    QAPairTally,
    ScreenChange,
    ScreenHistogram,
    ScreenKind,
    ScreenTally,
    SubmissionTally,
    TaskChange,
    TaskTally,
    WorkerTally,
)

SOURCE = "hits_assignment"
CHANGES, BATCHES, SUBMISSIONS, WORKERS = (
    model._meta.db_table for model in (AssignmentChange, BatchTally, SubmissionTally, WorkerTally)
)
TASK_CHANGES, TASKS, QA_CHANGES, QA_PAIRS = (
    model._meta.db_table for model in (TaskChange, TaskTally, QAPairChange, QAPairTally)
)
SCREEN_CHANGES, SCREENS, HISTOGRAM = (model._meta.db_table for model in (ScreenChange, ScreenTally, ScreenHistogram))
# Every change log, each emptied by a fold.
LOGS = (CHANGES, TASK_CHANGES, QA_CHANGES, SCREEN_CHANGES)
TALLIES = (BATCHES, SUBMISSIONS, WORKERS, TASKS, QA_PAIRS, SCREENS, HISTOGRAM)
COLUMNS = "sign, worker_id, batch_id, state, submitted_at, submitted_hour, active_seconds, pay, bonus"
# The submission's hour in UTC, so that the views can group changes like the tallies.
HOUR = {"postgresql": "date_trunc('hour', {}, 'UTC')", "sqlite": "strftime('%Y-%m-%d %H:00:00', {})"}
MULTI_SCREEN = "multi_screen"  # corpus.QAPair.SplitKind.MULTI_SCREEN
_DONE = ", ".join(f"'{state}'" for state in DONE_STATES)


@dataclass(frozen=True)
class Log:
    """What a counted table writes to one change log: ``values`` gives the change row's
    values for a row (``{row}`` is ``NEW.``, ``OLD.`` or nothing, ``{sign}`` is 1 or -1),
    for the rows ``only`` keeps; an update logs when one of ``counted`` changed."""

    table: str
    columns: str
    values: str
    counted: tuple
    only: str = "true"

    def select(self, vendor, sign, row=""):
        values = self.values.format(row=row, sign=sign, hour=HOUR[vendor].format(f"{row}submitted_at"))
        return f"SELECT {values}", self.only.format(row=row)


@dataclass(frozen=True)
class Source:
    """A table the dashboards count, the name its triggers go by, and its logs."""

    table: str
    name: str
    logs: tuple
    # PostgreSQL skips unchanged rows in the trigger's WHEN clause, before calling it: the
    # cheapest way, for the assignments' many draft saves. But a column a WHEN clause
    # names cannot change type (ALTER TABLE fails) until the trigger is dropped, so the
    # other tables, seldom updated, check inside the function, and their apps' migrations
    # stay free to alter them.
    skip_in_when: bool = False

    @property
    def triggers(self):
        return tuple(f"dashboards_{self.name}_{event}" for event in ("inserted", "deleted", "updated"))


SOURCES = (
    Source(
        SOURCE,
        "assignment",
        skip_in_when=True,
        logs=(
            Log(
                CHANGES,
                COLUMNS,
                "{sign}, {row}worker_id, {row}batch_id, {row}state, {row}submitted_at, {hour}, "
                "{row}active_seconds, {row}pay, {row}bonus",
                # Renaming or dropping one of these columns needs a migration here that calls
                # ``uninstall``, or every write of the table fails. Likewise below.
                ("worker_id", "batch_id", "state", "submitted_at", "active_seconds", "pay", "bonus"),
            ),
        ),
    ),
    Source(
        "hits_task",
        "task",
        (
            Log(
                TASK_CHANGES,
                "sign, batch_id, assignments_wanted",
                "{sign}, {row}batch_id, {row}assignments_wanted",
                ("batch_id", "assignments_wanted"),
            ),
        ),
    ),  # fmt: skip
    Source(
        "corpus_qapair",
        "qapair",
        (
            Log(
                QA_CHANGES,
                "sign, family, split_kind, category_id, state, question_category, reasoning_types",
                "{sign}, {row}family, {row}split_kind, COALESCE({row}category_id, 0), {row}state, "
                "{row}question_category, CAST({row}reasoning_types AS text)",
                ("family", "split_kind", "category_id", "state", "question_category", "reasoning_types"),
            ),
            Log(
                SCREEN_CHANGES,
                "kind, owner_id, screens, counted",
                f"'{ScreenKind.EXAMPLE.value}', {{row}}id, 0, {{sign}}",
                ("split_kind",),
                f"{{row}}split_kind = '{MULTI_SCREEN}'",
            ),
        ),
    ),
    Source(
        "corpus_evidence",
        "evidence",
        (
            Log(
                SCREEN_CHANGES,
                "kind, owner_id, screens, counted",
                f"'{ScreenKind.EXAMPLE.value}', {{row}}qa_pair_id, {{sign}}, 0",
                ("qa_pair_id",),
            ),
        ),
    ),  # fmt: skip
    Source(
        "corpus_tracestep",
        "tracestep",
        (
            Log(
                SCREEN_CHANGES,
                "kind, owner_id, screens, counted",
                f"'{ScreenKind.TRACE.value}', {{row}}trace_id, {{sign}}, 0",
                ("trace_id",),
            ),
        ),
    ),  # fmt: skip
)
TRIGGERS = tuple(trigger for source in SOURCES for trigger in source.triggers)

# The QA pair changes one row per breakdown: (breakdown, value, sign).
QA_BREAKDOWNS = "\n            UNION ALL ".join(
    f"SELECT '{column}' AS breakdown, {value} AS value, sign AS pairs FROM {QA_CHANGES}"
    for column, value in [
        ("family", "family"),
        ("split_kind", "split_kind"),
        ("category_id", "CAST(category_id AS text)"),
        ("state", "state"),
        ("question_category", "question_category"),
        ("reasoning_types", "reasoning_types"),
    ]
)

# An owner (trace or QA pair) counts in the screens histogram when it has screens and is a
# trace or a multi-screen QA pair.
SHOWN = f"{{screens}} > 0 AND ({{kind}} = '{ScreenKind.TRACE.value}' OR {{counted}} > 0)"
# The owners with changes not folded in yet, with those changes summed.
TOUCHED = f"SELECT kind, owner_id, SUM(screens) AS screens, SUM(counted) AS counted FROM {SCREEN_CHANGES} GROUP BY kind, owner_id"

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
    "dashboards_batchtasktotal": f"""
        SELECT batch_id, CAST(SUM(tasks) AS bigint) AS tasks, CAST(SUM(wanted) AS bigint) AS wanted FROM (
            SELECT batch_id, tasks, wanted FROM {TASKS}
            UNION ALL
            SELECT batch_id, sign, sign * assignments_wanted FROM {TASK_CHANGES}
        ) AS parts GROUP BY batch_id HAVING SUM(tasks) <> 0""",
    "dashboards_qapairtotal": f"""
        SELECT breakdown, value, CAST(SUM(pairs) AS bigint) AS pairs FROM (
            SELECT breakdown, value, pairs FROM {QA_PAIRS}
            UNION ALL
            {QA_BREAKDOWNS}
        ) AS parts GROUP BY breakdown, value HAVING SUM(pairs) <> 0""",
    # The histogram as of the last fold; each owner with changes since leaves its old bar
    # and joins its new one.
    "dashboards_screentotal": f"""
        SELECT kind, screens, CAST(SUM(owners) AS bigint) AS owners FROM (
            SELECT kind, screens, owners FROM {HISTOGRAM}
            UNION ALL
            SELECT t.kind, t.screens, -1 FROM ({TOUCHED}) AS c
            JOIN {SCREENS} t ON t.kind = c.kind AND t.owner_id = c.owner_id
            WHERE {SHOWN.format(screens="t.screens", kind="t.kind", counted="t.counted")}
            UNION ALL
            SELECT c.kind, COALESCE(t.screens, 0) + c.screens, 1 FROM ({TOUCHED}) AS c
            LEFT JOIN {SCREENS} t ON t.kind = c.kind AND t.owner_id = c.owner_id
            WHERE {
        SHOWN.format(
            screens="COALESCE(t.screens, 0) + c.screens", kind="c.kind", counted="COALESCE(t.counted, 0) + c.counted"
        )
    }
        ) AS parts GROUP BY kind, screens HAVING SUM(owners) <> 0""",
}


def _inserts(vendor, source, sign, rows):
    """Statements logging ``rows`` (``new_rows``, ``old_rows`` or the table) of a source."""
    statements = []
    for log in source.logs:
        select, only = log.select(vendor, sign)
        statements.append(f"INSERT INTO {log.table} ({log.columns}) {select} FROM {rows} WHERE {only}")
    return statements


def _updates(vendor, source):
    """Statements logging an updated row: old values out, new ones in, for each log whose
    counted columns changed."""
    distinct = "IS DISTINCT FROM" if vendor == "postgresql" else "IS NOT"
    statements = []
    for log in source.logs:
        changed = " OR ".join(f"OLD.{column} {distinct} NEW.{column}" for column in log.counted)
        for sign, row in ((-1, "OLD."), (1, "NEW.")):
            select, only = log.select(vendor, sign, row)
            statements.append(f"INSERT INTO {log.table} ({log.columns}) {select} WHERE ({changed}) AND {only}")
    return statements, " OR ".join(
        dict.fromkeys(f"OLD.{column} {distinct} NEW.{column}" for log in source.logs for column in log.counted)
    )


def _postgresql_triggers(source):
    inserted, deleted, updated = source.triggers
    table = source.table
    updates, changed = _updates("postgresql", source)
    body = "\n".join(f"{statement};" for statement in updates)
    # Inserts and deletes come in bulk too (loads, cascades): a statement-level trigger
    # reads them all from the transition table at once. Most updates (drafts) change
    # nothing counted: a row-level trigger that its WHEN clause skips.
    return [
        f"""CREATE OR REPLACE FUNCTION {inserted}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            {"; ".join(_inserts("postgresql", source, 1, "new_rows"))};
            RETURN NULL;
        END $$""",
        f"""CREATE TRIGGER {inserted} AFTER INSERT ON {table}
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {inserted}()""",
        f"""CREATE OR REPLACE FUNCTION {deleted}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            {"; ".join(_inserts("postgresql", source, -1, "old_rows"))};
            RETURN NULL;
        END $$""",
        f"""CREATE TRIGGER {deleted} AFTER DELETE ON {table}
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION {deleted}()""",
        f"""CREATE OR REPLACE FUNCTION {updated}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            {body}
            RETURN NULL;
        END $$""",
        f"""CREATE TRIGGER {updated} AFTER UPDATE ON {table} FOR EACH ROW
        {f"WHEN ({changed})" if source.skip_in_when else ""} EXECUTE FUNCTION {updated}()""",
    ]


def _sqlite_triggers(source):
    inserted, deleted, updated = source.triggers
    table = source.table
    updates, changed = _updates("sqlite", source)

    def each(statements):
        return " ".join(f"{statement};" for statement in statements)

    def row_inserts(sign, row):
        statements = []
        for log in source.logs:
            select, only = log.select("sqlite", sign, row)
            statements.append(f"INSERT INTO {log.table} ({log.columns}) {select} WHERE {only}")
        return statements

    return [
        f"CREATE TRIGGER {inserted} AFTER INSERT ON {table} BEGIN {each(row_inserts(1, 'NEW.'))} END",
        f"CREATE TRIGGER {deleted} AFTER DELETE ON {table} BEGIN {each(row_inserts(-1, 'OLD.'))} END",
        f"CREATE TRIGGER {updated} AFTER UPDATE ON {table} WHEN {changed} BEGIN {each(updates)} END",
    ]


def _installed(cursor, vendor):
    """The names of this module's triggers and views that the database has."""
    if vendor == "postgresql":
        cursor.execute(
            "SELECT tgname FROM pg_trigger WHERE tgname LIKE 'dashboards%%' AND NOT tgisinternal"
            " UNION ALL SELECT viewname FROM pg_views WHERE schemaname = current_schema()"
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
        if not {source.table for source in SOURCES} | set(LOGS) | set(TALLIES) <= tables:
            return False  # migrated to before the tallies, or to before what they count
        installed = _installed(cursor, vendor)
        triggers_missing = not set(TRIGGERS) <= installed
        if not triggers_missing and set(VIEWS) <= installed:
            return False
        if vendor == "postgresql":
            # Writers of assignments wait until the triggers are back and every assignment
            # is logged, so that none is missed or counted twice.
            tables = ", ".join(source.table for source in SOURCES)
            cursor.execute(f"LOCK TABLE {tables} IN SHARE ROW EXCLUSIVE MODE")
        _drop(cursor, vendor)
        for source in SOURCES:
            for statement in _postgresql_triggers(source) if vendor == "postgresql" else _sqlite_triggers(source):
                cursor.execute(statement)
        for view, query in VIEWS.items():
            cursor.execute(f"CREATE VIEW {view} AS {query}")
        if triggers_missing:
            for table in (*LOGS, *TALLIES):
                cursor.execute(f"DELETE FROM {table}")
            for source in SOURCES:
                for statement in _inserts(vendor, source, 1, source.table):
                    cursor.execute(statement)
    return True


def uninstall(apps=None, schema_editor=None):
    """Drops the triggers and views (usable as a migration's ``RunPython``)."""
    connection = schema_editor.connection if schema_editor else connections["default"]
    with connection.cursor() as cursor:
        _drop(cursor, connection.vendor)


def _drop(cursor, vendor):
    for view in VIEWS:
        cursor.execute(f"DROP VIEW IF EXISTS {view}")
    for source in SOURCES:
        for trigger in source.triggers:
            if vendor == "postgresql":
                cursor.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {source.table}")
                cursor.execute(f"DROP FUNCTION IF EXISTS {trigger}()")
            else:
                cursor.execute(f"DROP TRIGGER IF EXISTS {trigger}")
