"""A generation run through the real machinery: started over the API, planned and
generated in chunks by a Celery worker in its own process (Redis broker, PostgreSQL),
reading the pages' stored HTML from the same storage."""

import pytest

from corpus.models import Site
from generation.models import Candidate, GenerationRun
from tests.concurrency import wait_for
from tests.factories import UserFactory, make_category

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_run_started_over_the_api_is_done_by_the_worker(celery_worker, settings, api_for):
    from collection import webvln_demo

    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage",
                    "OPTIONS": {"location": celery_worker.media_root}},
    }  # fmt: skip
    for slug in ("shopping", "hotel"):  # the migration's categories, which the flushes of these tests remove
        make_category(slug)
    for username, role in (("rater", "rater"), ("reviewer", "reviewer"), ("admin", "admin")):
        UserFactory(username=username, role=role)
    webvln_demo.load(out=lambda line: None)
    books = Site.objects.get(host="demo-books.test")
    admin = api_for(UserFactory(role="admin"))
    started = admin.post("/api/v1/generation-runs/", {"sites": [books.pk], "sample_size": 2, "chunk_size": 2},
                         format="json")  # fmt: skip
    assert started.status_code == 202, started.json()
    run_id = started.json()["id"]
    assert wait_for(lambda: GenerationRun.objects.get(pk=run_id).state == "sampling", seconds=90), (
        GenerationRun.objects.values("state", "processed", "total", "failures", "message").get(pk=run_id)
    )
    run = GenerationRun.objects.get(pk=run_id)
    assert (run.total, run.processed, run.failures) == (5, 5, 0)  # five pages, three chunks
    assert Candidate.objects.filter(run=run).count() == run.candidates > 5
    assert Candidate.objects.filter(run=run, decision="sampled").count() == 2
