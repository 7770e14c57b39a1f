"""Recording jobs with the write that asks for them, and relaying them to the broker.

``enqueue`` writes a ``Job`` row in the caller's transaction and, once it commits, tries
to send it at once; a send that fails (the broker is down) leaves the row pending, and
``relay_pending`` (Celery beat, every ``OUTBOX_RELAY_SECONDS``, and on demand) sends it
later. A committed write therefore always answers success, and its jobs run when the
broker is back. Sending is at least once: every task the platform queues is safe to run
twice.
"""

import logging
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from .models import Job

logger = logging.getLogger(__name__)

# What a broker outage raises from apply_async.
BROKER_ERRORS = (OperationalError, RedisError, ConnectionError, TimeoutError, OSError)


def enqueue(task, *args, queue=None):
    """Records ``task`` (a Celery task or its registered name) with ``args`` (plain JSON)
    for sending once the current transaction commits; returns the ``Job``."""
    name = task if isinstance(task, str) else task.name
    job = Job.objects.create(task=name, args=list(args), queue=queue or "")
    transaction.on_commit(lambda: _send(job.pk))
    return job


def _send(job_id):
    """Sends one pending job; a broker that cannot be reached leaves it pending for the
    relay (and never fails the request whose transaction recorded it)."""
    job = Job.objects.filter(pk=job_id, sent_at__isnull=True).first()
    if job is None:
        return False
    options = {"queue": job.queue} if job.queue else {}
    task = _task(job.task)
    if settings.CELERY_TASK_ALWAYS_EAGER:
        # No broker (the embedded default): the task runs here and now, as it always did.
        Job.objects.filter(pk=job.pk).update(sent_at=timezone.now(), attempts=job.attempts + 1)
        task.apply_async(args=job.args, **options)
        return True
    try:
        if task is not None:
            task.apply_async(args=job.args, **options)
        else:  # not imported in this process: by name is enough for the broker
            current_app.send_task(job.task, args=job.args, **options)
    except BROKER_ERRORS as error:
        Job.objects.filter(pk=job.pk).update(
            attempts=job.attempts + 1, last_error=f"{type(error).__name__}: {error}"[:2000]
        )
        logger.warning("Job %s (%s) not sent, the relay will retry: %s", job.pk, job.task, error)
        return False
    Job.objects.filter(pk=job.pk).update(sent_at=timezone.now(), attempts=job.attempts + 1, last_error="")
    return True


def _task(name):
    if name not in current_app.tasks:
        current_app.loader.import_default_modules()  # every app's tasks module, by name
    return current_app.tasks.get(name)


def relay_pending(*, older_than_seconds=None, limit=500):
    """Sends jobs still pending (their first send failed, or the process died before it);
    returns how many went out. Jobs younger than ``older_than_seconds`` are left to their
    own on-commit send."""
    if older_than_seconds is None:
        older_than_seconds = settings.OUTBOX_RELAY_AFTER_SECONDS
    before = timezone.now() - timedelta(seconds=older_than_seconds)
    pending = Job.objects.filter(sent_at__isnull=True, created_at__lte=before).order_by("id")
    return sum(_send(job_id) for job_id in pending.values_list("pk", flat=True)[:limit])


def purge_sent(*, older_than_days=7):
    """Deletes sent jobs older than ``older_than_days``: the outbox is not an archive."""
    deleted, _ = Job.objects.filter(sent_at__lt=timezone.now() - timedelta(days=older_than_days)).delete()
    return deleted
