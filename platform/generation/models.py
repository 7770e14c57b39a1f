"""Machine-generated QA candidates: runs of a generator over recorded site pages, the pages
each run did, the candidates it wrote (QA pairs in the ``candidate`` state, with their
provenance), and each site's sample that assessors check before the rest is accepted."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class GenerationRun(models.Model):
    """One generator over the navigation-graph pages of some sites: planned into chunks of
    pages that workers process; each site's candidates are then sampled for assessment."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SAMPLING = "sampling", "Assessing samples"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    generator = models.CharField(max_length=40, default="rules")
    parameters = models.JSONField(default=dict, blank=True, help_text="The generator's parameters (no secrets).")
    generator_version = models.CharField(max_length=40, blank=True)
    prompt_version = models.CharField(max_length=40, blank=True)
    prompt = models.TextField(blank=True, help_text="The prompt or rules the generator followed.")
    sites = models.ManyToManyField("corpus.Site", blank=True, related_name="+", help_text="None: every active site.")
    sample_size = models.PositiveIntegerField(default=100, help_text="Candidates assessors check per site.")
    threshold = models.FloatField(default=0.8, help_text="Acceptance rate a site's sample needs (0–1).")
    chunk_size = models.PositiveIntegerField(default=20, help_text="Pages per Celery task.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED, db_index=True)
    total = models.PositiveIntegerField(default=0, help_text="Pages in the run, once planned.")
    processed = models.PositiveIntegerField(default=0)
    candidates = models.PositiveIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0, help_text="Pages this generator version had already done.")
    message = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"generation run {self.pk} ({self.generator})"

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["queued", "running", "sampling", "done", "failed"]),
                name="generation_run_state_known",
            ),
            models.CheckConstraint(condition=Q(threshold__gte=0) & Q(threshold__lte=1), name="generation_threshold"),
        ]


class GeneratedPage(models.Model):
    """A page of a run: done (with its candidates), failed (why), or skipped (the same
    generator version had done it in an earlier run)."""

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        SKIPPED = "skipped", "Skipped"

    run = models.ForeignKey(GenerationRun, on_delete=models.CASCADE, related_name="pages")
    page = models.ForeignKey("corpus.NavPage", on_delete=models.SET_NULL, null=True, related_name="+")
    site = models.ForeignKey("corpus.Site", on_delete=models.CASCADE, related_name="+")
    url = models.URLField(max_length=2000)
    chunk = models.PositiveIntegerField(default=0)
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    reason = models.TextField(blank=True)
    candidates = models.PositiveIntegerField(default=0)
    calls = models.JSONField(default=list, blank=True, help_text="Requests the generator made for this page.")
    text_source = models.CharField(max_length=8, blank=True, help_text="html or ocr")

    def __str__(self):
        return f"{self.url} in run {self.run_id}"

    class Meta:
        ordering = ["run", "id"]
        constraints = [models.UniqueConstraint(fields=["run", "site", "url"], name="generated_page_once_per_run")]


class Candidate(models.Model):
    """A QA pair a generator wrote, with where it came from and what happened to it."""

    class Decision(models.TextChoices):
        UNDECIDED = "", "Not decided"
        SAMPLED = "sampled", "In the site's sample"
        BY_SAMPLE = "by_sample", "Accepted: the site's sample held up"
        HELD = "held", "Held for full review: the site's sample fell short"

    qa_pair = models.OneToOneField("corpus.QAPair", on_delete=models.CASCADE, related_name="candidate")
    run = models.ForeignKey(GenerationRun, on_delete=models.CASCADE, related_name="made")
    site = models.ForeignKey("corpus.Site", on_delete=models.CASCADE, related_name="+")
    page_url = models.URLField(max_length=2000)
    generator = models.CharField(max_length=40)
    generator_version = models.CharField(max_length=40)
    prompt_version = models.CharField(max_length=40, blank=True)
    kind = models.CharField(max_length=40, blank=True, help_text="What the question asks about, e.g. price.")
    evidence = models.TextField(blank=True, help_text="The page text the answer was taken from.")
    decision = models.CharField(max_length=10, choices=Decision.choices, blank=True, default="")
    original_question = models.TextField(blank=True, help_text="Before an assessor's fix, when there was one.")
    original_answer = models.TextField(blank=True)
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"candidate {self.qa_pair_id} of run {self.run_id}"


class SiteSample(models.Model):
    """One site's sample in a run: how many of its candidates assessors checked, how many
    they accepted, and what that decided for the rest."""

    class State(models.TextChoices):
        ASSESSING = "assessing", "Being assessed"
        PASSED = "passed", "Passed: the rest accepted"
        FAILED = "failed", "Fell short: the rest held for full review"

    run = models.ForeignKey(GenerationRun, on_delete=models.CASCADE, related_name="samples")
    site = models.ForeignKey("corpus.Site", on_delete=models.CASCADE, related_name="+")
    candidates = models.PositiveIntegerField(default=0)
    size = models.PositiveIntegerField(default=0)
    accepted = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    state = models.CharField(max_length=10, choices=State.choices, default=State.ASSESSING)
    decided_at = models.DateTimeField(null=True, blank=True)

    @property
    def acceptance(self):
        decided = self.accepted + self.rejected
        return self.accepted / decided if decided else None

    def __str__(self):
        return f"sample of site {self.site_id} in run {self.run_id}"

    class Meta:
        ordering = ["run", "site"]
        constraints = [models.UniqueConstraint(fields=["run", "site"], name="one_sample_per_site_and_run")]


class CandidateEdit(models.Model):
    """An assessor's fix of a candidate's question or answer; the first one from an
    assessor who accepted it is applied when the candidate is accepted."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="edits")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    question = models.TextField(blank=True)
    answer = models.TextField(blank=True)
    applied = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"fix of candidate {self.candidate_id}"

    class Meta:
        ordering = ["candidate", "created_at", "id"]
