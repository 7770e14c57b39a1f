"""Events about the work as a whole, for webhooks (checked by a beat task, ``watch``):

- ``batch.completed`` once per batch, when an open batch has all the work it wanted;
- ``queue.threshold`` per endpoint and queue, when a queue (review, validation,
  reference answers, decisions) gets deeper or older than the endpoint's limits; it is
  sent again only after the queue went back under them.
"""

from webhooks import services as webhooks
from webhooks.models import Emitted

from . import selectors


def watch():
    """Sends what changed since the last look; returns the events emitted."""
    sent = []
    for batch in selectors.batch_progress():
        if batch["state"] == "open" and batch["wanted"] and not batch["remaining"]:
            data = {"batch": batch["id"], "name": batch["name"], "kind": batch["kind"], "tasks": batch["tasks"],
                    "assignments": batch["wanted"]}  # fmt: skip
            if webhooks.emit("batch.completed", data, once=f"batch.completed:{batch['id']}"):
                sent.append(("batch.completed", batch["id"]))
    endpoints = [
        endpoint
        for endpoint in webhooks.subscribed("queue.threshold")
        if endpoint.queue_depth_limit is not None or endpoint.queue_age_limit_hours is not None
    ]
    if not endpoints:
        return sent
    for queue in selectors.queues():
        for endpoint in endpoints:
            key = f"queue.threshold:{endpoint.pk}:{queue['queue']}"
            deep = endpoint.queue_depth_limit is not None and queue["depth"] > endpoint.queue_depth_limit
            old = (
                endpoint.queue_age_limit_hours is not None
                and (queue["age_hours"] or 0) > endpoint.queue_age_limit_hours
            )
            if not (deep or old):
                Emitted.objects.filter(key=key).delete()  # back under: the next crossing is news
                continue
            data = {"queue": queue["queue"], "depth": queue["depth"], "age_hours": queue["age_hours"],
                    "depth_limit": endpoint.queue_depth_limit, "age_limit_hours": endpoint.queue_age_limit_hours}  # fmt: skip
            if webhooks.emit("queue.threshold", data, endpoints=[endpoint], once=key):
                sent.append(("queue.threshold", queue["queue"]))
    return sent
