"""What the bench scripts' smoke tests share: the test database as a URL the scripts read,
and running a script in its own process."""

import os
import subprocess
import sys
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def database_url():
    """The test database, as a URL the benchmark scripts read."""
    settings = connection.settings_dict
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    host, port = settings["HOST"] or "127.0.0.1", settings["PORT"] or 5432
    return f"postgres://{settings['USER']}{password}@{host}:{port}/{settings['NAME']}"


def run_bench(script, *arguments, timeout, **env):
    """Runs ``bench/<script>`` with ``arguments`` in its own process; returns it finished."""
    redis = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/3")
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *arguments],
        cwd=ROOT, env={**os.environ, "BENCH_REDIS_URL": redis, **env}, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
