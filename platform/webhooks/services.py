"""Sending events to registered endpoints (docs/webhooks.md).

``emit`` records one ``Delivery`` per subscribed endpoint in the caller's transaction,
with a job (``outbox``) that sends it once the transaction commits: an event is recorded
if and only if what it reports happened. ``deliver`` makes one attempt: a 2xx answer
delivers it; anything else (an error status, a redirect, a timeout, a refused
connection) schedules the next attempt after a delay that doubles each time, until
``WEBHOOK_MAX_ATTEMPTS``; ``send_due`` (beat) sends what is due. An endpoint that fails
``WEBHOOK_DISABLE_AFTER`` attempts in a row is disabled, and the admins are told.
"""

import json
import logging
import time
import urllib.error
import urllib.request
import uuid
from datetime import timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Role, User
from outbox.services import enqueue

from .models import EVENTS, Attempt, Delivery, Emitted, Endpoint
from .signing import HEADER, sign

logger = logging.getLogger(__name__)
EVENT_NAMES = [name for name, _label in EVENTS]
LEASE = timedelta(minutes=5)  # an attempt in flight holds its delivery this long


def _setting(name, default):
    return getattr(settings, name, default)


def subscribed(event):
    """The active endpoints that receive ``event`` (few: filtered here, which every
    database does alike)."""
    endpoints = Endpoint.objects.filter(active=True, disabled_at__isnull=True).order_by("id")
    return [endpoint for endpoint in endpoints if event in endpoint.events]


@transaction.atomic
def emit(event, data, *, endpoints=None, once=None):
    """Records ``event`` with ``data`` (plain JSON) for every active endpoint subscribed to
    it (or for ``endpoints``); sent after commit. ``once``: a key that makes the event
    go out only the first time it is emitted. Returns the deliveries."""
    if event not in EVENT_NAMES:
        raise ValueError(f"Unknown event {event!r}.")
    if once is not None:
        try:
            with transaction.atomic():
                Emitted.objects.create(key=once[:200])
        except IntegrityError:
            return []
    targets = list(endpoints if endpoints is not None else subscribed(event))
    if not targets:
        return []
    now = timezone.now()
    event_id = uuid.uuid4().hex
    body = json.dumps({"id": event_id, "event": event, "created": now.isoformat(), "data": data}, sort_keys=True)
    made = []
    for endpoint in targets:
        delivery = Delivery.objects.create(
            endpoint=endpoint, event=event, event_id=event_id, body=body, next_attempt_at=now
        )
        enqueue("webhooks.deliver", delivery.pk)
        made.append(delivery)
    return made


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a redirect is an answer that is not a 2xx: the attempt failed


_opener = urllib.request.build_opener(_NoRedirects)


def _post(url, body, headers, timeout):
    """``(status, response excerpt, error)`` of one POST."""
    request = urllib.request.Request(url, data=body.encode(), headers=headers, method="POST")
    try:
        with _opener.open(request, timeout=timeout) as response:
            return response.status, response.read(2000).decode("utf-8", "replace"), ""
    except urllib.error.HTTPError as error:
        return error.code, error.read(2000).decode("utf-8", "replace"), f"HTTP {error.code}"
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        return None, "", f"{type(error).__name__}: {reason}"[:2000]


def _claim(delivery_id, *, force=False):
    """The delivery, leased for one attempt, or None when it is not due (or not ours)."""
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(skip_locked=True)
            .select_related("endpoint")
            .filter(pk=delivery_id)
            .first()
        )
        now = timezone.now()
        if delivery is None or delivery.state != Delivery.State.PENDING:
            return None
        endpoint = delivery.endpoint
        if not endpoint.active or endpoint.disabled_at is not None:
            return None
        if not force and delivery.next_attempt_at and delivery.next_attempt_at > now:
            return None
        delivery.next_attempt_at = now + LEASE
        delivery.save(update_fields=["next_attempt_at"])
        return delivery


def deliver(delivery_id, *, force=False):
    """One attempt at sending a delivery that is due; returns it (None if not sent)."""
    delivery = _claim(delivery_id, force=force)
    if delivery is None:
        return None
    endpoint = delivery.endpoint
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Trailmark-Webhooks/1",
        "Trailmark-Event": delivery.event,
        "Trailmark-Delivery": str(delivery.pk),
        HEADER: sign(endpoint.secret, delivery.body),
    }
    started = time.monotonic()
    status, response, error = _post(endpoint.url, delivery.body, headers, _setting("WEBHOOK_TIMEOUT_SECONDS", 10))
    took = round((time.monotonic() - started) * 1000)
    ok = status is not None and 200 <= status < 300
    with transaction.atomic():
        delivery = Delivery.objects.select_for_update().get(pk=delivery.pk)
        endpoint = Endpoint.objects.select_for_update().get(pk=endpoint.pk)
        Attempt.objects.create(delivery=delivery, status=status, error=error, response=response, milliseconds=took)
        delivery.attempts += 1
        delivery.last_status, delivery.last_error = status, error
        now = timezone.now()
        if ok:
            delivery.state, delivery.delivered_at, delivery.next_attempt_at = Delivery.State.DELIVERED, now, None
            endpoint.consecutive_failures = 0
        else:
            endpoint.consecutive_failures += 1
            if delivery.attempts >= _setting("WEBHOOK_MAX_ATTEMPTS", 8):
                delivery.state, delivery.next_attempt_at = Delivery.State.FAILED, None
            else:
                delay = _setting("WEBHOOK_RETRY_SECONDS", 30) * 2 ** (delivery.attempts - 1)
                delivery.next_attempt_at = now + timedelta(seconds=delay)
            if endpoint.consecutive_failures >= _setting("WEBHOOK_DISABLE_AFTER", 10) and not endpoint.disabled_at:
                _disable(endpoint, f"{endpoint.consecutive_failures} attempts in a row failed; the last: "
                                   f"{error or status}.")  # fmt: skip
        delivery.save()
        endpoint.save(update_fields=["consecutive_failures", "disabled_at", "disabled_reason"])
    return delivery


def _disable(endpoint, reason):
    endpoint.disabled_at, endpoint.disabled_reason = timezone.now(), reason
    logger.warning("Webhook endpoint %s (%s) disabled: %s", endpoint.pk, endpoint.url, reason)
    admins = list(
        User.objects.filter(role=Role.ADMIN, is_active=True).exclude(email="").values_list("email", flat=True)
    )
    if admins:
        transaction.on_commit(
            lambda: send_mail(
                f"Webhook endpoint disabled: {endpoint.url}",
                f"Trailmark stopped sending events to {endpoint.url}: {reason}\n"
                "Its deliveries wait. Fix the receiver, then enable the endpoint again (admin › Webhooks, or "
                f"POST /api/v1/webhooks/{endpoint.pk}/enable/); what it missed goes out then.",
                None,
                admins,
                fail_silently=True,
            )
        )


def send_due(*, limit=200):
    """Sends every pending delivery that is due (beat); returns how many were attempted."""
    due = (
        Delivery.objects.filter(
            state=Delivery.State.PENDING,
            next_attempt_at__lte=timezone.now(),
            endpoint__active=True,
            endpoint__disabled_at__isnull=True,
        )
        .order_by("next_attempt_at", "id")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(deliver(pk) is not None for pk in list(due))


@transaction.atomic
def redeliver(*, delivery):
    """Sends a delivery again (a failed one, or one that was delivered), now."""
    Delivery.objects.filter(pk=delivery.pk).update(
        state=Delivery.State.PENDING, attempts=0, next_attempt_at=timezone.now(), delivered_at=None
    )
    enqueue("webhooks.deliver", delivery.pk)
    delivery.refresh_from_db()
    return delivery


@transaction.atomic
def enable(*, endpoint):
    """Turns a disabled endpoint back on; its waiting deliveries are sent by the next sweep."""
    Endpoint.objects.filter(pk=endpoint.pk).update(
        active=True, disabled_at=None, disabled_reason="", consecutive_failures=0
    )
    endpoint.refresh_from_db()
    return endpoint
