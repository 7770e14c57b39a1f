"""Workers who come from a recruitment provider, their sessions there, and every call
made to a provider's API.

A provider's own identifiers (a Prolific participant id, an MTurk worker id, their
submission and assignment ids) live only here. The account they are linked to is an
ordinary rater account with a made-up name; releases know raters by that account alone.
"""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q


def _token():
    return secrets.token_urlsafe(32)


class ProviderWorker(models.Model):
    """A worker on a provider, linked to the Trailmark account that does their work."""

    provider = models.CharField(max_length=32)
    external_id = models.CharField(max_length=64, help_text="The provider's id of the worker.")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="provider_links")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.provider} worker {self.external_id}"

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["provider", "external_id"], name="one_link_per_provider_worker"),
            models.UniqueConstraint(fields=["provider", "user"], name="one_provider_worker_per_account"),
        ]


class ProviderSession(models.Model):
    """One worker's turn at a batch through a provider: a Prolific submission (several
    tasks) or an MTurk assignment (one task). Decisions on its work are settled on the
    provider once, for the whole session (``decision``)."""

    class State(models.TextChoices):
        ACTIVE = "active", "Working"
        COMPLETED = "completed", "Completed"
        RETURNED = "returned", "Returned"
        SCREENED_OUT = "screened_out", "Screened out"

    class Decision(models.TextChoices):
        NONE = "", "Not yet"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    provider = models.CharField(max_length=32)
    worker = models.ForeignKey(ProviderWorker, on_delete=models.CASCADE, related_name="sessions")
    batch = models.ForeignKey("hits.Batch", on_delete=models.CASCADE, related_name="provider_sessions")
    external_id = models.CharField(
        max_length=64, help_text="The provider's id of this turn (Prolific submission, MTurk assignment)."
    )
    study_id = models.CharField(max_length=64, help_text="The provider's study or HIT.")
    state = models.CharField(max_length=16, choices=State.choices, default=State.ACTIVE)
    decision = models.CharField(max_length=8, choices=Decision.choices, default=Decision.NONE, blank=True)
    reason = models.TextField(blank=True, help_text="Why the worker was screened out.")
    token = models.CharField(max_length=64, unique=True, default=_token, editable=False)
    submit_to = models.URLField(blank=True, help_text="Where the worker's page posts the finished work (MTurk).")
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.provider} session {self.pk} ({self.state})"

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(fields=["provider", "external_id"], name="one_session_per_provider_turn"),
            models.CheckConstraint(
                condition=Q(state__in=["active", "completed", "returned", "screened_out"]),
                name="provider_session_state_known",
            ),
            models.CheckConstraint(
                condition=Q(decision__in=["", "approved", "rejected"]), name="provider_session_decision_known"
            ),
        ]


class SessionAssignment(models.Model):
    """A Trailmark assignment done within a provider session."""

    session = models.ForeignKey(ProviderSession, on_delete=models.CASCADE, related_name="work")
    assignment = models.OneToOneField("hits.Assignment", on_delete=models.CASCADE, related_name="provider_work")

    def __str__(self):
        return f"{self.assignment} in {self.session}"


class PublishedHit(models.Model):
    """A HIT published on Mechanical Turk for a batch."""

    batch = models.ForeignKey("hits.Batch", on_delete=models.CASCADE, related_name="published_hits")
    hit_id = models.CharField(max_length=64, unique=True)
    hit_type_id = models.CharField(max_length=64, blank=True)
    max_assignments = models.PositiveIntegerField()
    request_token = models.CharField(max_length=64, unique=True, help_text="Makes a repeated create a no-op.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.hit_id


class ProviderCall(models.Model):
    """One call to a provider's API, recorded before it is made and completed after."""

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        SENDING = "sending", "Sending"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    provider = models.CharField(max_length=32)
    purpose = models.CharField(max_length=32, help_text="approve, reject, bonus, bonus_pay, create_hit …")
    method = models.CharField(max_length=8, default="POST")
    path = models.CharField(max_length=300, help_text="The URL path, or the API operation's name.")
    request_body = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    status = models.PositiveSmallIntegerField(null=True, blank=True, help_text="The HTTP status of the answer.")
    response_excerpt = models.TextField(blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    milliseconds = models.PositiveIntegerField(null=True, blank=True)
    session = models.ForeignKey(ProviderSession, on_delete=models.SET_NULL, null=True, blank=True, related_name="calls")
    batch = models.ForeignKey("hits.Batch", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    follows = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="follow_ups")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.provider} {self.method} {self.path} ({self.state})"

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["pending", "sending", "done", "failed"]), name="provider_call_state_known"
            )
        ]
