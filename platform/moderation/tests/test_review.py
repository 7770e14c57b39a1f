"""Review queues: order, holding, and the three decisions, with bytes purged for real."""

import io

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from assets.models import Asset
from assets.selectors import cleared_assets
from assets.tests.samples import png_bytes
from collection.services import capture_screen, remove_screen
from corpus.models import QAPair, Screen
from moderation import services as review
from moderation.models import ReviewDecision, ReviewItem
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _screen(author, seed, *, risk=0.5, kind="email", box=(10, 10, 120, 30)):
    screen = capture_screen(
        file=SimpleUploadedFile("s.png", png_bytes(size=(400, 300), seed=seed), content_type="image/png"), author=author
    )
    finding = {"kind": kind, "text": "someone@example.org", "box": list(box), "confidence": 0.9}
    safety = kind == "safety_keyword"
    review.record_prescreen(
        asset_id=screen.asset_id,
        result={"findings": [finding], "pii_risk": 0 if safety else risk, "safety_risk": risk if safety else 0},
    )
    return screen


def _stored(asset):
    return [default_storage.exists(asset.storage_key), default_storage.exists(asset.thumbnail_key)]


def test_every_new_screen_waits_in_a_queue_and_riskier_items_come_first(rater, reviewer):
    low, high = _screen(rater, 1, risk=0.3), _screen(rater, 2, risk=0.95)
    unsafe = _screen(rater, 3, risk=0.7, kind="safety_keyword")
    assert ReviewItem.objects.get(asset=unsafe.asset).queue == "safety"
    assert {low.asset.review_state, high.asset.review_state} == {"pending_review"}
    assert review.claim_next(reviewer=reviewer, queue="pii").asset == high.asset
    assert review.claim_next(reviewer=reviewer, queue="pii").asset == high.asset  # still held by them
    other = UserFactory(role="reviewer")
    assert review.claim_next(reviewer=other, queue="pii").asset == low.asset
    assert review.claim_next(reviewer=UserFactory(role="reviewer"), queue="pii") is None
    assert not cleared_assets().exists()


def test_approving_clears_the_asset_and_logs_the_decision(rater, reviewer):
    screen = _screen(rater, 4)
    item = review.claim_next(reviewer=reviewer, queue="pii")
    review.approve(item_id=item.pk, reviewer=reviewer)
    assert list(cleared_assets()) == [screen.asset]
    decision = ReviewDecision.objects.get()
    assert (decision.decision, decision.reviewer, decision.findings[0]["kind"]) == ("approved", reviewer, "email")


def test_rejecting_purges_the_bytes_and_the_questions_that_cite_the_screen(
    rater, reviewer, django_capture_on_commit_callbacks
):
    screen = _screen(rater, 5)
    pair = QAPair.objects.create(family="webquest", question="q?", answer="a", author=rater)
    pair.evidence.create(position=0, screen=screen)
    item = review.claim_next(reviewer=reviewer, queue="pii")
    with pytest.raises(review.BadBoxes, match="Say why"):
        review.reject(item_id=item.pk, reviewer=reviewer, reason=" ")
    with django_capture_on_commit_callbacks(execute=True):  # bytes go once the decision is committed
        review.reject(item_id=item.pk, reviewer=reviewer, reason="Shows a customer's e-mail address")
    asset = Asset.objects.get(pk=screen.asset_id)
    assert asset.review_state == "rejected" and _stored(asset) == [False, False]
    pair.refresh_from_db()
    assert pair.state == "rejected" and "customer's e-mail" in pair.state_reason
    assert ReviewDecision.objects.get().asset_sha256 == asset.sha256


def _redact_first(rater, reviewer, seed, on_commit):
    screen = _screen(rater, seed, box=(0, 0, 200, 60))
    original = screen.asset
    item = review.claim_next(reviewer=reviewer, queue="pii")
    with on_commit(execute=True):
        replacement = review.redact(item_id=item.pk, reviewer=reviewer, boxes=[[0, 0, 200, 60], [300, 200, 500, 500]])
    screen.refresh_from_db()
    return screen, original, replacement


def test_redacting_replaces_the_asset_everywhere_and_deletes_the_original(
    rater, reviewer, django_capture_on_commit_callbacks
):
    screen, original, replacement = _redact_first(rater, reviewer, 6, django_capture_on_commit_callbacks)
    replacement.refresh_from_db()
    assert screen.asset == replacement and replacement.review_state == "cleared"
    assert _stored(original) == [False, False] and _stored(replacement) == [True, True]
    with default_storage.open(replacement.storage_key) as handle:
        pixels = Image.open(io.BytesIO(handle.read())).convert("RGB")
    assert {pixels.getpixel((x, y)) for x in (0, 100, 199) for y in (0, 30, 59)} == {(0, 0, 0)}
    assert pixels.getpixel((399, 299)) == (0, 0, 0)  # the second box was clipped to the image
    assert list(cleared_assets()) == [replacement]
    decision = ReviewDecision.objects.get()
    assert decision.decision == "redacted" and decision.replacement == replacement
    assert decision.boxes == [[0, 0, 200, 60], [300, 200, 100, 100]]


def test_redacting_on_s3_removes_the_original_objects_from_the_bucket(
    rater, reviewer, s3, django_capture_on_commit_callbacks
):
    client, bucket = s3
    _screen_, original, replacement = _redact_first(rater, reviewer, 7, django_capture_on_commit_callbacks)
    keys = {item["Key"] for item in client.list_objects_v2(Bucket=bucket).get("Contents", [])}
    assert original.storage_key not in keys and original.thumbnail_key not in keys
    assert {replacement.storage_key, replacement.thumbnail_key} <= keys


def test_decisions_need_the_item_held_and_a_reviewer(rater, reviewer):
    _screen(rater, 8)
    item = review.claim_next(reviewer=reviewer, queue="pii")
    with pytest.raises(review.NotYourItem):
        review.approve(item_id=item.pk, reviewer=UserFactory(role="reviewer"))
    with pytest.raises(review.NotAReviewer):
        review.approve(item_id=item.pk, reviewer=rater)
    with pytest.raises(review.BadBoxes, match="outside"):
        review.redact(item_id=item.pk, reviewer=reviewer, boxes=[[5000, 5000, 10, 10]])
    review.approve(item_id=item.pk, reviewer=reviewer)
    with pytest.raises(review.NotYourItem, match="already been decided"):
        review.approve(item_id=item.pk, reviewer=reviewer)


def test_a_screen_removed_by_its_author_takes_its_bytes_with_it(rater, other_rater, django_capture_on_commit_callbacks):
    data = png_bytes(size=(300, 200), seed=9)
    mine = capture_screen(file=SimpleUploadedFile("a.png", data, content_type="image/png"), author=rater)
    theirs = capture_screen(file=SimpleUploadedFile("b.png", data, content_type="image/png"), author=other_rater)
    assert mine.asset == theirs.asset
    with django_capture_on_commit_callbacks(execute=True):
        remove_screen(screen=mine, author=rater)
    assert _stored(theirs.asset) == [True, True]  # still shown by the other screen
    with django_capture_on_commit_callbacks(execute=True):
        remove_screen(screen=theirs, author=other_rater)
    asset = Asset.objects.get(pk=theirs.asset_id)
    assert _stored(asset) == [False, False] and asset.review_state == "rejected"
    assert not Screen.objects.exists() and ReviewDecision.objects.get().decision == "withdrawn"


def test_raters_cannot_open_the_queues(client, rater):
    client.force_login(rater)
    assert client.get("/review/").status_code == 403
    assert client.get("/review/pii/").status_code == 403


def test_the_prescreen_job_reads_the_screen_and_queues_it_with_boxes(rater):
    from PIL import ImageDraw, ImageFont

    from moderation.tasks import prescreen_asset

    image = Image.new("RGB", (900, 300), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 24)
    draw.text((40, 40), "Order confirmation", fill="black", font=font)
    draw.text((40, 120), "Contact: maria.lopez@example.org", fill="black", font=font)
    email_box = draw.textbbox((40, 120), "Contact: maria.lopez@example.org", font=font)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    screen = capture_screen(file=SimpleUploadedFile("s.png", buffer.getvalue(), content_type="image/png"), author=rater)

    summary = prescreen_asset(screen.asset_id, "https://shop.example/orders/42")
    item = ReviewItem.objects.get(asset=screen.asset)
    assert summary["findings"] >= 1 and item.queue == "pii" and item.risk > 0.5 and item.prescreened_at
    (email,) = [f for f in item.findings if f["kind"] == "email"]
    x, y, width, height = email["box"]
    assert (
        x < email_box[2] and x + width > email_box[0] + 100 and y <= email_box[1] + 5 and y + height >= email_box[3] - 5
    )


def test_images_uploaded_through_the_assets_api_are_queued_too(rater, api_for):
    upload = SimpleUploadedFile("i.png", png_bytes(size=(300, 200), seed=10), content_type="image/png")
    asset_id = api_for(rater).post("/api/v1/assets/", {"file": upload}, format="multipart").json()["id"]
    item = ReviewItem.objects.get(asset_id=asset_id)
    assert item.decided_at is None and item.queue == "pii"
