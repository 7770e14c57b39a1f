"""Mined hard negatives: sources that look relevant to a question but do not answer it."""

from django.db import models
from django.db.models import Q


class Distractor(models.Model):
    """One hard negative of a QA pair: a snippet, image or screen, with how it was found."""

    class Kind(models.TextChoices):
        TEXT = "text", "Text snippet"
        IMAGE = "image", "Image"
        SCREEN = "screen", "Screen"

    qa_pair = models.ForeignKey("collection.QAPair", on_delete=models.CASCADE, related_name="distractors")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    snippet = models.ForeignKey("collection.Snippet", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    image = models.ForeignKey(
        "collection.ImageSource", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    screen = models.ForeignKey("collection.Screen", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
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
