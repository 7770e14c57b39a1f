"""The database health check of every request (config/postgresql/base.py): an idle
healthy connection is judged by its socket, with nothing sent to the server; one that
the server ended is found out and replaced."""

import time

import pytest
from django.db import connection, connections
from django.db.utils import ConnectionHandler

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def own_connection():
    """A connection of its own (outside the test's), to the test database."""
    handler = ConnectionHandler({"default": {**connection.settings_dict}})
    own = handler["default"]
    if own.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: this health check is the PostgreSQL backend's (the SQLite run has none)")
    own.ensure_connection()
    yield own
    own.close()


def _last_statement(pid):
    """The last statement of the server process ``pid``; None once it is gone."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return row[0] if row else None


def test_an_idle_healthy_connection_is_usable_without_a_round_trip(own_connection):
    with own_connection.cursor() as cursor:
        cursor.execute("SELECT 'the last statement'")
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    assert _last_statement(pid) == "SELECT pg_backend_pid()"
    assert own_connection.is_usable()
    assert _last_statement(pid) == "SELECT pg_backend_pid()"


def test_a_connection_the_server_ended_is_found_out(own_connection):
    with own_connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    for _ in range(100):  # the server process ends
        if _last_statement(pid) is None:
            break
        time.sleep(0.02)
    assert not own_connection.is_usable()
    own_connection.close_if_unusable_or_obsolete()  # as a request starts
    own_connection.close_if_health_check_failed()  # as its first query does
    assert own_connection.connection is None


def test_after_an_error_the_server_is_asked(own_connection):
    with own_connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    own_connection.errors_occurred = True
    assert own_connection.is_usable()
    assert _last_statement(pid) == "SELECT 1"
