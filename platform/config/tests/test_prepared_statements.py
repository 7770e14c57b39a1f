"""Statements prepared once per PostgreSQL connection (config/postgresql/base.py,
``execute_prepared``), as the hand-out and the submission run theirs."""

import pytest
from django.db import IntegrityError, NotSupportedError, connection, transaction
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: statements are prepared only by the PostgreSQL backend")
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE prepared_probe (id integer PRIMARY KEY, label varchar(20))")
        cursor.execute("INSERT INTO prepared_probe VALUES (1, 'one'), (2, 'two')")
    return "prepared_probe"


def _run(sql, params):
    with CaptureQueriesContext(connection) as queries, connection.cursor() as cursor:
        connection.execute_prepared(cursor, sql, params)
        rows = cursor.fetchall() if cursor.description else cursor.rowcount
    (query,) = queries.captured_queries
    return rows, query["sql"]


def test_prepared_with_the_first_call_and_run_by_name_after(table):
    sql = f"SELECT label FROM {table} WHERE id = %s"
    first, sent_first = _run(sql, [1])
    second, sent_second = _run(sql, [2])
    name = connection.prepared_statements[sql]
    assert first == [("one",)] and second == [("two",)]
    assert sent_first == f"PREPARE {name} AS SELECT label FROM {table} WHERE id = $1; EXECUTE {name}(1)"
    assert sent_second == f"EXECUTE {name}(2)"


def test_a_write_counts_its_rows_prepared_or_not(table):
    sql = f"UPDATE {table} SET label = %s WHERE id = %s"
    assert _run(sql, ["uno", 1])[0] == 1
    assert _run(sql, ["none", 99])[0] == 0


def test_prepared_statements_outlive_a_rolled_back_transaction(table):
    sql = f"SELECT count(*) FROM {table} WHERE id > %s"
    with pytest.raises(RuntimeError), transaction.atomic():
        _run(sql, [0])
        raise RuntimeError("rolled back")
    assert _run(sql, [0]) == ([(2,)], f"EXECUTE {connection.prepared_statements[sql]}(0)")


def test_a_refused_first_row_still_leaves_its_statement_prepared(table):
    sql = f"INSERT INTO {table} (id, label) VALUES (%s, %s)"
    with pytest.raises(IntegrityError), transaction.atomic():
        _run(sql, [1, "again"])
    assert sql in connection.prepared_statements
    assert _run(sql, [3, "three"])[1].startswith("EXECUTE ")


def test_a_column_type_changed_under_a_prepared_statement_fails_one_call_then_prepares_again(table):
    sql = f"SELECT label FROM {table} WHERE id = %s ORDER BY label"
    _run(sql, [1])
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {table} ALTER COLUMN label TYPE text")
    with pytest.raises(NotSupportedError, match="cached plan must not change result type"), transaction.atomic():
        _run(sql, [1])
    assert sql not in connection.prepared_statements
    rows, sent = _run(sql, [1])
    assert rows == [("one",)] and sent.startswith("PREPARE ")
