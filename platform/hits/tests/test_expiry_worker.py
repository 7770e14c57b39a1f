"""Expiry through the real machinery: Celery beat, the Redis broker and a worker process."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hits import services, tasks
from hits.models import Assignment
from tests.concurrency import wait_for
from tests.factories import open_batch

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_abandoned_assignment_expires_by_beat_and_the_task_is_handed_out_again(celery_worker, rater, other_rater):
    batch = open_batch(tasks=1, wanted=1)
    abandoned, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    Assignment.objects.filter(pk=abandoned.pk).update(expires_at=timezone.now() - timedelta(seconds=1))

    assert wait_for(lambda: Assignment.objects.get(pk=abandoned.pk).state == "expired"), "beat never expired it"
    handed, created = services.request_next_task(worker=other_rater, batch_id=batch.pk)
    assert created and handed.task_id == abandoned.task_id


def test_expiry_job_runs_on_the_worker_and_reports_its_count(celery_worker, rater, other_rater):
    batch = open_batch(tasks=2)
    for worker in (rater, other_rater):
        services.request_next_task(worker=worker, batch_id=batch.pk)
    # Not yet due: the job, run on the worker through the broker, expires nothing.
    result = tasks.expire_overdue_assignments.delay()
    assert result.get(timeout=30) == 0
    assert Assignment.objects.filter(state="assigned").count() == 2
