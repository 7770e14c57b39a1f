"""Celery tasks of the mining jobs: thin wrappers that take ids and call a service."""

from celery import shared_task
from django.conf import settings

from . import services


@shared_task(name="mining.tasks.prepare_run")
def prepare_run(run_id):
    """Plans a run, builds its index and hands its chunks out. Safe to run twice."""
    run = services.prepare_run(run_id=run_id)
    return {"run": run.pk, "total": run.total}


@shared_task(bind=True, name="mining.tasks.run_chunk")
def run_chunk(self, chunk_id):
    """Processes one chunk. A failed attempt is retried alone, up to
    ``MINING_CHUNK_RETRIES`` times; a chunk that is done is never redone."""
    try:
        return services.run_chunk(chunk_id=chunk_id)
    except Exception as error:
        final = self.request.retries >= settings.MINING_CHUNK_RETRIES
        services.chunk_failed(chunk_id=chunk_id, error=error, final=final)
        if final:
            raise
        raise self.retry(
            exc=error, countdown=settings.MINING_RETRY_SECONDS, max_retries=settings.MINING_CHUNK_RETRIES
        ) from error
