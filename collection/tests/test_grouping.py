"""Grouping image-filter triples into six-image QA tasks, on a real Celery worker."""

import pytest

from assets.models import Asset
from collection import tasks
from collection.grouping import NotASixImageBatch, group_triples, similarity_matrix
from corpus.models import ImageGroup, ImageTriple
from hits.models import Batch
from tests.pools import pool_images, triple

LABELS_THAT_PAIR = [
    ("red barns in the snow", "old red barns"),
    ("stone lighthouses on cliffs", "lighthouses on rocky cliffs"),
    ("steam locomotives", "steam locomotive engines"),
]
LABELS_ALONE = ["violins and cellos", "glaciers", "tulip fields"]


def _cleared_images(count, *, topic):
    """Pool images review has cleared: only their triples are grouped."""
    images = pool_images(count, topic=topic)
    Asset.objects.filter(image_source__in=images).update(review_state=Asset.ReviewState.CLEARED)
    return images


def _ten_triples():
    """Six triples in three similar pairs, three unlike anything, and one similar to the
    barns but sharing an image with both barn triples, so it may join neither."""
    images = iter(_cleared_images(28, topic="mixed"))
    made = {}
    for first, second in LABELS_THAT_PAIR:
        made[first] = triple(label=first, images=[next(images) for _ in range(3)])
        made[second] = triple(label=second, images=[next(images) for _ in range(3)])
    for label in LABELS_ALONE:
        made[label] = triple(label=label, images=[next(images) for _ in range(3)])
    barn_images = list(made["red barns in the snow"].images.all()[:1]) + list(made["old red barns"].images.all()[:1])
    made["red barns"] = triple(label="red barns", images=[*barn_images, next(images)])
    return made


def _check_groups():
    used = {}
    for group in ImageGroup.objects.all():
        members = list(group.triples.all())
        assert len(members) == 2
        images = [image.pk for member in members for image in member.images.all()]
        assert len(images) == 6 and len(set(images)) == 6, f"{group} repeats an image"
        for member in members:
            assert member.pk not in used, f"{member} is in two groups"
            used[member.pk] = group.pk
        assert group.task is not None and group.task.payload == {"group": group.pk}
    return used


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_grouping_job_pairs_only_similar_triples_once_each(celery_worker):
    made = _ten_triples()
    batch = Batch.objects.create(name="Six-image QA", kind="six_image_qa", state=Batch.State.OPEN)

    assert tasks.group_image_triples.delay(batch.pk).get(timeout=60) == 3
    used = _check_groups()
    labels = {frozenset(t.label for t in g.triples.all()) for g in ImageGroup.objects.all()}
    assert labels == {frozenset(pair) for pair in LABELS_THAT_PAIR}
    waiting = set(ImageTriple.objects.filter(group__isnull=True).values_list("label", flat=True))
    assert waiting == {*LABELS_ALONE, "red barns"}
    assert batch.tasks.count() == 3

    # Run again: nothing new to pair, nothing changes.
    assert tasks.group_image_triples.delay(batch.pk).get(timeout=60) == 0
    assert _check_groups() == used

    # A later triple like a waiting one is paired with it on the next run.
    fresh = _cleared_images(3, topic="glaciers")
    triple(label="blue glaciers", images=fresh)
    assert tasks.group_image_triples.delay(batch.pk).get(timeout=60) == 1
    newest = ImageGroup.objects.order_by("-id").first()
    assert {t.label for t in newest.triples.all()} == {"glaciers", "blue glaciers"}
    assert made["violins and cellos"].pk not in _check_groups()


@pytest.mark.django_db
def test_grouping_goes_only_into_a_six_image_batch():
    batch = Batch.objects.create(name="Filter", kind="image_filter")
    with pytest.raises(NotASixImageBatch):
        group_triples(batch_id=batch.pk)


def test_similar_labels_score_higher_than_unrelated_ones():
    scores = similarity_matrix(["lighthouses", "stone lighthouse", "tulip fields"])
    assert scores[0, 1] > 0.5 > scores[0, 2]
    assert scores[0, 0] == pytest.approx(1.0)
