"""Fixtures shared by every test in the project."""

import os

import pytest
from rest_framework.test import APIClient

from accounts import services as accounts
from accounts.models import Role
from tests.factories import UserFactory

# Playwright's sync API runs an event loop in the test thread; the ORM calls the
# browser tests make around it are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Throttle counters live in the cache (Redis under scripts/test): start each test clean.
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    """Uploaded files go to a fresh, empty folder per test (never into the project's
    var/); returns it. Assigning STORAGES resets Django's storage cache, so
    ``default_storage`` follows."""
    folder = tmp_path / "media"
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": folder},
        },
    }
    return folder


@pytest.fixture
def rater(db):
    return UserFactory(role=Role.RATER)


@pytest.fixture
def other_rater(db):
    return UserFactory(role=Role.RATER)


@pytest.fixture
def reviewer(db):
    return UserFactory(role=Role.REVIEWER)


@pytest.fixture
def admin_user(db):
    return UserFactory(role=Role.ADMIN)


def token_client(user):
    """An API client that authenticates with a real API token, as scripts do."""
    _token, key = accounts.create_api_token(user=user, name="tests")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def api_for():
    return token_client


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """A real Celery worker with embedded beat, in its own process, on the Redis broker,
    using the test database. Beat sweeps for expired assignments every second."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    from django.conf import settings
    from django.db import connection

    from config.celery import app

    if not settings.CELERY_BROKER_URL:
        pytest.skip("needs a broker: set REDIS_URL (scripts/test does)")
    db = connection.settings_dict
    if connection.vendor != "postgresql":
        pytest.skip("a worker in another process needs a shared database server (PostgreSQL)")
    database_url = f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    app.control.purge()
    workdir = tmp_path_factory.mktemp("celery")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "EXPIRY_SWEEP_SECONDS": "1",
        # The worker's own files: tests that share files with it point their settings here
        # (``celery_worker.media_root``, ``celery_worker.import_root``).
        "MEDIA_ROOT": str(workdir / "media"),
        "POOL_IMPORT_ROOT": str(workdir / "imports"),
    }
    (workdir / "imports").mkdir()
    log = open(workdir / "worker.log", "w")  # noqa: SIM115 (closed at teardown)
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "bootstrap:celery_app", "worker", "--beat", "--pool", "solo",
         "--loglevel", "info", "--schedule", str(workdir / "beat-schedule"), "--hostname", f"tests-{os.getpid()}@%h"],
        cwd=Path(__file__).parent, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    process.media_root, process.import_root = workdir / "media", workdir / "imports"
    try:
        deadline = time.monotonic() + 60
        while not app.control.ping(timeout=0.5):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("The Celery worker did not start:\n" + (workdir / "worker.log").read_text())
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under scripts/test (REQUIRE_REAL_SERVICES=1) a test skipped for want of PostgreSQL,
    Redis or Chromium fails instead: CI must never pass by skipping the real thing."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("REQUIRE_REAL_SERVICES") == "1" and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"Skipped, but scripts/test requires the real services: {reason}"
