from celery import shared_task

from . import services


@shared_task(name="hits.tasks.expire_overdue_assignments")
def expire_overdue_assignments():
    """Run by Celery beat: frees the tasks of abandoned assignments."""
    return services.expire_overdue_assignments()
