from celery import shared_task

from . import services


@shared_task(name="outbox.tasks.relay_pending")
def relay_pending():
    """Sends the jobs a broker outage held back, and drops week-old sent ones."""
    sent = services.relay_pending()
    services.purge_sent()
    return sent
