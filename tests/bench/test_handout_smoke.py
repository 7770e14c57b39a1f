"""The hand-out benchmark's smoke run (``bench/handout.py --smoke``) passes against the
test database: no more queries per cycle than recorded, no task handed out twice, and no
cycle ten times slower than recorded. A gross regression fails here, not weeks later on
a quiet machine."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_hand_out_smoke_run_passes_within_a_minute(transactional_db):
    db = connection.settings_dict
    if connection.vendor != "postgresql":
        pytest.skip("the benchmark runs gunicorn against PostgreSQL")
    url = f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = {**os.environ, "BENCH_REDIS_URL": os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/14"}
    began = time.monotonic()
    run = subprocess.run(
        [sys.executable, "bench/handout.py", "--smoke", "--database-url", url, "--keep-database"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    took = time.monotonic() - began
    assert run.returncode == 0, run.stdout + run.stderr
    assert "queries per cycle" in run.stdout and "beyond their wanted assignments: 0" in run.stdout
    assert "raised to" in run.stdout  # the throttle the run lifts is said
    assert took < 60, f"the smoke run took {took:.0f} s:\n{run.stdout}"
