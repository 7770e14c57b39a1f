"""The six-image QA task: three QA pairs on a group of six images, each needing one or
two of them, at least one needing two; full-sentence answers with keyword answers.

A group is made only of images cleared by review (``collection.grouping``). If one of
them loses its clearance later, the task is handed to nobody, and a worker who already
holds it sees and may cite only the images still cleared.
"""

from django.db import transaction
from django.db.models import BigIntegerField, Exists, F, OuterRef
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from rest_framework import serializers

from assets.models import Asset
from corpus.models import ImageGroup, ImageSource
from corpus.selectors import summary_of
from corpus.services import write_pairs
from hits import registry
from hits.kinds.base import TaskKind
from hits.models import Batch, Task
from mining.categories import categorise, keyword_problem

from .webqa import WebQAAnswer, checked_ids, int_list

PAIRS = 3
CHECKLIST = {
    "not_simple_fact": "None of the questions asks for a simple fact that one look-up answers.",
    "not_text_searchable": "None can be answered by searching the web for text alone: each needs what the images show.",
    "not_image_bound": "No question says “this image” or points at an image by its place.",
    "meaningful_alone": "Each question makes sense to someone who does not see the six images.",
}


class SixImageTaskInput(serializers.Serializer):
    group = serializers.PrimaryKeyRelatedField(queryset=ImageGroup.objects.all())

    def validate_group(self, group):
        if group.images().exclude(asset__review_state=Asset.ReviewState.CLEARED).exists():
            raise serializers.ValidationError(
                f"Group {group.pk} has an image that is not cleared by review; only cleared images go to workers."
            )
        return group

    def to_internal_value(self, data):
        return {"group": super().to_internal_value(data)["group"].pk}


class ImageQuestion(WebQAAnswer):
    images = serializers.ListField(child=serializers.IntegerField(min_value=1), allow_empty=True)

    def validate_images(self, ids):
        if not 1 <= len(ids) <= 2:
            raise serializers.ValidationError(f"Tick the one or two images the answer needs; you ticked {len(ids)}.")
        return checked_ids(ids, allowed=self.context["images"], what="image")

    def validate(self, data):
        # The scorer marks colour, shape, yes/no and number answers only in its own words:
        # a keyword answer outside them would score nothing, however right.
        category = categorise({"split_kind": "image", **data})
        problem = keyword_problem(category, data["keyword_answer"])
        if problem:
            raise serializers.ValidationError({"keyword_answer": problem})
        data["question_category"] = category
        return data


class SixImageQASubmission(serializers.Serializer):
    pairs = ImageQuestion(many=True)
    checklist = serializers.MultipleChoiceField(
        choices=list(CHECKLIST.items()), allow_empty=True, help_text="The guideline points the worker ticked."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assignment = self.context.get("assignment")
        if assignment is not None:
            group = ImageGroup.objects.get(pk=assignment.task.payload["group"])
            self.context["images"] = {image.pk: image for image in shown_images(group)}

    def validate_pairs(self, pairs):
        if len(pairs) != PAIRS:
            raise serializers.ValidationError(f"Write {PAIRS} QA pairs; you wrote {len(pairs)}.")
        if not any(len(pair["images"]) == 2 for pair in pairs):
            raise serializers.ValidationError(
                "At least one of the three questions must need two images together; each of yours needs one."
            )
        questions = [" ".join(pair["question"].lower().split()) for pair in pairs]
        if len(set(questions)) != len(questions):
            raise serializers.ValidationError("Two of the questions are the same; write three different ones.")
        return pairs

    def validate_checklist(self, ticked):
        unticked = [key for key in CHECKLIST if key not in ticked]
        if unticked:
            raise serializers.ValidationError(
                f"Tick every point of the checklist once your questions meet it; {len(unticked)} not ticked yet."
            )
        return sorted(ticked)


@registry.kind
class SixImageQA(TaskKind):
    name = "six_image_qa"
    family = "webqa"
    split_kind = "image"
    negatives = ("text", "image")
    categorised_as = "webqa"
    tutorial = "images"
    title = "Write three questions on six images"
    summary = "Six images with their descriptions: write three questions that need one or two of them to answer."
    template_name = "collection/kinds/six_image_qa.html"
    input_serializer = SixImageTaskInput
    submission_serializer = SixImageQASubmission

    def excluded_tasks(self, *, worker_id):
        # Tasks whose group holds an image no longer cleared go to nobody.
        withdrawn = ImageSource.objects.filter(triples__group=OuterRef("group")).exclude(
            asset__review_state=Asset.ReviewState.CLEARED
        )
        return (
            Task.objects.filter(
                batch__kind=self.name, batch__state=Batch.State.OPEN, slots_taken__lt=F("assignments_wanted")
            )
            .alias(group=Cast(KT("payload__group"), BigIntegerField()))
            .filter(Exists(withdrawn))
        )

    def form_data(self, post):
        data = {
            "pairs": [
                {
                    "images": int_list(post.getlist(f"pair-{index}-images")),
                    "question": post.get(f"pair-{index}-question", ""),
                    "answer": post.get(f"pair-{index}-answer", ""),
                    "keyword_answer": post.get(f"pair-{index}-keyword_answer", ""),
                }
                for index in range(PAIRS)
            ]
        }
        data["checklist"] = post.getlist("checklist")
        return data

    def page_context(self, *, assignment):
        group = ImageGroup.objects.get(pk=assignment.task.payload["group"])
        images = list(shown_images(group))
        return {
            "group": group,
            "images": images,
            "withdrawn": group.images().count() - len(images),
            "checklist": CHECKLIST,
            "blank_pairs": [{} for _ in range(PAIRS)],
        }

    def fill(self, *, batch):
        from ..tasks import group_image_triples

        group_image_triples.delay(batch.pk)
        return "grouping the waiting image triples into six-image tasks (a background job)."

    def review_summary(self, *, assignment):
        return summary_of(assignment)

    @transaction.atomic
    def on_submitted(self, *, assignment, answer):
        group_id = assignment.task.payload["group"]
        written = write_pairs(
            assignment=assignment,
            kind=self,
            pairs=[
                {
                    "question": pair["question"],
                    "answer": pair["answer"],
                    "keyword_answer": pair["keyword_answer"],
                    "question_category": pair["question_category"],
                    "image_group_id": group_id,
                    "evidence": [{"image_id": image} for image in pair["images"]],
                }
                for pair in answer["pairs"]
            ],
        )
        return {
            "pairs": [{**pair, "qa_pair": qa_pair.pk} for pair, qa_pair in zip(answer["pairs"], written, strict=True)],
            "checklist": answer["checklist"],
        }


def shown_images(group):
    """The images of ``group`` that review has cleared, in the group's order."""
    return group.images().filter(asset__review_state=Asset.ReviewState.CLEARED)
