"""Checking work: qualification tests, the validation of QA pairs and its agreement, and
worker quality. (Reference answers are corpus records; the review of images is moderation.)"""

from django.conf import settings
from django.db import models
from django.db.models import F, Q

# --- Qualification tests -------------------------------------------------------------------


class Family(models.TextChoices):
    """The families of work a tutorial and a qualification test are about."""

    SCREENS = "screens", "Screens"
    TRACES = "traces", "Traces"
    IMAGES = "images", "Images"
    TEXT = "text", "Text snippets"


class QualificationTest(models.Model):
    """A list of QA pairs, some following the guidelines and some not; passing it grants
    ``qualification``."""

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    family = models.CharField(max_length=8, choices=Family.choices)
    qualification = models.OneToOneField(
        "accounts.Qualification", on_delete=models.PROTECT, related_name="test",
        help_text="Granted to workers who pass.",
    )  # fmt: skip
    introduction = models.TextField(blank=True, help_text="Shown before the worker starts.")
    rules = models.JSONField(
        default=dict, help_text='The guidelines items can break: {"rule_key": "what the rule says", …}.'
    )
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.title

    class Meta:
        ordering = ["title"]
        constraints = [models.CheckConstraint(condition=Q(family__in=Family.values), name="test_family_known")]


class QualificationItem(models.Model):
    """One QA pair of a test, with its pictures and the author's verdict on it.

    ``figures`` lists what the worker sees beside the pair: pictures drawn by
    ``validation.figures`` (``{"draw": "screen", …}``) or stored images (``{"asset": 12}``).
    """

    test = models.ForeignKey(QualificationTest, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField()
    question = models.TextField()
    answer = models.TextField()
    figures = models.JSONField(default=list, blank=True)
    follows_guidelines = models.BooleanField()
    broken_rule = models.CharField(max_length=40, blank=True, help_text="The key of the rule it breaks, if any.")
    explanation = models.TextField(
        blank=True, help_text="Why this is the right verdict; shown to a worker who got the item wrong."
    )

    def __str__(self):
        return f"item {self.position} of {self.test}"

    class Meta:
        ordering = ["test", "position"]
        constraints = [
            models.UniqueConstraint(fields=["test", "position"], name="test_item_position_unique"),
            models.CheckConstraint(
                condition=Q(follows_guidelines=True, broken_rule="") | Q(follows_guidelines=False) & ~Q(broken_rule=""),
                name="test_item_names_broken_rule",
            ),
        ]


class QualificationAttempt(models.Model):
    """One go at a test. Every attempt is kept; a worker gets at most two."""

    class Outcome(models.TextChoices):
        PASSED = "passed", "Passed"
        SECOND_CHANCE = "second_chance", "Second attempt allowed"
        FAILED = "failed", "Not passed"

    test = models.ForeignKey(QualificationTest, on_delete=models.PROTECT, related_name="attempts")
    worker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qualification_attempts"
    )
    number = models.PositiveSmallIntegerField()
    answers = models.JSONField(
        default=dict, help_text='Per item id: {"flag": "ok" or a rule key, "explanation": "…", "right": true}.'
    )
    correct = models.PositiveSmallIntegerField()
    total = models.PositiveSmallIntegerField()
    score = models.DecimalField(max_digits=4, decimal_places=3)
    outcome = models.CharField(max_length=16, choices=Outcome.choices)
    submitted_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"attempt {self.number} of {self.worker} at {self.test}"

    class Meta:
        ordering = ["-submitted_at"]
        constraints = [
            models.UniqueConstraint(fields=["test", "worker", "number"], name="one_attempt_per_number"),
            models.CheckConstraint(condition=Q(number__in=[1, 2]), name="at_most_two_attempts"),
            models.CheckConstraint(condition=Q(correct__lte=F("total")) & Q(total__gt=0), name="attempt_score_range"),
            models.CheckConstraint(
                condition=Q(outcome__in=["passed", "second_chance", "failed"]), name="attempt_outcome_known"
            ),
        ]


class QualificationChange(models.Model):
    """The history of a worker's qualifications: every grant and revocation, and why."""

    class Action(models.TextChoices):
        GRANTED = "granted", "Granted"
        REVOKED = "revoked", "Revoked"

    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qualification_changes")
    qualification = models.ForeignKey("accounts.Qualification", on_delete=models.CASCADE, related_name="changes")
    action = models.CharField(max_length=8, choices=Action.choices)
    reason = models.TextField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        help_text="Empty when the platform did it (a passed test, an automatic revocation).",
    )  # fmt: skip
    attempt = models.ForeignKey(
        QualificationAttempt, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.qualification} {self.action} for {self.worker}"

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(action__in=["granted", "revoked"]), name="qualification_change_known"),
            models.CheckConstraint(condition=~Q(reason=""), name="qualification_change_has_reason"),
        ]


# --- Validation of QA pairs ----------------------------------------------------------------


class PairValidation(models.Model):
    """The validation of one QA pair: its task, and once decided, the majority's verdict.

    Two validators judge; a third is asked when they disagree; the majority decides and
    the pair's state follows.
    """

    class Outcome(models.TextChoices):
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"

    qa_pair = models.OneToOneField("corpus.QAPair", on_delete=models.CASCADE, related_name="validation")
    task = models.OneToOneField("hits.Task", on_delete=models.CASCADE, related_name="pair_validation")
    outcome = models.CharField(max_length=8, choices=Outcome.choices, blank=True)
    accept_votes = models.PositiveSmallIntegerField(default=0)
    reject_votes = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"validation of QA pair {self.qa_pair_id}"

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(outcome__in=["", "accepted", "rejected"]), name="validation_outcome_known"
            ),
            models.CheckConstraint(
                condition=Q(outcome="", decided_at__isnull=True) | ~Q(outcome="") & Q(decided_at__isnull=False),
                name="validation_decided_has_time",
            ),
        ]


class Judgement(models.Model):
    """One validator's answers on one QA pair."""

    validation = models.ForeignKey(PairValidation, on_delete=models.CASCADE, related_name="judgements")
    qa_pair = models.ForeignKey("corpus.QAPair", on_delete=models.CASCADE, related_name="judgements")
    assignment = models.OneToOneField("hits.Assignment", on_delete=models.CASCADE, related_name="judgement")
    validator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="judgements")
    answer_correct = models.BooleanField()
    follows_guidelines = models.BooleanField()
    sources_needed = models.BooleanField(help_text="Every cited source is needed and none repeats another.")
    corrected_answer = models.TextField(blank=True)
    comment = models.TextField(blank=True)
    accept = models.BooleanField(help_text="Yes to all three questions.")
    agrees_with_majority = models.BooleanField(null=True, blank=True, help_text="Known once the pair is decided.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"judgement by {self.validator} on QA pair {self.qa_pair_id}"

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["qa_pair", "validator"], name="one_judgement_per_validator"),
            models.CheckConstraint(
                condition=Q(accept=True, answer_correct=True, follows_guidelines=True, sources_needed=True)
                | Q(accept=False) & (Q(answer_correct=False) | Q(follows_guidelines=False) | Q(sources_needed=False)),
                name="judgement_accept_means_all_yes",
            ),
        ]


# --- Quality ---------------------------------------------------------------------------------


class WorkerQuality(models.Model):
    """A worker's standing in validation, kept up to date as pairs are decided."""

    worker = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quality")
    judgements_decided = models.PositiveIntegerField(default=0, help_text="Their judgements on decided pairs.")
    judgements_agreeing = models.PositiveIntegerField(default=0, help_text="… of which agreed with the majority.")
    pairs_accepted = models.PositiveIntegerField(default=0, help_text="Their own QA pairs accepted.")
    pairs_rejected = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    @property
    def agreement_rate(self):
        return None if not self.judgements_decided else self.judgements_agreeing / self.judgements_decided

    @property
    def acceptance_rate(self):
        decided = self.pairs_accepted + self.pairs_rejected
        return None if not decided else self.pairs_accepted / decided

    def __str__(self):
        return f"quality of {self.worker}"

    class Meta:
        verbose_name_plural = "worker quality"
        constraints = [
            models.CheckConstraint(
                condition=Q(judgements_agreeing__lte=F("judgements_decided")), name="quality_agreeing_within_decided"
            )
        ]


class BatchAgreement(models.Model):
    """Inter-rater agreement of the validators' verdicts on a batch's QA pairs
    (Krippendorff's alpha, nominal), recomputed as pairs are decided."""

    batch = models.OneToOneField("hits.Batch", on_delete=models.CASCADE, related_name="agreement")
    statistic = models.CharField(max_length=32, default="krippendorff_alpha")
    value = models.FloatField(null=True, blank=True, help_text="Empty while it cannot be computed.")
    pairs = models.PositiveIntegerField(default=0, help_text="Pairs with two or more judgements.")
    judgements = models.PositiveIntegerField(default=0)
    observed_agreement = models.FloatField(null=True, blank=True)
    computed_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"agreement on {self.batch}"
