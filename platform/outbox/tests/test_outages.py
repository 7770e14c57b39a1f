"""Writes and jobs through a broker or Redis outage, with a real Redis started on its own
port (never the shared one) and a real Celery worker: a committed write always answers
success, its job waits in the outbox, and runs once the broker is back; the worker
survives the outage; the write throttle lets writes through while Redis is down."""

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import override_settings

from assets.tests.samples import png_bytes
from config.celery import app
from moderation.models import ReviewItem
from outbox import services as outbox
from outbox.models import Job

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[3]


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class OwnRedis:
    """A redis-server of the test's own, on a free port; stopped and started at will."""

    def __init__(self, folder):
        self.port, self.folder, self.process = _free_port(), folder, None

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@pytest.fixture
def own_redis(tmp_path):
    if not shutil.which("redis-server"):
        pytest.skip("needs redis-server (scripts/test installs it)")
    redis = OwnRedis(tmp_path).start()
    yield redis
    redis.stop()


def _use_broker(url):
    """Points this process's Celery app at ``url``: new connection and producer pools."""
    app.conf.broker_url = url
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def broker(own_redis, settings, tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("a worker in another process needs a shared database server (PostgreSQL)")
    previous = app.conf.broker_url
    settings.CELERY_TASK_ALWAYS_EAGER = False
    media = tmp_path / "media"
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": media}},
    }
    _use_broker(own_redis.url)
    yield own_redis, media
    _use_broker(previous)


def _start_worker(broker_url, media, log):
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "CELERY_BROKER_URL": broker_url,
        "CELERY_RESULT_BACKEND": "",
        "MEDIA_ROOT": str(media),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "bootstrap:celery_app", "worker", "--pool", "solo",
         "--loglevel", "info", "--hostname", f"outage-{uuid.uuid4().hex[:6]}@%h"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
    )  # fmt: skip


def _upload(client):
    image = SimpleUploadedFile("s.png", png_bytes(size=(320, 200), seed=time.monotonic_ns() % 997), "image/png")
    return client.post("/api/v1/screens/", {"file": image, "url": "https://shop.example/item"}, format="multipart")


def _wait(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen within {seconds} s")


def test_a_broker_outage_delays_jobs_and_loses_none_and_the_worker_resumes(broker, rater, api_for, tmp_path):
    own_redis, media = broker
    log = tmp_path / "worker.log"
    worker = _start_worker(own_redis.url, media, log)
    try:
        client = api_for(rater)
        first = _upload(client)
        assert first.status_code == 201, first.content
        screened = ReviewItem.objects.filter(asset_id=first.json()["asset"], prescreened_at__isnull=False)
        _wait(screened.exists, 60, "the first pre-screen (worker up)")

        own_redis.stop()  # the broker goes away under a running worker
        during = _upload(client)
        assert during.status_code == 201, during.content  # the write committed: it says so
        asset_id = during.json()["asset"]
        job = Job.objects.get(task="moderation.tasks.prescreen_asset", args__0=asset_id)
        assert job.sent_at is None and job.attempts == 1 and job.last_error
        assert worker.poll() is None, log.read_text()[-2000:]

        own_redis.start()  # same port: the worker reconnects to it
        assert outbox.relay_pending(older_than_seconds=0) == 1
        screened = ReviewItem.objects.filter(asset_id=asset_id, prescreened_at__isnull=False)
        _wait(screened.exists, 90, "the pre-screen held back by the outage")
        assert Job.objects.get(pk=job.pk).sent_at is not None
        assert worker.poll() is None
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()


def test_a_job_recorded_in_a_rolled_back_transaction_is_never_sent(db):
    from django.db import transaction

    with pytest.raises(RuntimeError), transaction.atomic():
        outbox.enqueue("moderation.tasks.prescreen_asset", 1, "")
        raise RuntimeError("the write failed")
    assert not Job.objects.exists()


def test_writes_go_through_while_redis_is_down(own_redis, rater, api_for):
    from config import api as api_conventions
    from hits.models import Assignment
    from tests.factories import open_batch

    cache = {
        "default": {
            "BACKEND": "config.cache.FailSoftRedisCache",
            "LOCATION": own_redis.url,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2},
        }
    }
    batch = open_batch(tasks=2)
    client = api_for(rater)
    with override_settings(CACHES=cache):
        assert client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").status_code in (200, 201)
        own_redis.stop()
        skipped = api_conventions.THROTTLE_FAILURES
        assignment = Assignment.objects.get(worker=rater)
        done = client.post(
            f"/api/v1/assignments/{assignment.pk}/submit/",
            {"answer": {"answer": "7", "confidence": "high"}},
            format="json",
        )
        assert done.status_code == 200, done.content  # a write, throttled by a counter in Redis
        assert skipped + 1 == api_conventions.THROTTLE_FAILURES
        from django.core.cache import caches

        assert caches["default"].get("anything", "missed") == "missed"  # the cache misses, no error
