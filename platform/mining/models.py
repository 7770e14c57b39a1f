"""Mined hard negatives: sources that look relevant to a question but do not answer it."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class Distractor(models.Model):
    """One hard negative of a QA pair: a snippet, image or screen, with how it was found."""

    class Kind(models.TextChoices):
        TEXT = "text", "Text snippet"
        IMAGE = "image", "Image"
        SCREEN = "screen", "Screen"

    qa_pair = models.ForeignKey("corpus.QAPair", on_delete=models.CASCADE, related_name="distractors")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    snippet = models.ForeignKey("corpus.Snippet", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    image = models.ForeignKey("corpus.ImageSource", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    screen = models.ForeignKey("corpus.Screen", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    method = models.CharField(max_length=32, help_text="How it was found, e.g. bm25, description, visual, trace.")
    score = models.FloatField()
    rank = models.PositiveSmallIntegerField(help_text="1 is the closest of its kind for the question.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.kind} distractor {self.rank} of QA pair {self.qa_pair_id}"

    class Meta:
        ordering = ["qa_pair", "kind", "rank"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(kind="text", snippet__isnull=False, image__isnull=True, screen__isnull=True)
                    | Q(kind="image", snippet__isnull=True, image__isnull=False, screen__isnull=True)
                    | Q(kind="screen", snippet__isnull=True, image__isnull=True, screen__isnull=False)
                ),
                name="distractor_source_matches_kind",
            ),
            models.UniqueConstraint(fields=["qa_pair", "snippet"], name="distractor_snippet_once"),
            models.UniqueConstraint(fields=["qa_pair", "image"], name="distractor_image_once"),
            models.UniqueConstraint(fields=["qa_pair", "screen"], name="distractor_screen_once"),
            models.UniqueConstraint(fields=["qa_pair", "kind", "rank"], name="distractor_rank_once"),
        ]


class MiningRun(models.Model):
    """One run of a job over a set of QA pairs: categorising them, or mining their
    distractors. Planned into chunks that workers process in parallel; polled for progress."""

    class Job(models.TextChoices):
        CATEGORISE = "categorise", "Categorise questions"
        MINE = "mine", "Mine distractors"

    class Scope(models.TextChoices):
        NEW = "new", "Everything new"
        ALL = "all", "Everything"
        BATCH = "batch", "One batch"
        QA_PAIRS = "qa_pairs", "Chosen QA pairs"

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        INDEXING = "indexing", "Building the index"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    job = models.CharField(max_length=12, choices=Job.choices)
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.NEW)
    batch = models.ForeignKey("hits.Batch", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    qa_pair_ids = models.JSONField(default=list, blank=True, help_text="The QA pairs of a qa_pairs run.")
    chunk_size = models.PositiveIntegerField(help_text="QA pairs per chunk: per Celery task.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED, db_index=True)
    total = models.PositiveIntegerField(default=0, help_text="QA pairs in the run, once planned.")
    processed = models.PositiveIntegerField(default=0, help_text="QA pairs whose chunk is done.")
    changed = models.PositiveIntegerField(default=0, help_text="QA pairs whose stored result changed.")
    index_key = models.CharField(max_length=64, blank=True, help_text="Names the run's index on the workers' disks.")
    snippet_max_id = models.BigIntegerField(null=True, blank=True, help_text="The snippet pool as the run saw it.")
    image_max_id = models.BigIntegerField(null=True, blank=True, help_text="The image pool as the run saw it.")
    message = models.TextField(blank=True, help_text="Why the run failed, if it did.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    @property
    def progress(self):
        """Share of the run's QA pairs processed, 0–1 (1 for an empty finished run)."""
        if not self.total:
            return 1.0 if self.state == self.State.DONE else 0.0
        return self.processed / self.total

    def __str__(self):
        return f"{self.get_job_display()} run {self.pk}"

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(job__in=["categorise", "mine"]), name="mining_run_job_known"),
            models.CheckConstraint(
                condition=Q(state__in=["queued", "indexing", "running", "done", "failed"]),
                name="mining_run_state_known",
            ),
            models.CheckConstraint(condition=Q(processed__lte=models.F("total")), name="mining_run_processed_le_total"),
        ]


class MiningChunk(models.Model):
    """A slice of a run's QA pairs, processed by one Celery task and retried on its own."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    run = models.ForeignKey(MiningRun, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    qa_pair_ids = models.JSONField()
    state = models.CharField(max_length=8, choices=State.choices, default=State.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, help_text="The last attempt's error.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"chunk {self.number} of run {self.run_id}"

    class Meta:
        ordering = ["run", "number"]
        constraints = [
            models.UniqueConstraint(fields=["run", "number"], name="mining_chunk_number_once"),
            models.CheckConstraint(
                condition=Q(state__in=["queued", "running", "done", "failed"]), name="mining_chunk_state_known"
            ),
        ]


class ReasoningCheck(models.Model):
    """The categorisation job's check of a screen question's ticked reasoning types.

    One per QA pair. A disagreement is ``open`` for a reviewer, who either corrects the
    pair's types or accepts the author's (``resolved``); a run re-opens the check only if
    the question or its ticked types change afterwards.
    """

    class State(models.TextChoices):
        AGREES = "agrees", "Agrees"
        OPEN = "open", "Disagrees: open"
        RESOLVED = "resolved", "Disagrees: resolved"

    qa_pair = models.OneToOneField("corpus.QAPair", on_delete=models.CASCADE, related_name="reasoning_check")
    declared = models.JSONField(default=list, help_text="The types the author ticked, when checked.")
    detected = models.JSONField(default=list, help_text="The types the question's wording points to.")
    missing = models.JSONField(default=list, blank=True)
    unsupported = models.JSONField(default=list, blank=True)
    question_digest = models.CharField(max_length=64, help_text="SHA-256 of the question checked.")
    state = models.CharField(max_length=8, choices=State.choices, db_index=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    checked_at = models.DateTimeField(auto_now=True)

    @property
    def message(self):
        parts = []
        if not self.declared:
            parts.append("no reasoning type is ticked")
        if self.missing:
            parts.append("the question reads as " + ", ".join(self.missing) + " but that is not ticked")
        if self.unsupported:
            parts.append("nothing in the question points to " + ", ".join(self.unsupported))
        return "; ".join(parts).capitalize() + ("." if parts else "")

    def __str__(self):
        return f"reasoning check of QA pair {self.qa_pair_id}"

    class Meta:
        ordering = ["-checked_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["agrees", "open", "resolved"]), name="reasoning_check_state_known"
            )
        ]
