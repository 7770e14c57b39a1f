"""The dashboards' running tallies of assignments, kept exact by the database itself.

Triggers on ``hits_assignment`` (see ``triggers.py``) write every change to
a counted column as an ``AssignmentChange``: the row's old values taken back (sign -1),
its new values added (sign +1). ``services.fold_changes`` adds the logged changes to the
tallies and deletes them, in one transaction; Celery beat runs it every minute. Pages
read the ``…Total`` views, which are a tally plus the changes not folded in yet, so
every number is exact whenever it is read, and no page counts a million assignments.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

# The assignment states that count as work done (the worker answered).
DONE_STATES = ("submitted", "approved", "rejected")


class AssignmentChange(models.Model):
    """One assignment's old values taken back (``sign`` -1) or new values added (+1).

    Written only by the database triggers, in the transaction that changed the
    assignment; deleted by the fold that adds it to the tallies."""

    sign = models.SmallIntegerField()
    worker_id = models.BigIntegerField()
    batch_id = models.BigIntegerField()
    state = models.CharField(max_length=10)
    submitted_at = models.DateTimeField(null=True)
    # The submission's hour in UTC, so that the views can group changes like the tallies.
    submitted_hour = models.DateTimeField(null=True)
    active_seconds = models.IntegerField(null=True)
    pay = models.DecimalField(max_digits=8, decimal_places=2)
    bonus = models.DecimalField(max_digits=8, decimal_places=2)

    def __str__(self):
        return f"{self.sign:+d} {self.state} assignment of worker {self.worker_id} in batch {self.batch_id}"

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(sign__in=[-1, 1]), name="assignment_change_sign")]


class BatchTally(models.Model):
    """Assignments of a batch in one state, as of the last fold."""

    batch_id = models.BigIntegerField()
    state = models.CharField(max_length=10)
    assignments = models.IntegerField()

    def __str__(self):
        return f"batch {self.batch_id}: {self.assignments} {self.state}"

    class Meta:
        constraints = [models.UniqueConstraint(fields=["batch_id", "state"], name="batch_tally_unique")]


class SubmissionTally(models.Model):
    """Submissions to a batch in one hour (UTC), as of the last fold."""

    batch_id = models.BigIntegerField()
    hour = models.DateTimeField()
    submitted = models.IntegerField()

    def __str__(self):
        return f"batch {self.batch_id}: {self.submitted} submitted in the hour from {self.hour:%Y-%m-%d %H:00}"

    class Meta:
        constraints = [models.UniqueConstraint(fields=["hour", "batch_id"], name="submission_tally_unique")]


class WorkerTally(models.Model):
    """A worker's done assignments (submitted, approved or rejected), their active time,
    everything they earned, and the median and latest of their work, as of the last fold."""

    worker_id = models.BigIntegerField(primary_key=True)
    done = models.IntegerField()
    active_seconds = models.BigIntegerField()
    earned = models.DecimalField(max_digits=14, decimal_places=2)
    # Not additive: recomputed from the worker's assignments whenever a fold touches them.
    median_seconds = models.FloatField(null=True)
    last_submitted = models.DateTimeField(null=True)

    def __str__(self):
        return f"worker {self.worker_id}: {self.done} done"


# --- Views: a tally plus the changes not folded in yet (read only) ------------------------------


class BatchStateTotal(models.Model):
    """Assignments of a batch in one state."""

    pk = models.CompositePrimaryKey("batch", "state")
    batch = models.ForeignKey("hits.Batch", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    state = models.CharField(max_length=10)
    assignments = models.IntegerField()

    def __str__(self):
        return f"batch {self.batch_id}: {self.assignments} {self.state}"

    class Meta:
        managed = False
        db_table = "dashboards_batchstatetotal"


class SubmissionTotal(models.Model):
    """Submissions to a batch in one hour (UTC)."""

    pk = models.CompositePrimaryKey("batch", "hour")
    batch = models.ForeignKey("hits.Batch", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    hour = models.DateTimeField()
    submitted = models.IntegerField()

    def __str__(self):
        return f"batch {self.batch_id}: {self.submitted} submitted in the hour from {self.hour:%Y-%m-%d %H:00}"

    class Meta:
        managed = False
        db_table = "dashboards_submissiontotal"


class WorkerTotal(models.Model):
    """The median and latest submission are the tally's, as of the last fold, unless
    changes not folded in yet add or remove an active time (``times_changed`` counts the
    values whose number changed) or a submission time (``submissions_changed``): then
    they are read from the assignments. A decision or a hand-out changes neither."""

    worker = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="dashboard_total",
    )
    done = models.IntegerField()
    active_seconds = models.BigIntegerField()
    earned = models.DecimalField(max_digits=14, decimal_places=2)
    median_seconds = models.FloatField(null=True)
    last_submitted = models.DateTimeField(null=True)
    times_changed = models.IntegerField()
    submissions_changed = models.IntegerField()

    def __str__(self):
        return f"worker {self.worker_id}: {self.done} done"

    class Meta:
        managed = False
        db_table = "dashboards_workertotal"
