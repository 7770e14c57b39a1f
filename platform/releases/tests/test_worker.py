"""Release builds on a real Celery worker over PostgreSQL: a release of the demo data and
its rebuild, a worker killed mid-build, and what never ships.

The worker here is this module's own (not the session's shared one): it is killed on
purpose, and it must share a storage folder with the tests, which it reads from
``MEDIA_ROOT``."""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import connection

from assets.models import Asset
from config.celery import app
from corpus.models import QAPair
from releases import services
from releases.models import Release, ReleaseFile

from . import data
from .helpers import paths, read

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[3]


def _requirements():
    if not django_settings.CELERY_BROKER_URL:
        pytest.skip("needs a broker: set REDIS_URL (scripts/test does)")
    if connection.vendor != "postgresql":
        pytest.skip("a worker in another process needs a shared database server (PostgreSQL)")


@pytest.fixture
def shared_media(settings, tmp_path):
    """A storage folder the worker and the tests both use; builds go to this test's queue."""
    folder = tmp_path / "shared-media"
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": folder}},
    }
    settings.RELEASE_QUEUE = f"releases-test-{uuid.uuid4().hex[:8]}"
    return folder


@pytest.fixture
def start_worker(shared_media, settings, tmp_path):
    """Starts a worker on the test's release queue; returns its process. Stopped at the end."""
    _requirements()

    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "MEDIA_ROOT": str(shared_media),
        "RELEASE_CHUNK_SIZE": "1",  # many small steps: a build lasts long enough to be killed
    }
    processes = []

    def start():
        log = tmp_path / f"worker-{len(processes)}.log"
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "bootstrap:celery_app", "worker", "--pool", "solo",
             "-Q", settings.RELEASE_QUEUE, "--loglevel", "info",
             "--hostname", f"releases-{uuid.uuid4().hex[:6]}@%h"],
            cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        processes.append(process)
        deadline = time.monotonic() + 60
        while not app.control.ping(destination=None, timeout=0.5):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("The Celery worker did not start:\n" + log.read_text())
        return process

    yield start
    for process in processes:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def _wait(release, until, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        release = Release.objects.get(pk=release.pk)
        if until(release):
            return release
        time.sleep(0.05)
    raise AssertionError(f"{release} stayed {release.state} at {release.stage} {release.progress_done}")


def test_a_release_of_the_demo_data_builds_on_the_worker_and_rebuilds_identically(start_worker, admin_user):
    start_worker()
    call_command("load_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
    pending = QAPair.objects.get(split_kind="single_screen").evidence.get().screen.asset
    Asset.objects.exclude(pk=pending.pk).update(review_state="cleared")
    definition = services.create_release(
        name="demo", version="1.0.0", families=["webquest", "webqa", "webvln"],
        qa_states=["accepted", "pending_validation"], created_by=admin_user,
    )  # fmt: skip
    services.start_build(release=definition)
    built = _wait(definition, lambda r: r.state in ("published", "failed"))
    assert built.state == "published", built.message
    # The multi-screen example, the four WebQA examples and the twelve navigation episodes
    # on the demo websites; the single-screen one's screen is not cleared.
    assert built.counts["items"] == 17 and built.counts["excluded"] == {"uncleared_evidence": 1}
    assert built.counts["families"]["webvln"] == 12
    assert {"webqa/WebQA_train_val.json", "webqa/imgs.tsv", "webqa/imgs.lineidx"} <= set(paths(built))
    assert {"webvln/map.json", "webvln/pages.json", "webvln/seen/test.json"} <= set(paths(built))
    everything = b"".join(read(built, path) for path in sorted(paths(built)))
    assert pending.sha256.encode() not in everything

    services.request_rebuild_check(release=built)
    checked = _wait(built, lambda r: r.rebuild_check is not None)
    assert checked.rebuild_check["identical"], checked.rebuild_check


def test_a_build_killed_midway_publishes_nothing_and_a_rerun_succeeds(start_worker, admin_user, rater, settings):
    worker = start_worker()
    for _ in range(60):
        data.screen_pair(rater)
    definition = services.create_release(name="killed", version="1.0.0", families=["webquest"], created_by=admin_user)
    services.start_build(release=definition)
    running = _wait(definition, lambda r: r.state == "building" and r.stage in ("records", "images"))
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    stopped = Release.objects.get(pk=running.pk)
    assert stopped.state == "building" and not ReleaseFile.objects.filter(release=stopped).exists()
    assert stopped.storage_prefix == ""

    with pytest.raises(services.BuildRunning):  # still reporting recently: not taken for dead yet
        services.start_build(release=stopped)
    settings.RELEASE_STALE_SECONDS = 0
    start_worker()
    services.start_build(release=stopped)
    built = _wait(stopped, lambda r: r.state in ("published", "failed"))
    assert built.state == "published", built.message
    assert built.attempt == 2 and built.counts["items"] == 60
    first_attempt = Path(settings.STORAGES["default"]["OPTIONS"]["location"]) / "releases/killed/1.0.0/build-1"
    assert not [path for path in first_attempt.rglob("*") if path.is_file()]  # its files are deleted


def test_an_evaluation_is_scored_by_the_worker(start_worker, admin_user, rater):
    import io
    import json

    from conftest import token_client
    from releases import evaluation
    from releases.models import Evaluation

    from .helpers import build_now, release

    for n in range(4):
        data.screen_pair(rater, answer=f"${n + 3}.25")
    built = build_now(release(admin_user, families=["webquest"], split_strategy="random", train_percent=1,
                              val_percent=0))  # fmt: skip
    gold = evaluation.load_gold(release=built, family="webquest", split="test")
    assert gold
    start_worker()
    predictions = {item_id: item["answers"][0].replace("$", "") + " dollars" for item_id, item in gold.items()}
    upload = io.BytesIO(json.dumps(predictions).encode())
    upload.name = "predictions.json"
    response = token_client(rater).post(
        f"/api/v1/releases/{built.pk}/evaluations/",
        {"family": "webquest", "split": "test", "name": "dollars", "predictions": upload},
        format="multipart",
    )
    assert response.status_code == 202, response.json()
    deadline = time.monotonic() + 60
    while (run := Evaluation.objects.get(pk=response.json()["id"])).state not in ("done", "failed"):
        assert time.monotonic() < deadline, run.state
        time.sleep(0.1)
    assert run.state == "done", run.message
    assert run.metrics == {"relaxed_accuracy": 1.0} and run.count == len(gold) and run.missing == 0
