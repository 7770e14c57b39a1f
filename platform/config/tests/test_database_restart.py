"""A PostgreSQL restart costs no request after it: a kept connection that the restart
killed is checked and replaced when the next request starts (``CONN_HEALTH_CHECKS``).

The database is a throw-away cluster the test makes and starts on a port of its own,
never the shared one."""

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = """
import sys
import bootstrap  # noqa: F401
import django

django.setup()
from django.core.signals import request_finished, request_started
from django.db import connection

if sys.argv[1] == "without-checks":
    connection.settings_dict["CONN_HEALTH_CHECKS"] = False


def request():
    request_started.send(sender=None)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return "ok"
    except Exception as error:
        return type(error).__name__
    finally:
        request_finished.send(sender=None)


print(request(), flush=True)
sys.stdin.readline()  # the test restarts PostgreSQL meanwhile
print(request(), flush=True)
"""


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _tool(name):
    """A PostgreSQL server tool: on the PATH, or where Debian's packages keep it."""
    return shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)


class Cluster:
    def __init__(self, folder, port):
        self.data, self.port = folder / "data", port

    def _as_postgres(self, *command):
        return subprocess.run(
            ["runuser", "-u", "postgres", "--", *command], check=True, capture_output=True, timeout=60
        )

    def create(self):
        self._as_postgres(_tool("initdb"), "-D", str(self.data), "-A", "trust", "-U", "trailmark")

    def start(self):
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1"
        self._as_postgres(
            _tool("pg_ctl"), "-D", str(self.data), "-o", options, "-w", "start", "-l", str(self.data / "log")
        )

    def stop(self):
        self._as_postgres(_tool("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")


@pytest.fixture
def cluster():
    if not (_tool("initdb") and _tool("pg_ctl") and shutil.which("runuser")):
        pytest.skip("needs PostgreSQL's initdb and pg_ctl (scripts/test installs them)")
    # Under /tmp itself: the postgres user cannot reach into pytest's root-only folders.
    folder = Path(tempfile.mkdtemp(prefix="trailmark-pg-"))
    shutil.chown(folder, "postgres")
    server = Cluster(folder, _free_port())
    try:
        server.create()
        server.start()
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _two_requests_around_a_restart(cluster, mode):
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://trailmark@127.0.0.1:{cluster.port}/postgres",
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
    }
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, mode], cwd=ROOT, env=env, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    first = process.stdout.readline().strip()
    cluster.stop()
    cluster.start()
    time.sleep(0.2)
    process.stdin.write("\n")
    process.stdin.flush()
    second = process.stdout.readline().strip()
    process.wait(timeout=30)
    return first, second, process.stderr.read()


def test_the_first_request_after_a_postgresql_restart_succeeds(cluster):
    first, second, errors = _two_requests_around_a_restart(cluster, "with-checks")
    assert (first, second) == ("ok", "ok"), errors


def test_without_health_checks_that_request_would_fail(cluster):
    # The control: the kept connection really is dead after the restart.
    first, second, errors = _two_requests_around_a_restart(cluster, "without-checks")
    assert (first, second) == ("ok", "OperationalError"), errors
