"""The release benchmark's smoke run: a 1k-pair release with its own screenshots, built in
a child process on the test database, failing on a failed stage, a release that is not
whole, a 10× slowdown or a 3× bigger peak RSS."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from tests.bench.smoke import database_url

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="the benchmark loads data in PostgreSQL")


def run(*arguments, media, timeout=240, **env):
    """Runs the release benchmark with ``arguments`` in its own process; returns it finished."""
    redis = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/3")
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / "release.py"), *arguments],
        cwd=ROOT, env={**os.environ, "BENCH_REDIS_URL": redis, "MEDIA_ROOT": str(media), **env},
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_the_smoke_run_builds_a_whole_release_on_the_test_database(tmp_path):
    finished = run("--smoke", media=tmp_path / "media", BENCH_DATABASE_URL=database_url())
    output = finished.stdout + finished.stderr
    assert finished.returncode == 0, output[-4000:]
    assert "Smoke run passed." in finished.stdout, output[-4000:]
    assert "Built 1,000 pairs:" in finished.stdout, output[-4000:]
    with connection.cursor() as cursor:  # it cleans up after itself
        cursor.execute("SELECT count(*) FROM corpus_qapair")
        assert cursor.fetchone()[0] == 0
    assert not (tmp_path / "media").exists()


def test_the_smoke_run_refuses_to_run_without_a_database_to_flush(tmp_path):
    environment = {key: value for key, value in os.environ.items() if key != "BENCH_DATABASE_URL"}
    finished = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "release.py"), "--smoke"],
        cwd=ROOT, env={**environment, "MEDIA_ROOT": str(tmp_path)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert finished.returncode != 0
    assert "BENCH_DATABASE_URL" in finished.stderr
