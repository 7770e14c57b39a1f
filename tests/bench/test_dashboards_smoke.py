"""The dashboards benchmark's smoke run: every page and CSV table on two small data sizes,
failing on a broken page, a query count that grows with the data or a 10× slowdown."""

import pytest
from django.db import connection

from tests.bench.smoke import database_url, run_bench

pytestmark = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="the benchmark loads data in PostgreSQL")


def run(*arguments, timeout=240, **env):
    """Runs the benchmark with ``arguments`` in its own process; returns it finished."""
    return run_bench("dashboards.py", *arguments, timeout=timeout, **env)


@pytest.mark.django_db(transaction=True)
def test_the_smoke_run_passes_on_the_test_database():
    finished = run("--smoke", BENCH_DATABASE_URL=database_url())
    output = finished.stdout + finished.stderr
    assert finished.returncode == 0, output[-4000:]
    assert "smoke run in" in finished.stdout and ": passed" in finished.stdout, output[-4000:]
    # Both sizes were measured, the dataset page's CSV tables among them.
    assert "20,000 assignments and 5,000 QA pairs:" in finished.stdout
    assert "/dashboards/dataset/?format=csv&table=screens_per_example" in finished.stdout
    with connection.cursor() as cursor:  # it cleans up after itself
        cursor.execute("SELECT count(*) FROM hits_assignment")
        assert cursor.fetchone()[0] == 0


def test_the_smoke_run_refuses_to_run_without_a_database_to_flush():
    finished = run("--smoke", timeout=120)
    assert finished.returncode != 0
    assert "BENCH_DATABASE_URL" in finished.stderr
