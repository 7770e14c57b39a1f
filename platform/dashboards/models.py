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


# --- Tasks, QA pairs and screens ------------------------------------------------------------------
#
# Kept like the assignments' tallies: triggers on ``hits_task``, ``corpus_qapair``,
# ``corpus_evidence`` and ``corpus_tracestep`` log every counted change (old values taken
# back, new ones added), the fold adds the log to the tallies, and the ``…Total`` views add
# the log not folded in yet, so that the batches and dataset pages count nothing.


class TaskChange(models.Model):
    """A task's old batch and slots wanted taken back (``sign`` -1) or new ones added (+1)."""

    sign = models.SmallIntegerField()
    batch_id = models.BigIntegerField()
    assignments_wanted = models.IntegerField()

    def __str__(self):
        return f"{self.sign:+d} task of batch {self.batch_id} wanting {self.assignments_wanted}"


class TaskTally(models.Model):
    """A batch's tasks and the assignments they want, as of the last fold."""

    batch_id = models.BigIntegerField(primary_key=True)
    tasks = models.IntegerField()
    wanted = models.BigIntegerField()

    def __str__(self):
        return f"batch {self.batch_id}: {self.tasks} tasks"


class QAPairChange(models.Model):
    """A QA pair's old counted values taken back (``sign`` -1) or new ones added (+1).
    ``category_id`` 0 stands for no category, so that a tally's key has no NULL in it."""

    sign = models.SmallIntegerField()
    family = models.CharField(max_length=16)
    split_kind = models.CharField(max_length=16)
    category_id = models.BigIntegerField()
    state = models.CharField(max_length=20)
    question_category = models.CharField(max_length=16)
    # The list as the database writes it out as text, e.g. '["arithmetic", "counting"]'.
    reasoning_types = models.TextField()

    def __str__(self):
        return f"{self.sign:+d} {self.state} {self.family} QA pair"


class QAPairTally(models.Model):
    """QA pairs with one value of one of the dataset page's breakdowns, as of the last fold:
    ``breakdown`` is a column of ``QAPairChange`` and ``value`` its value as text (a
    category by its id, 0 for none; reasoning types by the whole list)."""

    breakdown = models.CharField(max_length=20)
    value = models.TextField()
    pairs = models.IntegerField()

    def __str__(self):
        return f"{self.pairs} QA pairs with {self.breakdown} {self.value}"

    class Meta:
        constraints = [models.UniqueConstraint(fields=["breakdown", "value"], name="qa_pair_tally_unique")]


class ScreenKind(models.TextChoices):
    TRACE = "trace", "screens per trace"
    EXAMPLE = "example", "screens per multi-screen QA pair"


class ScreenChange(models.Model):
    """A change to what one trace or QA pair (the owner) counts: ``screens`` is a step or
    a piece of evidence added (+1) or taken away (-1); ``counted`` is a QA pair becoming
    multi-screen (+1) or ceasing to be (-1). Traces are always counted."""

    kind = models.CharField(max_length=8, choices=ScreenKind.choices)
    owner_id = models.BigIntegerField()
    screens = models.SmallIntegerField()
    counted = models.SmallIntegerField()

    def __str__(self):
        return f"{self.kind} {self.owner_id}: {self.screens:+d} screens"


class ScreenTally(models.Model):
    """One trace's steps, or one QA pair's evidence and whether it is multi-screen, as of
    the last fold. Only the fold reads it, to move an owner from one bar to another."""

    kind = models.CharField(max_length=8, choices=ScreenKind.choices)
    owner_id = models.BigIntegerField()
    screens = models.IntegerField()
    counted = models.IntegerField()

    def __str__(self):
        return f"{self.kind} {self.owner_id}: {self.screens} screens"

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "owner_id"], name="screen_tally_unique")]


class ScreenHistogram(models.Model):
    """How many traces (or multi-screen QA pairs) have ``screens`` screens, as of the last fold."""

    kind = models.CharField(max_length=8, choices=ScreenKind.choices)
    screens = models.IntegerField()
    owners = models.IntegerField()

    def __str__(self):
        return f"{self.owners} {self.kind}s of {self.screens} screens"

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "screens"], name="screen_histogram_unique")]


class BatchTaskTotal(models.Model):
    """A batch's tasks and the assignments they want."""

    batch = models.OneToOneField(
        "hits.Batch", primary_key=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    tasks = models.IntegerField()
    wanted = models.BigIntegerField()

    def __str__(self):
        return f"batch {self.batch_id}: {self.tasks} tasks"

    class Meta:
        managed = False
        db_table = "dashboards_batchtasktotal"


class QAPairTotal(models.Model):
    """QA pairs with one value of one of the dataset page's breakdowns."""

    pk = models.CompositePrimaryKey("breakdown", "value")
    breakdown = models.CharField(max_length=20)
    value = models.TextField()
    pairs = models.IntegerField()

    def __str__(self):
        return f"{self.pairs} QA pairs with {self.breakdown} {self.value}"

    class Meta:
        managed = False
        db_table = "dashboards_qapairtotal"


class ScreenTotal(models.Model):
    """How many traces (or multi-screen QA pairs) have ``screens`` screens."""

    pk = models.CompositePrimaryKey("kind", "screens")
    kind = models.CharField(max_length=8, choices=ScreenKind.choices)
    screens = models.IntegerField()
    owners = models.IntegerField()

    def __str__(self):
        return f"{self.owners} {self.kind}s of {self.screens} screens"

    class Meta:
        managed = False
        db_table = "dashboards_screentotal"
