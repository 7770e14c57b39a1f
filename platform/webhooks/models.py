"""Webhook endpoints that admins register, the events sent to them, and every attempt."""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

EVENTS = [
    ("release.published", "A release was published"),
    ("release.failed", "A release build failed"),
    ("queue.threshold", "A review or validation queue went over its limit"),
    ("batch.completed", "A batch got all the work it wanted"),
    ("evaluation.finished", "An evaluation of predictions finished"),
]


def new_secret():
    return secrets.token_hex(32)


class Endpoint(models.Model):
    """A URL that receives the events it subscribes to, each signed with its secret."""

    url = models.URLField(max_length=2000)
    description = models.CharField(max_length=200, blank=True)
    events = models.JSONField(default=list, help_text='The events it receives, e.g. ["release.published"].')
    secret = models.CharField(max_length=128, default=new_secret, help_text="Signs every delivery (HMAC-SHA256).")
    active = models.BooleanField(default=True)
    queue_depth_limit = models.PositiveIntegerField(
        null=True, blank=True, help_text="queue.threshold: a queue deeper than this (items waiting)."
    )
    queue_age_limit_hours = models.FloatField(
        null=True, blank=True, help_text="queue.threshold: a queue whose oldest item waits longer than this."
    )
    consecutive_failures = models.PositiveIntegerField(default=0)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.url

    class Meta:
        ordering = ["id"]


class Delivery(models.Model):
    """One event for one endpoint: the exact body that is signed and sent, and its fate."""

    class State(models.TextChoices):
        PENDING = "pending", "Waiting to be sent"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed (no retries left)"

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40)
    event_id = models.CharField(max_length=64, help_text="The same for every endpoint the event went to.")
    body = models.TextField(help_text="The JSON sent, byte for byte what is signed.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True, db_index=True)
    last_status = models.PositiveIntegerField(null=True, blank=True, help_text="The last HTTP status received.")
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.event} to {self.endpoint_id}"

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "deliveries"
        constraints = [
            models.CheckConstraint(condition=Q(state__in=["pending", "delivered", "failed"]), name="delivery_state"),
        ]


class Attempt(models.Model):
    """One try at sending a delivery: when, what came back, how long it took."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    at = models.DateTimeField(auto_now_add=True)
    status = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    response = models.TextField(blank=True, help_text="The start of the response body.")
    milliseconds = models.PositiveIntegerField(default=0)

    def __str__(self):
        return f"attempt at {self.at:%Y-%m-%d %H:%M:%S} of delivery {self.delivery_id}"

    class Meta:
        ordering = ["delivery", "at", "id"]


class Emitted(models.Model):
    """Events that must be sent once only (a batch completing), by key."""

    key = models.CharField(max_length=200, unique=True)
    at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.key
