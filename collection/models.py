"""Capture work's own records: the pages the extension never captures, and pool imports."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class BlockedSite(models.Model):
    """Pages the extension never captures: by host (and its subdomains) or by a piece of
    the URL path (e.g. ``/account``)."""

    host = models.CharField(max_length=255, blank=True)
    path_contains = models.CharField(max_length=200, blank=True)
    reason = models.CharField(max_length=200, blank=True)

    def __str__(self):
        return self.host or self.path_contains

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(host="") | ~Q(path_contains=""), name="blocked_site_says_what")
        ]


class PoolImport(models.Model):
    """A job importing images or snippets into the pools; polled for progress."""

    class Kind(models.TextChoices):
        IMAGES = "images", "Images"
        SNIPPETS = "snippets", "Snippets"

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    source = models.CharField(max_length=1000, help_text="The manifest, folder or S3 prefix imported.")
    state = models.CharField(max_length=8, choices=State.choices, default=State.QUEUED)
    total = models.PositiveIntegerField(null=True, blank=True, help_text="Rows in the manifest, once counted.")
    processed = models.PositiveIntegerField(default=0)
    created_count = models.PositiveIntegerField(default=0)
    existing_count = models.PositiveIntegerField(default=0)
    error_count = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text='[{"line": 3, "message": "…"}, …]')
    message = models.TextField(blank=True, help_text="Why the whole import failed, if it did.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.get_kind_display()} import {self.pk}"

    class Meta:
        ordering = ["-created_at"]
