"""Webhooks through the real machinery: an event recorded with its transaction, its job
relayed to the Redis broker, a Celery worker in its own process sending it, a receiver
on this machine checking the signature."""

import json

import pytest
from django.db import transaction

from tests.concurrency import wait_for
from webhooks import services
from webhooks.models import Delivery, Endpoint

from .test_webhooks import Receiver

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_worker_delivers_a_committed_event_and_a_rolled_back_one_never_goes(celery_worker):
    receiver = Receiver()
    try:
        endpoint = Endpoint.objects.create(url=receiver.url, events=["batch.completed"])
        receiver.secret = endpoint.secret
        with transaction.atomic():
            (delivery,) = services.emit("batch.completed", {"batch": 41})
        with pytest.raises(RuntimeError), transaction.atomic():
            services.emit("batch.completed", {"batch": 42})
            raise RuntimeError("the write that would have reported it failed")
        assert wait_for(lambda: Delivery.objects.get(pk=delivery.pk).state == "delivered"), Delivery.objects.get(
            pk=delivery.pk
        ).last_error
        (request,) = receiver.requests
        assert request["valid"] and json.loads(request["body"])["data"] == {"batch": 41}
        assert Delivery.objects.count() == 1  # the rolled-back event left nothing to send
    finally:
        receiver.close()
