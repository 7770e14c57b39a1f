from celery import shared_task


@shared_task(name="validation.tasks.compute_batch_agreement")
def compute_batch_agreement(batch_id):
    """Recomputes a batch's agreement statistic from its judgements. Safe to repeat."""
    from hits.models import Batch

    from .agreement import compute_for_batch

    if not Batch.objects.filter(pk=batch_id).exists():
        return None
    return compute_for_batch(batch_id=batch_id).value
