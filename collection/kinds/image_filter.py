"""The image filter task: of ten images found for one topic, pick three that are distinct
but related, and say what they share. The triples become six-image groups
(``collection.grouping``).

Only pool images cleared by review are put in a task. An image that loses its clearance
later (rejected, or replaced by a redacted copy) is never shown again: its tasks are
handed to nobody, and a worker who already holds one sees and may pick only the rest.
"""

from django.db import transaction
from django.db.models import BigIntegerField, Exists, F, OuterRef
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from rest_framework import serializers

from assets.models import Asset
from corpus.models import ImageSource, ImageTriple
from hits import registry
from hits.kinds.base import TaskKind
from hits.models import Batch, Task

from .webqa import checked_ids, existing_ids, int_list

FILTER_SIZE = 10
PICKS = 3


class ImageFilterInput(serializers.Serializer):
    topic = serializers.CharField(max_length=200)
    images = serializers.ListField(
        child=serializers.IntegerField(min_value=1), min_length=FILTER_SIZE, max_length=FILTER_SIZE
    )

    def validate_images(self, ids):
        ids = existing_ids(ids, model=ImageSource, what="image")
        uncleared = ImageSource.objects.filter(pk__in=ids).exclude(asset__review_state=Asset.ReviewState.CLEARED)
        first = uncleared.order_by("id").values_list("id", flat=True).first()
        if first is not None:
            raise serializers.ValidationError(
                f"Pool image {first} is not cleared by review; only cleared images go to workers."
            )
        return ids


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
        shown = cleared_images(self.context["assignment"].task.payload["images"])
        return checked_ids(ids, allowed=set(shown), what="image")

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

    def excluded_tasks(self, *, worker_id):
        # Tasks with an image no longer cleared go to nobody. Only tasks with a free slot in
        # an open batch matter to hand-out, which keeps the check small.
        positions = {f"image_{n}": Cast(KT(f"payload__images__{n}"), BigIntegerField()) for n in range(FILTER_SIZE)}
        withdrawn = ImageSource.objects.filter(pk__in=[OuterRef(name) for name in positions]).exclude(
            asset__review_state=Asset.ReviewState.CLEARED
        )
        return (
            Task.objects.filter(
                batch__kind=self.name, batch__state=Batch.State.OPEN, slots_taken__lt=F("assignments_wanted")
            )
            .alias(**positions)
            .filter(Exists(withdrawn))
        )

    def form_data(self, post):
        return {"images": int_list(post.getlist("images")), "label": post.get("label", "")}

    def page_context(self, *, assignment):
        ids = assignment.task.payload["images"]
        images = cleared_images(ids)
        return {
            "images": [images[pk] for pk in ids if pk in images],
            "withdrawn": len(ids) - len(images),
            "picks": PICKS,
        }

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


def cleared_images(ids):
    """``{id: ImageSource}`` of the images among ``ids`` that review has cleared."""
    return ImageSource.objects.filter(asset__review_state=Asset.ReviewState.CLEARED).in_bulk(ids)


def make_filter_tasks(*, batch, topics=None):
    """Adds image filter tasks to ``batch``: each topic's cleared pool images that none of
    its tasks has yet, in import order, in sets of ten (a topic's last few wait for more).
    Returns the number of tasks added."""
    from hits.services import add_tasks

    used = {pk for payload in batch.tasks.values_list("payload", flat=True) for pk in payload.get("images", [])}
    pool = ImageSource.objects.filter(asset__review_state=Asset.ReviewState.CLEARED).exclude(topic="")
    if topics:
        pool = pool.filter(topic__in=topics)
    by_topic = {}
    for topic, pk in pool.order_by("topic", "id").values_list("topic", "id").iterator():
        if pk not in used:
            by_topic.setdefault(topic, []).append(pk)
    payloads = [
        {"topic": topic, "images": ids[start : start + FILTER_SIZE]}
        for topic, ids in by_topic.items()
        for start in range(0, len(ids) - FILTER_SIZE + 1, FILTER_SIZE)
    ]
    if payloads:
        add_tasks(batch=batch, payloads=payloads)
    return len(payloads)
