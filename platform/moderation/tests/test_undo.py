"""A reviewer takes back their last decision: within a short window, only their own, and
only while nothing has acted on it."""

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from accounts.models import Role
from assets.models import Asset, AssetUpload
from assets.signals import asset_uncleared
from assets.tests.samples import png_bytes
from collection.services import capture_screen
from hits import services as work
from moderation import services as review
from moderation.models import ReviewDecision, ReviewItem
from moderation.signals import undoing_approval
from tests.factories import UserFactory, open_batch

pytestmark = pytest.mark.django_db


def _held(author, reviewer, seed=1, **capture):
    screen = capture_screen(
        file=SimpleUploadedFile("s.png", png_bytes(size=(400, 300), seed=seed), content_type="image/png"),
        author=author,
        **capture,
    )
    review.record_prescreen(asset_id=screen.asset_id, result={"findings": [], "pii_risk": 0.5, "safety_risk": 0})
    item = review.claim_next(reviewer=reviewer, queue="pii")
    assert item.asset_id == screen.asset_id
    return item


def test_undoing_an_approval_puts_the_screen_back_in_the_reviewers_hands(rater, reviewer):
    item = _held(rater, reviewer)
    review.approve(item_id=item.pk, reviewer=reviewer)
    decision = review.last_decision(reviewer=reviewer)
    assert decision.decision == "approved" and review.can_undo(decision)

    told = []
    asset_uncleared.connect(lambda *, asset, **_: told.append(asset.pk), dispatch_uid="test.told", weak=False)
    try:
        review.undo(decision_id=decision.pk, reviewer=reviewer)
    finally:
        asset_uncleared.disconnect(dispatch_uid="test.told")
    assert told == [item.asset_id]
    item.refresh_from_db()
    decision.refresh_from_db()
    assert Asset.objects.get(pk=item.asset_id).review_state == "pending_review"
    assert item.decided_at is None and item.claimed_by == reviewer
    assert decision.undone_at is not None  # kept in the audit log, marked undone
    assert review.last_decision(reviewer=reviewer) is None
    assert review.claim_next(reviewer=reviewer, queue="pii") == item
    review.reject(item_id=item.pk, reviewer=reviewer, reason="Shows a bank card")  # decided again
    assert Asset.objects.get(pk=item.asset_id).review_state == "rejected"


def test_only_the_reviewer_who_decided_may_undo(rater, reviewer):
    other = UserFactory(role=Role.REVIEWER)
    item = _held(rater, reviewer)
    review.approve(item_id=item.pk, reviewer=reviewer)
    decision = ReviewDecision.objects.get()
    with pytest.raises(review.CannotUndo, match="Only the reviewer who made a decision"):
        review.undo(decision_id=decision.pk, reviewer=other)
    assert Asset.objects.get(pk=item.asset_id).review_state == "cleared"


def test_no_undo_after_the_window_or_twice(rater, reviewer):
    item = _held(rater, reviewer)
    review.approve(item_id=item.pk, reviewer=reviewer)
    decision = ReviewDecision.objects.get()
    ReviewDecision.objects.filter(pk=decision.pk).update(
        created_at=timezone.now() - timedelta(seconds=review.UNDO_SECONDS + 1)
    )
    assert review.last_decision(reviewer=reviewer) is None
    with pytest.raises(review.CannotUndo, match="can be undone for 2 minutes only"):
        review.undo(decision_id=decision.pk, reviewer=reviewer)

    second = _held(rater, reviewer, seed=2)
    review.approve(item_id=second.pk, reviewer=reviewer)
    latest = review.last_decision(reviewer=reviewer)
    review.undo(decision_id=latest.pk, reviewer=reviewer)
    with pytest.raises(review.CannotUndo, match="already been undone"):
        review.undo(decision_id=latest.pk, reviewer=reviewer)


def test_a_rejection_cannot_be_undone_because_its_bytes_are_gone(rater, reviewer):
    item = _held(rater, reviewer)
    review.reject(item_id=item.pk, reviewer=reviewer, reason="Private message")
    decision = review.last_decision(reviewer=reviewer)
    assert decision.decision == "rejected" and not review.can_undo(decision)
    with pytest.raises(review.CannotUndo, match="reject cannot be undone"):
        review.undo(decision_id=decision.pk, reviewer=reviewer)
    assert Asset.objects.get(pk=item.asset_id).review_state == "rejected"


def test_no_undo_once_something_has_acted_on_the_approval(rater, reviewer):
    item = _held(rater, reviewer)
    review.approve(item_id=item.pk, reviewer=reviewer)
    decision = ReviewDecision.objects.get()

    def frozen(*, asset, since, **_signal):
        return "the screen is already in release 2026-11." if asset.pk == item.asset_id else None

    undoing_approval.connect(frozen, dispatch_uid="test.frozen")
    try:
        with pytest.raises(review.CannotUndo, match="Too late to undo: the screen is already in release"):
            review.undo(decision_id=decision.pk, reviewer=reviewer)
    finally:
        undoing_approval.disconnect(dispatch_uid="test.frozen")
    assert Asset.objects.get(pk=item.asset_id).review_state == "cleared"
    assert ReviewDecision.objects.get().undone_at is None


def test_the_review_page_shows_who_uploaded_for_which_task_and_offers_undo(client, rater, reviewer):
    batch = open_batch(tasks=2, name="Shop screens")
    assignment, _ = work.request_next_task(worker=rater, batch_id=batch.pk)
    item = _held(rater, reviewer, assignment=assignment)
    client.force_login(reviewer)
    page = client.get(reverse("moderation:next", args=["pii"])).content.decode()
    upload = AssetUpload.objects.get(asset_id=item.asset_id)
    assert f"Uploaded by <strong>{rater.username}</strong>" in page
    assert upload.uploaded_at.strftime("%-d %b %Y, %H:%M") in page
    assert "For <strong>Shop screens</strong>, task 1" in page

    client.post(reverse("moderation:decide", args=[item.pk, "approve"]))
    queues = client.get(reverse("moderation:queues")).content.decode()
    decision = ReviewDecision.objects.get()
    assert reverse("moderation:undo", args=[decision.pk]) in queues and "Approved the previous screen." in queues

    undone = client.post(reverse("moderation:undo", args=[decision.pk]), {"queue": "pii"})
    assert undone["Location"] == reverse("moderation:next", args=["pii"])
    assert ReviewItem.objects.get(pk=item.pk).decided_at is None


def test_a_refused_undo_says_why_on_the_page(client, rater, reviewer):
    other = UserFactory(role=Role.REVIEWER)
    item = _held(rater, reviewer)
    review.approve(item_id=item.pk, reviewer=reviewer)
    client.force_login(other)
    response = client.post(
        reverse("moderation:undo", args=[ReviewDecision.objects.get().pk]), {"queue": "pii"}, follow=True
    )
    assert "Only the reviewer who made a decision can undo it." in response.content.decode()
    assert Asset.objects.get(pk=item.asset_id).review_state == "cleared"


def test_no_undo_once_a_release_holds_the_screen(rater, reviewer):
    from releases.models import Release, ReleaseAsset

    item = _held(rater, reviewer)
    review.approve(item_id=item.pk, reviewer=reviewer)
    decision = ReviewDecision.objects.get()
    release = Release.objects.create(name="screens", major=1, minor=0, patch=0)
    ReleaseAsset.objects.create(
        release=release, asset_id=item.asset_id, sha256="0" * 64, format="png", storage_key="a.png"
    )
    with pytest.raises(review.CannotUndo, match="already in release screens 1.0.0"):
        review.undo(decision_id=decision.pk, reviewer=reviewer)
    assert Asset.objects.get(pk=item.asset_id).review_state == "cleared"
