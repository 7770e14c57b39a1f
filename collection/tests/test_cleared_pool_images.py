"""Only pool images that review has cleared reach workers: filter tasks and six-image
groups are made of cleared images only, a task whose image is rejected later is handed to
nobody, a worker already holding one neither sees nor may cite that image, and the image
itself is served to no worker."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework import serializers

from assets.models import Asset
from collection.grouping import group_triples
from collection.kinds.image_filter import make_filter_tasks
from corpus.models import ImageGroup, ImageTriple, QAPair
from hits import services as hits
from hits.errors import NoTaskAvailable
from hits.models import Batch
from moderation import services as moderation
from moderation.models import ReviewItem
from tests.api import api_error
from tests.pools import image_group, pool_image, pool_images, triple, webqa_batch

pytestmark = pytest.mark.django_db


def _in_state(images, state):
    Asset.objects.filter(image_source__in=images).update(review_state=state)
    return images


def _clear(images):
    return _in_state(images, Asset.ReviewState.CLEARED)


def _pending(images):
    """Imported and not reviewed yet."""
    return _in_state(images, Asset.ReviewState.PENDING_REVIEW)


def _reject(image, reviewer):
    """A reviewer rejects the image through the moderation queue, as in production."""
    item = moderation.enqueue(asset=image.asset)
    ReviewItem.objects.filter(pk=item.pk).update(
        claimed_by=reviewer, claimed_until=timezone.now() + timedelta(minutes=5)
    )
    moderation.reject(item_id=item.pk, reviewer=reviewer, reason="Shows a private person's face.")


def _take(client, batch):
    response = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def _thumbnail(image):
    return f"/assets/{image.asset_id}/thumb/"


# --- Making tasks -------------------------------------------------------------------------


def test_filter_tasks_are_cut_from_cleared_images_only(reviewer):
    images = _clear(pool_images(14, topic="lighthouses"))
    pending = _pending([pool_image(title="unreviewed lighthouse", topic="lighthouses")])
    _reject(images[4], reviewer)
    batch = Batch.objects.create(name="Filter", kind="image_filter")

    assert make_filter_tasks(batch=batch) == 1
    (task,) = batch.tasks.all()
    assert images[4].pk not in task.payload["images"] and pending[0].pk not in task.payload["images"]
    assert task.payload["images"] == [image.pk for image in images[:4] + images[5:11]]

    # Clearing more later never puts an image in a second task of the batch.
    _clear(pending + [pool_image(title=f"later lighthouse {n}", topic="lighthouses") for n in range(6)])
    assert make_filter_tasks(batch=batch) == 1
    shown = [pk for task in batch.tasks.all() for pk in task.payload["images"]]
    assert len(shown) == len(set(shown)) == 20 and images[4].pk not in shown


def test_a_task_naming_an_uncleared_image_is_refused(reviewer):
    images = _clear(pool_images(10))
    _reject(images[3], reviewer)
    batch = Batch.objects.create(name="Filter", kind="image_filter")
    with pytest.raises(serializers.ValidationError) as refused:
        hits.add_tasks(batch=batch, payloads=[{"topic": "lighthouses", "images": [i.pk for i in images]}])
    assert refused.value.detail[0]["images"] == [
        f"Pool image {images[3].pk} is not cleared by review; only cleared images go to workers."
    ]
    group = image_group(_clear(pool_images(5, topic="barns")) + _pending(pool_images(1, topic="barns-pending")))
    six = Batch.objects.create(name="Six", kind="six_image_qa")
    with pytest.raises(serializers.ValidationError) as refused:
        hits.add_tasks(batch=six, payloads=[{"group": group.pk}])
    assert "not cleared by review" in str(refused.value.detail[0]["group"][0])
    assert not batch.tasks.exists() and not six.tasks.exists()


def test_triples_with_an_image_no_longer_cleared_are_not_grouped(reviewer):
    images = _clear(pool_images(9, topic="mixed"))
    triple(label="red barns", images=images[0:3])
    triple(label="old red barns", images=images[3:6])
    triple(label="red barns in snow", images=images[6:9])
    _reject(images[1], reviewer)
    batch = Batch.objects.create(name="Six", kind="six_image_qa")
    assert group_triples(batch_id=batch.pk, threshold=0.1) == 1
    (group,) = ImageGroup.objects.all()
    assert set(group.triples.values_list("label", flat=True)) == {"old red barns", "red barns in snow"}
    assert ImageTriple.objects.get(label="red barns").group is None


# --- Hand-out and the task page -----------------------------------------------------------


def test_a_filter_task_whose_image_is_rejected_is_handed_to_nobody(rater, other_rater, reviewer, api_for):
    spoiled, sound = _clear(pool_images(10, topic="a")), _clear(pool_images(10, topic="b"))
    batch = webqa_batch(
        kind="image_filter",
        payloads=[{"topic": "a", "images": [i.pk for i in spoiled]}, {"topic": "b", "images": [i.pk for i in sound]}],
    )
    _reject(spoiled[0], reviewer)
    assignment = _take(api_for(rater), batch)
    assert assignment["task"]["payload"]["topic"] == "b"
    with pytest.raises(NoTaskAvailable):
        hits.request_next_task(worker=other_rater, batch_id=batch.pk)


def test_a_worker_holding_a_filter_task_neither_sees_nor_picks_a_rejected_image(rater, reviewer, api_for, client):
    images = _clear(pool_images(10))
    batch = webqa_batch(kind="image_filter", payloads=[{"topic": "lighthouses", "images": [i.pk for i in images]}])
    api = api_for(rater)
    assignment = _take(api, batch)["id"]
    client.force_login(rater)
    assert client.get(_thumbnail(images[2])).status_code == 200
    _reject(images[2], reviewer)

    html = client.get(f"/assignments/{assignment}/").content.decode()
    assert html.count('data-testid="pool-image"') == 9 and _thumbnail(images[2]) not in html
    assert "1 of this task's images was taken out by review" in html
    assert client.get(_thumbnail(images[2])).status_code == 404
    picked = {"images": [images[0].pk, images[2].pk, images[5].pk], "label": "white towers"}
    response = api.post(f"/api/v1/assignments/{assignment}/submit/", {"answer": picked}, format="json")
    assert api_error(response, 400, "invalid")["fields"]["answer.images"] == [
        f"Image {images[2].pk} is not one of this task's images."
    ]
    picked["images"][1] = images[3].pk
    assert api.post(f"/api/v1/assignments/{assignment}/submit/", {"answer": picked}, format="json").status_code == 200


def test_a_six_image_task_with_a_rejected_image_is_handed_to_nobody_and_hides_it(
    rater, other_rater, reviewer, api_for, client
):
    images = _clear(pool_images(6))
    group = image_group(images)
    batch = webqa_batch(kind="six_image_qa", payloads=[{"group": group.pk}], wanted=2)
    api = api_for(rater)
    assignment = _take(api, batch)["id"]
    _reject(images[4], reviewer)

    with pytest.raises(NoTaskAvailable):
        hits.request_next_task(worker=other_rater, batch_id=batch.pk)
    client.force_login(rater)
    html = client.get(f"/assignments/{assignment}/").content.decode()
    assert html.count('data-testid="group-image"') == 5 and _thumbnail(images[4]) not in html
    assert "1 of the group's images was taken out by review" in html
    pair = {
        "question": "Are the lantern rooms of the two tallest lighthouses the same colour?",
        "answer": "Yes, both of the tallest lighthouses have red lantern rooms.",
        "keyword_answer": "yes",
    }
    answer = {
        "pairs": [{**pair, "images": [images[0].pk, images[4].pk]}, {**pair, "images": [images[1].pk]},
                  {**pair, "images": [images[2].pk]}],
        "checklist": ["not_simple_fact", "not_text_searchable", "not_image_bound", "meaningful_alone"],
    }  # fmt: skip
    response = api.post(f"/api/v1/assignments/{assignment}/submit/", {"answer": answer}, format="json")
    assert api_error(response, 400, "invalid")["fields"]["answer.pairs.0.images"] == [
        f"Image {images[4].pk} is not one of this task's images."
    ]
    assert not QAPair.objects.exists()


# --- Who may see a pool image ---------------------------------------------------------------


def test_workers_see_only_cleared_pool_images(rater, reviewer, client):
    cleared, pending, rejected = (
        _clear(pool_images(1, topic="a")) + _pending(pool_images(1, topic="b")) + _clear(pool_images(1, topic="c"))
    )
    _reject(rejected, reviewer)
    client.force_login(rater)
    assert client.get(_thumbnail(cleared)).status_code == 200
    assert client.get(_thumbnail(pending)).status_code == 404
    assert client.get(_thumbnail(rejected)).status_code == 404
    client.force_login(reviewer)
    assert client.get(_thumbnail(pending)).status_code == 200  # reviewers see what they review
