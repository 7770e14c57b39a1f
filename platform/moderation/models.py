"""What happens to every stored asset before it may leave the platform: the review queue
item with the pre-screen's findings, the audit log of decisions, and the blocked domains."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class ReviewItem(models.Model):
    """One asset waiting for (or past) its human check, with what the pre-screen found.

    Items are ordered by risk, highest first, in the queue their worst finding puts them
    in. A reviewer holds an item while deciding; nobody else is given it meanwhile.
    """

    class Queue(models.TextChoices):
        PII = "pii", "Personal data"
        SAFETY = "safety", "Safety"

    asset = models.OneToOneField("assets.Asset", on_delete=models.CASCADE, related_name="review_item")
    queue = models.CharField(max_length=8, choices=Queue.choices, default=Queue.PII)
    findings = models.JSONField(default=list, blank=True)
    text_findings = models.JSONField(
        default=list, blank=True,
        help_text="Personal data in the texts stored with the asset (a trace step's title, address and "
        "link texts; a pool image's title and description): field, kind, text, the record it is in, "
        "and whether it was masked.",
    )  # fmt: skip
    pii_risk = models.FloatField(default=0)
    text_risk = models.FloatField(default=0, help_text="From the text findings not masked yet.")
    safety_risk = models.FloatField(default=0)
    risk = models.FloatField(default=0, help_text="The queue's order: highest first.")
    prescreened_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    claimed_until = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"review of asset {self.asset_id}"

    class Meta:
        indexes = [
            models.Index(
                fields=["queue", "-risk", "id"], condition=Q(decided_at__isnull=True), name="review_open_by_risk"
            )
        ]
        constraints = [models.CheckConstraint(condition=Q(queue__in=["pii", "safety"]), name="review_queue_known")]


class ReviewDecision(models.Model):
    """The audit log: who decided what, when, on which findings. Kept after a purge
    (the asset's digest stays when its bytes and row are gone)."""

    class Decision(models.TextChoices):
        APPROVED = "approved", "Approved"
        REDACTED = "redacted", "Redacted"
        REJECTED = "rejected", "Rejected"
        MASKED = "masked", "Texts masked"
        WITHDRAWN = "withdrawn", "Removed by its author"

    asset = models.ForeignKey(
        "assets.Asset", on_delete=models.SET_NULL, null=True, blank=True, related_name="review_decisions"
    )
    asset_sha256 = models.CharField(max_length=64)
    decision = models.CharField(max_length=10, choices=Decision.choices)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reason = models.TextField(blank=True)
    findings = models.JSONField(default=list, blank=True)
    boxes = models.JSONField(default=list, blank=True, help_text="Redacted areas, in image pixels.")
    replacement = models.ForeignKey(
        "assets.Asset", on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        help_text="The redacted copy that took the asset's place.",
    )  # fmt: skip
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    undone_at = models.DateTimeField(
        null=True, blank=True, help_text="Taken back by its reviewer soon after; the item went back to them."
    )

    def __str__(self):
        return f"{self.decision} {self.asset_sha256[:12]}"

    class Meta:
        ordering = ["-created_at"]


class BlockedDomain(models.Model):
    """A domain whose pages go to the safety queue first (with its subdomains): a page
    captured on it, or a screenshot showing its address. Admins keep the list."""

    domain = models.CharField(max_length=253, unique=True, help_text="e.g. example.com; its subdomains count too.")
    reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def save(self, *args, **kwargs):
        self.domain = self.domain.strip().lower().removeprefix("www.").rstrip(".")
        super().save(*args, **kwargs)

    def __str__(self):
        return self.domain

    class Meta:
        ordering = ["domain"]
        constraints = [models.CheckConstraint(condition=~Q(domain=""), name="blocked_domain_not_empty")]
