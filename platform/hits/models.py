"""The work engine's records: batches of tasks, and the assignments that hand them out."""

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q


class Batch(models.Model):
    """Tasks of one kind, released together so that they can be spot-checked together."""

    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=64, help_text="The task kind of every task in the batch.")
    description = models.TextField(blank=True, help_text="Shown to workers on their home page.")
    state = models.CharField(max_length=8, choices=State.choices, default=State.DRAFT)
    reward = models.DecimalField(
        max_digits=8, decimal_places=2, default=Decimal("0.00"), help_text="Pay per approved assignment."
    )
    assignment_minutes = models.PositiveIntegerField(
        null=True, blank=True, help_text="Time a worker may hold a task; empty means the site default."
    )
    spot_check_percent = models.PositiveSmallIntegerField(
        default=10, validators=[MaxValueValidator(100)], help_text="Share of submissions drawn for a spot check."
    )
    # Eligibility: who may take tasks from this batch, on top of the kind's own rule.
    required_qualifications = models.ManyToManyField("accounts.Qualification", blank=True, related_name="batches")
    min_approval_rate = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="0–1; empty for none.",
    )
    min_approved_count = models.PositiveIntegerField(default=0)
    allowed_locales = models.JSONField(default=list, blank=True, help_text='e.g. ["en-US", "en-GB"]; empty for any.')
    kind_settings = models.JSONField(
        default=dict,
        blank=True,
        help_text='Settings of the batch\'s kind, e.g. {"questions_by": "anyone"} for trace QA.',
    )
    created_at = models.DateTimeField(auto_now_add=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    def __str__(self):
        return self.name

    class Meta:
        verbose_name_plural = "batches"
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(state__in=["draft", "open", "closed"]), name="batch_state_known"),
            models.CheckConstraint(condition=Q(spot_check_percent__lte=100), name="batch_spot_check_percent_range"),
            models.CheckConstraint(
                condition=Q(min_approval_rate__isnull=True) | Q(min_approval_rate__gte=0, min_approval_rate__lte=1),
                name="batch_min_approval_rate_range",
            ),
            models.CheckConstraint(condition=Q(reward__gte=0), name="batch_reward_not_negative"),
        ]


class Task(models.Model):
    """One unit of work: the kind's input, wanted from ``assignments_wanted`` workers."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="tasks")
    payload = models.JSONField(default=dict, blank=True, help_text="The kind's input.")
    assignments_wanted = models.PositiveSmallIntegerField(default=1)
    reserved_for = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="reserved_tasks",
        help_text="Only this worker may take the task (e.g. questions on the trace they recorded).",
        db_index=False,  # task_reserved_for: the few reserved tasks only
    )
    # Assignments holding a slot (assigned, submitted or approved). Kept in step under the
    # task's row lock, so hand-out reads one row instead of counting assignments.
    slots_taken = models.PositiveSmallIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    @property
    def kind(self):
        return self.batch.kind

    def __str__(self):
        return f"task {self.pk} of {self.batch}"

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(
                fields=["batch", "id"], condition=Q(slots_taken__lt=F("assignments_wanted")), name="task_open_slots"
            ),
            # Most tasks are reserved for nobody: indexed, they would take an entry on
            # every claim (which writes a new version of the task's row) for nothing.
            models.Index(fields=["reserved_for"], condition=Q(reserved_for__isnull=False), name="task_reserved_for"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(assignments_wanted__gte=1), name="task_wants_an_assignment"),
            models.CheckConstraint(
                condition=Q(slots_taken__lte=F("assignments_wanted")), name="task_slots_within_wanted"
            ),
        ]


class Assignment(models.Model):
    """One worker's turn at one task."""

    class State(models.TextChoices):
        ASSIGNED = "assigned", "Assigned"
        SUBMITTED = "submitted", "Submitted"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        RETURNED = "returned", "Returned"
        EXPIRED = "expired", "Expired"

    # States in which an assignment holds one of its task's slots.
    SLOT_STATES = (State.ASSIGNED, State.SUBMITTED, State.APPROVED)

    # No index of their own: each leads one of Meta's (task: one_assignment_per_task_and_worker;
    # batch: assignment_batch_state; worker: assignment_worker_recent), which serve every
    # lookup by it. A submission changes indexed columns, so it writes an entry in every
    # index of the table: three fewer is a fifth less of the database's work per cycle.
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    worker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments", db_index=False
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.ASSIGNED)
    assigned_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True, help_text="When it was returned or expired.")
    active_seconds = models.PositiveIntegerField(null=True, blank=True, help_text="Time the task page was in view.")
    draft = models.JSONField(null=True, blank=True, help_text="Work in progress, saved as the worker goes.")
    answer = models.JSONField(null=True, blank=True, help_text="The submission, as the kind accepted it.")
    spot_check = models.BooleanField(default=False, help_text="Drawn for the batch's spot check.")
    pay = models.DecimalField(max_digits=8, decimal_places=2, default=Decimal("0.00"))
    bonus = models.DecimalField(max_digits=8, decimal_places=2, default=Decimal("0.00"))
    bonus_reason = models.TextField(blank=True)
    feedback = models.TextField(blank=True, help_text="The reviewer's words to the worker.")
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,  # assignment_decided_by: decided assignments only
    )

    @property
    def is_open(self):
        return self.state == self.State.ASSIGNED

    def __str__(self):
        return f"assignment {self.pk} ({self.state})"

    class Meta:
        ordering = ["-assigned_at"]
        indexes = [
            models.Index(fields=["worker", "-assigned_at"], name="assignment_worker_recent"),
            models.Index(fields=["batch", "state"], name="assignment_batch_state"),
            # Assignments are written undecided, and written again when submitted: an
            # index of every row would take an entry each time for nothing.
            models.Index(fields=["decided_by"], condition=Q(decided_by__isnull=False), name="assignment_decided_by"),
            models.Index(fields=["expires_at"], condition=Q(state="assigned"), name="assignment_open_expiry"),
            # For the staff dashboards (platform/dashboards): submissions by time, and a
            # worker's work by state with its active and submission times.
            models.Index(
                fields=["submitted_at"], condition=Q(submitted_at__isnull=False), name="assignment_submitted_at"
            ),
            models.Index(
                fields=["worker", "state", "active_seconds", "submitted_at"], name="assignment_worker_work_time"
            ),
        ]
        constraints = [
            # Never the same task twice for one worker, whatever became of the first try.
            models.UniqueConstraint(fields=["task", "worker"], name="one_assignment_per_task_and_worker"),
            # One task at a time per worker in a batch.
            models.UniqueConstraint(
                fields=["worker", "batch"], condition=Q(state="assigned"), name="one_open_assignment_per_batch"
            ),
            models.CheckConstraint(
                condition=Q(state__in=["assigned", "submitted", "approved", "rejected", "returned", "expired"]),
                name="assignment_state_known",
            ),
            models.CheckConstraint(
                condition=Q(state__in=["assigned", "returned", "expired"]) | Q(submitted_at__isnull=False),
                name="assignment_submitted_has_time",
            ),
            models.CheckConstraint(condition=Q(pay__gte=0) & Q(bonus__gte=0), name="assignment_pay_not_negative"),
            models.CheckConstraint(condition=Q(bonus=0) | ~Q(bonus_reason=""), name="assignment_bonus_has_reason"),
            models.CheckConstraint(
                condition=~Q(state="rejected") | ~Q(feedback=""), name="assignment_rejection_has_feedback"
            ),
        ]


class WorkEvent(models.Model):
    """Audit trail of the work engine: who changed what, when."""

    class Action(models.TextChoices):
        RETURNED = "returned"
        EXPIRED = "expired"
        APPROVED = "approved"
        REJECTED = "rejected"
        BONUSED = "bonused"
        BLOCKED = "blocked"
        UNBLOCKED = "unblocked"
        BATCH_OPENED = "batch_opened"
        BATCH_CLOSED = "batch_closed"
        DISQUALIFIED = "disqualified"
        REQUALIFIED = "requalified"

    action = models.CharField(max_length=16, choices=Action.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    worker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="work_events"
    )
    assignment = models.ForeignKey(Assignment, on_delete=models.SET_NULL, null=True, blank=True, related_name="events")
    batch = models.ForeignKey(Batch, on_delete=models.SET_NULL, null=True, blank=True, related_name="events")
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self):
        return f"{self.action} at {self.created_at:%Y-%m-%d %H:%M}"

    class Meta:
        ordering = ["-created_at"]


class Disqualification(models.Model):
    """A worker may no longer take one kind of work, and why (shown to them).

    Made automatically when their work of that kind keeps being rejected, or by hand;
    lifting it (``lifted_at``) restores their access and keeps the record.
    """

    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="disqualifications")
    kind = models.CharField(max_length=64)
    reason = models.TextField()
    automatic = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    def __str__(self):
        return f"{self.worker} from {self.kind}"

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["worker", "kind"], condition=Q(lifted_at__isnull=True), name="one_active_disqualification"
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="disqualification_has_reason"),
        ]


class KindRequirements(models.Model):
    """Who may take work of one kind, in every batch of it, on top of each batch's own
    rules: e.g. every six-image QA batch needs the image questions qualification."""

    kind = models.CharField(max_length=64, unique=True)
    required_qualifications = models.ManyToManyField("accounts.Qualification", blank=True, related_name="kinds")
    min_approval_rate = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="0–1; empty for none.",
    )
    min_approved_count = models.PositiveIntegerField(default=0)
    allowed_locales = models.JSONField(default=list, blank=True, help_text='e.g. ["en-US", "en-GB"]; empty for any.')

    def __str__(self):
        return f"requirements of {self.kind}"

    class Meta:
        verbose_name = "kind requirements"
        verbose_name_plural = "kind requirements"
