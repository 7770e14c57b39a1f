from celery import shared_task

from . import services


@shared_task(name="dashboards.tasks.fold_changes")
def fold_changes():
    """Run by Celery beat: keeps the log of changes the dashboards add up short."""
    return services.fold_changes()


@shared_task(name="dashboards.tasks.watch")
def watch():
    """Webhook events about batches and queues (``alerts.watch``)."""
    from .alerts import watch as look

    return [list(event) for event in look()]
