"""Background jobs of the collection app."""

from celery import shared_task


@shared_task(name="collection.tasks.run_pool_import")
def run_pool_import(import_id):
    """Imports a pool manifest (``collection.pools``); safe to run again."""
    from .pools import run_import

    job = run_import(import_id)
    return {"state": job.state, "created": job.created_count, "errors": job.error_count}


@shared_task(name="collection.tasks.group_image_triples")
def group_image_triples(batch_id, threshold=None):
    """Pairs waiting image-filter triples into six-image QA tasks of ``batch_id``."""
    from .grouping import group_triples

    return group_triples(batch_id=batch_id, threshold=threshold)
