"""The image filter task: of ten images found for one topic, pick three that are distinct
but related, and say what they share. The triples become six-image groups
(``collection.grouping``)."""

from django.db import transaction
from rest_framework import serializers

from corpus.models import ImageSource, ImageTriple
from hits import registry
from hits.kinds.base import TaskKind

from .webqa import add_pool_tasks, checked_ids, existing_ids, int_list

FILTER_SIZE = 10
PICKS = 3


class ImageFilterInput(serializers.Serializer):
    topic = serializers.CharField(max_length=200)
    images = serializers.ListField(
        child=serializers.IntegerField(min_value=1), min_length=FILTER_SIZE, max_length=FILTER_SIZE
    )

    def validate_images(self, ids):
        return existing_ids(ids, model=ImageSource, what="image")


class ImageFilterSubmission(serializers.Serializer):
    images = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        allow_empty=True,
        error_messages={"required": f"Pick {PICKS} images."},
    )
    label = serializers.CharField(
        min_length=3,
        max_length=200,
        error_messages={
            "blank": "Say in a few words what the three images have in common.",
            "required": "Say in a few words what the three images have in common.",
            "min_length": "Say in a few words what the three images have in common.",
        },
    )

    def validate_images(self, ids):
        if len(ids) != PICKS:
            raise serializers.ValidationError(f"Pick exactly {PICKS} images; you picked {len(ids)}.")
        return checked_ids(ids, allowed=set(self.context["assignment"].task.payload["images"]), what="image")

    def validate_label(self, label):
        return " ".join(label.split())


@registry.kind
class ImageFilter(TaskKind):
    name = "image_filter"
    tutorial = "images"
    title = "Pick three related images"
    summary = "Of ten images found for one topic, pick three that differ but belong together, and say what links them."
    template_name = "collection/kinds/image_filter.html"
    input_serializer = ImageFilterInput
    submission_serializer = ImageFilterSubmission

    def form_data(self, post):
        return {"images": int_list(post.getlist("images")), "label": post.get("label", "")}

    def page_context(self, *, assignment):
        ids = assignment.task.payload["images"]
        images = ImageSource.objects.in_bulk(ids)
        return {"images": [images[pk] for pk in ids if pk in images], "picks": PICKS}

    def fill(self, *, batch):
        added = make_filter_tasks(batch=batch)
        return f"{added} image filter tasks added from the image pool."

    def review_summary(self, *, assignment):
        triple = ImageTriple.objects.filter(assignment=assignment).prefetch_related("images").first()
        if triple is None:
            return []
        return [
            {
                "question": f"Topic: {triple.topic}",
                "answer": f"What they share: {triple.label}",
                "assets": [{"asset": image.asset_id, "title": image.title} for image in triple.images.all()],
            }
        ]

    @transaction.atomic
    def on_submitted(self, *, assignment, answer):
        triple = ImageTriple.objects.create(
            assignment=assignment,
            author_id=assignment.worker_id,
            topic=assignment.task.payload["topic"],
            label=answer["label"],
        )
        triple.images.set(answer["images"])
        return {"images": answer["images"], "label": answer["label"], "triple": triple.pk}


def make_filter_tasks(*, batch, topics=None):
    """Adds image filter tasks to ``batch``: each topic's pool images in sets of ten.
    Returns the number of tasks added."""
    pool = ImageSource.objects.exclude(topic="")
    if topics:
        pool = pool.filter(topic__in=topics)
    return add_pool_tasks(
        batch=batch,
        pool=pool,
        key="images",
        size=FILTER_SIZE,
        make_payload=lambda topic, ids: {"topic": topic, "images": ids},
    )
