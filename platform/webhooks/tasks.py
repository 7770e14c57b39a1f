from celery import shared_task

from . import services


@shared_task(name="webhooks.deliver")
def deliver(delivery_id):
    delivery = services.deliver(delivery_id)
    return {"delivery": delivery_id, "state": delivery.state if delivery else "not due"}


@shared_task(name="webhooks.send_due")
def send_due():
    return {"attempted": services.send_due()}
