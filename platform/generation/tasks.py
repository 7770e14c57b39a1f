"""Celery tasks of generation runs: thin wrappers that take ids and call a service."""

from celery import shared_task

from . import services


@shared_task(name="generation.plan_run")
def plan_run(run_id):
    run = services.plan_run(run_id=run_id)
    return {"run": run.pk, "total": run.total, "skipped": run.skipped}


@shared_task(name="generation.generate_chunk", autoretry_for=(OSError,), retry_backoff=5, max_retries=3)
def generate_chunk(run_id, chunk):
    """One chunk of pages; a retried chunk redoes only its pages still pending."""
    return services.generate_chunk(run_id=run_id, chunk=chunk)
