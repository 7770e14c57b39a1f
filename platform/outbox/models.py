"""A transactional outbox: a job is a row written in the same transaction as the change
that asks for it, so a broker outage delays the job and never loses it."""

from django.db import models
from django.db.models import Q


class Job(models.Model):
    """A Celery task to send once the transaction that recorded it commits."""

    task = models.CharField(max_length=200, help_text="The Celery task's registered name.")
    args = models.JSONField(default=list, blank=True)
    queue = models.CharField(max_length=100, blank=True, help_text="Empty: the default queue.")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)

    def __str__(self):
        return f"{self.task}{tuple(self.args)}"

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["id"], condition=Q(sent_at__isnull=True), name="outbox_job_pending")]
