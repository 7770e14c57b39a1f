"""Spot checks of a batch: the sample, decisions with feedback, bonuses, and the
disqualification of a worker whose work of a kind keeps being rejected."""

import pytest
from django.urls import reverse

from hits import services
from hits.models import Assignment, Disqualification, WorkEvent
from tests.api import api_error
from tests.pools import pool_images, webqa_batch

pytestmark = pytest.mark.django_db


def _filter_batch(tasks=4, **fields):
    payloads = [
        {"topic": f"topic {n}", "images": [i.pk for i in pool_images(10, topic=f"topic {n}")]} for n in range(tasks)
    ]
    return webqa_batch(kind="image_filter", payloads=payloads, **fields)


def _do_filter_task(worker, batch):
    assignment, _ = services.request_next_task(worker=worker, batch_id=batch.pk)
    images = assignment.task.payload["images"][:3]
    return services.submit_assignment(
        assignment_id=assignment.pk, worker=worker, data={"images": images, "label": "three towers"}
    )


def test_spot_check_page_shows_the_sample_and_records_decisions(client, rater, reviewer):
    batch = _filter_batch(tasks=3, spot_check_percent=100)
    submitted = [_do_filter_task(rater, batch) for _ in range(3)]
    client.force_login(reviewer)
    page = client.get(reverse("hits:spot_check", args=[batch.pk]))
    assert page.status_code == 200
    assert [a.pk for a in page.context["waiting"]] == [a.pk for a in submitted]
    assert page.context["waiting"][0].summary[0]["answer"] == "What they share: three towers"
    assert len(page.context["waiting"][0].summary[0]["assets"]) == 3

    first, second, third = submitted
    url = lambda a: reverse("hits:decide", args=[a.pk])  # noqa: E731
    client.post(url(first), {"action": "approve", "feedback": "Clear, distinct picks."})
    refused = client.post(url(second), {"action": "reject", "feedback": ""}, follow=True)
    assert "Say why the work is rejected" in refused.content.decode()
    assert Assignment.objects.get(pk=second.pk).state == "submitted"
    client.post(url(second), {"action": "reject", "feedback": "Two of the three are the same tower."})
    client.post(url(third), {"action": "bonus", "amount": "0.25", "reason": "A thoughtful label."})

    states = dict(Assignment.objects.filter(batch=batch).values_list("pk", "state"))
    assert states == {first.pk: "approved", second.pk: "rejected", third.pk: "submitted"}
    assert Assignment.objects.get(pk=third.pk).bonus_reason == "A thoughtful label."

    # The worker reads the feedback on their home page.
    client.force_login(rater)
    home = client.get(reverse("hits:home")).content.decode()
    assert "Two of the three are the same tower." in home and "A thoughtful label." in home


def test_only_reviewers_spot_check(client, rater):
    batch = _filter_batch(tasks=1)
    assignment = _do_filter_task(rater, batch)
    client.force_login(rater)
    assert client.get(reverse("hits:spot_check", args=[batch.pk])).status_code == 403
    assert client.post(reverse("hits:decide", args=[assignment.pk]), {"action": "approve"}).status_code == 403
    assert Assignment.objects.get(pk=assignment.pk).state == "submitted"


def test_approving_the_rest_leaves_the_sample_alone(client, rater, other_rater, reviewer):
    batch = _filter_batch(tasks=6, spot_check_percent=50)
    for _ in range(3):
        _do_filter_task(rater, batch)
        _do_filter_task(other_rater, batch)
    sampled = set(Assignment.objects.filter(batch=batch, spot_check=True).values_list("pk", flat=True))
    assert 0 < len(sampled) < 6
    client.force_login(reviewer)
    client.post(reverse("hits:approve_rest", args=[batch.pk]))
    for assignment in Assignment.objects.filter(batch=batch):
        assert assignment.state == ("submitted" if assignment.pk in sampled else "approved")


def test_worker_is_disqualified_from_a_kind_after_too_many_rejections(rater, reviewer, api_for, settings):
    settings.DISQUALIFY_MIN_REJECTIONS = 3
    settings.DISQUALIFY_REJECTION_SHARE = 0.5
    batch = _filter_batch(tasks=6)
    other_kind = webqa_batch(kind="demo_question", payloads=[{"passage": "Two cats.", "question": "How many cats?"}])
    done = [_do_filter_task(rater, batch) for _ in range(4)]
    services.approve_assignment(assignment_id=done[0].pk, actor=reviewer)
    for assignment in done[1:3]:
        services.reject_assignment(assignment_id=assignment.pk, actor=reviewer, feedback="Near-duplicate picks.")
    assert not Disqualification.objects.exists()  # 2 rejections: under the limit

    services.reject_assignment(assignment_id=done[3].pk, actor=reviewer, feedback="Unrelated images.")
    record = Disqualification.objects.get(worker=rater)
    assert record.kind == "image_filter" and record.automatic
    assert "3 of your 4 reviewed" in record.reason
    assert WorkEvent.objects.filter(action="disqualified", worker=rater).exists()

    # No more image filter work, with the reason; other kinds are still open to them.
    client = api_for(rater)
    refused = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    error = api_error(refused, 403, "not_eligible")
    assert "You can no longer take pick three related images work" in error["message"]
    assert record.reason in error["message"]
    assert client.post("/api/v1/assignments/", {"batch": other_kind.pk}, format="json").status_code == 201

    # Lifting it restores access, and keeps the record.
    services.requalify(worker_id=rater.pk, kind="image_filter", actor=reviewer)
    assert client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").status_code == 201
    assert Disqualification.objects.filter(worker=rater, lifted_at__isnull=False).count() == 1


def test_disqualifying_returns_the_workers_open_task_of_that_kind(rater, reviewer):
    batch = _filter_batch(tasks=2)
    assignment, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    services.disqualify(worker_id=rater.pk, kind="image_filter", reason="Asked to stop.", actor=reviewer)
    assert Assignment.objects.get(pk=assignment.pk).state == "returned"


def test_reviewers_find_the_batches_waiting_for_a_spot_check_on_their_queues_page(client, rater, reviewer):
    batch = _filter_batch(tasks=3, spot_check_percent=100, name="Towers to check")
    first, *_ = [_do_filter_task(rater, batch) for _ in range(3)]
    services.approve_assignment(assignment_id=first.pk, actor=reviewer)
    _filter_batch(tasks=1, spot_check_percent=100, name="Nothing done yet")
    client.force_login(reviewer)
    page = client.get(reverse("moderation:queues")).content.decode()
    assert "Towers to check</a>: 2 waiting" in page
    assert reverse("hits:spot_check", args=[batch.pk]) in page
    assert "Nothing done yet" not in page
