"""The PII and safety review of assets: queueing, claiming, and the three decisions.

Nothing leaves the platform unless a reviewer cleared it (``assets.selectors
.cleared_assets``). Rejected and replaced bytes are deleted from storage, local or S3,
thumbnails included; the decision stays in the audit log. Apps whose records cite an
asset follow a decision through ``assets.signals`` (``asset_rejected``, ``asset_redacted``).
"""

import io
from datetime import timedelta

from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.utils import timezone
from PIL import Image, ImageDraw

from accounts.models import Role
from assets import services as assets
from assets import signals
from assets.models import Asset, AssetUpload
from config.errors import DomainError
from outbox import services as outbox

from . import signals as moderation_signals
from . import textscreen
from .models import ReviewDecision, ReviewItem

CLAIM_MINUTES = 10
UNDO_SECONDS = 120  # long enough to notice a slip of the key, short enough that little follows


class NotAReviewer(DomainError):
    status = 403
    code = "permission_denied"


class NotYourItem(DomainError):
    status = 409
    code = "not_claimed"


class BadBoxes(DomainError):
    status = 400
    code = "invalid"


class CannotUndo(DomainError):
    status = 409
    code = "cannot_undo"


def enqueue(*, asset):
    """Every new asset waits for review; the pre-screen job then orders it."""
    item, _ = ReviewItem.objects.get_or_create(asset=asset)
    return item


def take_new_asset(*, asset, source_url="", **_signal):
    """Every new image, however it arrived, is queued and pre-screened."""
    enqueue(asset=asset)
    outbox.enqueue("moderation.tasks.prescreen_asset", asset.pk, source_url)


@transaction.atomic
def record_prescreen(*, asset_id, result):
    """Stores the pre-screen's findings and puts the item in the queue its risk says."""
    item, _ = ReviewItem.objects.select_for_update().get_or_create(asset_id=asset_id)
    item.findings = [{**finding, "box": _as_list(finding.get("box"))} for finding in result["findings"]]
    item.pii_risk, item.safety_risk = result["pii_risk"], result["safety_risk"]
    _order(item)
    item.prescreened_at = timezone.now()
    item.save()
    return item


def _order(item):
    """Puts the item in the queue its worst finding, on the picture or in its texts, says."""
    personal = max(item.pii_risk, item.text_risk)
    item.queue = ReviewItem.Queue.SAFETY if item.safety_risk > personal else ReviewItem.Queue.PII
    item.risk = max(personal, item.safety_risk)


# --- Personal data in the texts stored with an asset -----------------------------------


def screen_texts(*, texts=(), urls=()):
    """Runs the detectors over ``texts`` and ``urls`` (``[(field, value)]``, e.g.
    ``("step 3 title", "…")``; an address is read decoded, path, query and fragment) and
    returns the findings as ``[{"field", "kind", "text"}]``."""
    found = [{"field": field, **f} for field, text in texts for f in textscreen.text_findings(text or "")]
    return found + [{"field": field, **f} for field, url in urls for f in textscreen.url_findings(url or "")]


@transaction.atomic
def record_text_findings(*, asset, record, findings):
    """Adds what ``screen_texts`` found in ``record`` (``{"type", "id"}``, the record the
    texts are stored in) to the asset's review item, raising it in the personal-data
    queue. On an item already decided nobody would see them: they are masked at once."""
    if not findings:
        return None
    item, _ = ReviewItem.objects.select_for_update().get_or_create(asset=asset)
    new = [{**finding, "record": dict(record), "masked": False} for finding in findings]
    item.text_findings = item.text_findings + new
    if item.decided_at is not None:
        _mask(item, list(range(len(item.text_findings) - len(new), len(item.text_findings))), reviewer=None,
              reason="Found after the screen was decided; masked without review.")  # fmt: skip
        return item
    _rerank(item)
    item.save(update_fields=["text_findings", "text_risk", "queue", "risk"])
    return item


def _rerank(item):
    item.text_risk = textscreen.risk([f for f in item.text_findings if not f["masked"]])
    _order(item)


@transaction.atomic
def mask_texts(*, item_id, reviewer, indexes=None):
    """Masks the held item's text findings at ``indexes`` (all not masked yet when None)
    in the records they were found in, and logs the decision. The picture's own decision
    is still to come."""
    item = _held(item_id, reviewer)
    open_ = [i for i, finding in enumerate(item.text_findings) if not finding["masked"]]
    chosen = open_ if indexes is None else [i for i in open_ if i in set(indexes)]
    if not chosen:
        raise BadBoxes("Choose a text finding that is not masked yet.")
    return _mask(item, chosen, reviewer=reviewer)


def _mask(item, indexes, *, reviewer, reason=""):
    chosen = []
    for i in indexes:
        item.text_findings[i] = {**item.text_findings[i], "masked": True}
        chosen.append(item.text_findings[i])
    _rerank(item)
    item.save(update_fields=["text_findings", "text_risk", "queue", "risk"])
    ReviewDecision.objects.create(
        asset=item.asset,
        asset_sha256=item.asset.sha256,
        decision=ReviewDecision.Decision.MASKED,
        reviewer=reviewer,
        reason=reason,
        findings=chosen,
    )
    moderation_signals.texts_masked.send(sender=ReviewItem, asset=item.asset, findings=chosen)
    return item


def _as_list(box):
    """Boxes are kept as ``[x, y, width, height]`` in image pixels."""
    if isinstance(box, dict):
        return [box["left"], box["top"], box["width"], box["height"]]
    return box


def _check_reviewer(user):
    if not user.has_role(Role.REVIEWER):
        raise NotAReviewer("Only reviewers and admins review screens.")


@transaction.atomic
def claim_next(*, reviewer, queue):
    """The riskiest open item of ``queue`` that nobody else holds, now held by
    ``reviewer`` (their own held item first). None when the queue is empty."""
    _check_reviewer(reviewer)
    now = timezone.now()
    open_items = ReviewItem.objects.filter(queue=queue, decided_at__isnull=True)
    held = open_items.filter(claimed_by=reviewer, claimed_until__gt=now).select_related("asset").first()
    if held is not None:
        return held
    item = (
        open_items.exclude(claimed_until__gt=now)
        .select_for_update(skip_locked=True, of=("self",))
        .select_related("asset")
        .order_by("-risk", "id")
        .first()
    )
    if item is not None:
        item.claimed_by, item.claimed_until = reviewer, now + timedelta(minutes=CLAIM_MINUTES)
        item.save(update_fields=["claimed_by", "claimed_until"])
    return item


def release(*, item_id, reviewer):
    ReviewItem.objects.filter(pk=item_id, claimed_by=reviewer, decided_at__isnull=True).update(
        claimed_by=None, claimed_until=None
    )


def _held(item_id, reviewer):
    _check_reviewer(reviewer)
    item = ReviewItem.objects.select_for_update().select_related("asset").filter(pk=item_id).first()
    if item is None or item.decided_at is not None:
        raise NotYourItem("This item has already been decided.")
    if item.claimed_by_id != reviewer.pk or item.claimed_until is None or item.claimed_until < timezone.now():
        raise NotYourItem("This item is not held by you (it may have timed out); take the next one from the queue.")
    return item


def _decide(item, reviewer, decision, *, reason="", boxes=(), replacement=None):
    item.decided_at = timezone.now()
    item.save(update_fields=["decided_at"])
    return ReviewDecision.objects.create(
        asset=item.asset,
        asset_sha256=item.asset.sha256,
        decision=decision,
        reviewer=reviewer,
        reason=reason,
        findings=item.findings + item.text_findings,
        boxes=list(boxes),
        replacement=replacement,
    )


@transaction.atomic
def approve(*, item_id, reviewer):
    item = _held(item_id, reviewer)
    Asset.objects.filter(pk=item.asset_id).update(review_state=Asset.ReviewState.CLEARED)
    _decide(item, reviewer, ReviewDecision.Decision.APPROVED)
    signals.asset_cleared.send(sender=Asset, asset=item.asset)
    return item


def _purge(asset):
    """The asset is never to be seen again: its bytes go, its row stays for the audit."""
    Asset.objects.filter(pk=asset.pk).update(review_state=Asset.ReviewState.REJECTED)
    transaction.on_commit(lambda: assets.delete_asset_bytes(asset=asset))


@transaction.atomic
def reject(*, item_id, reviewer, reason):
    """Purges the asset and rejects the questions that cite it, with the reason."""
    if not reason or not reason.strip():
        _check_reviewer(reviewer)
        raise BadBoxes("Say why the screen is rejected: its author sees the reason.")
    item = _held(item_id, reviewer)
    _purge(item.asset)
    signals.asset_rejected.send(sender=Asset, asset=item.asset, reason=reason.strip())
    _decide(item, reviewer, ReviewDecision.Decision.REJECTED, reason=reason.strip())
    return item


@transaction.atomic
def redact(*, item_id, reviewer, boxes):
    """Blacks out ``boxes`` (``[x, y, width, height]`` in image pixels) in a new asset that
    takes the original's place everywhere; the original's bytes are deleted."""
    item = _held(item_id, reviewer)
    original = item.asset
    clean = _checked_boxes(boxes, original)
    with default_storage.open(original.storage_key, "rb") as handle:
        image = Image.open(handle)
        image.load()
    draw = ImageDraw.Draw(image)
    for x, y, width, height in clean:
        draw.rectangle((x, y, x + width - 1, y + height - 1), fill="black")
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    upload = SimpleUploadedFile("redacted.png", buffer.getvalue(), content_type="image/png")
    uploaders = list(AssetUpload.objects.filter(asset=original).values_list("uploaded_by", flat=True))
    replacement, _ = assets.store_image(file=upload, uploaded_by=reviewer)
    for user_id in uploaders:
        AssetUpload.objects.get_or_create(asset=replacement, uploaded_by_id=user_id)
    Asset.objects.filter(pk=replacement.pk).update(review_state=Asset.ReviewState.CLEARED)
    signals.asset_redacted.send(sender=Asset, original=original, replacement=replacement)
    _purge(original)
    ReviewItem.objects.filter(asset=replacement).update(decided_at=timezone.now())
    _decide(item, reviewer, ReviewDecision.Decision.REDACTED, boxes=clean, replacement=replacement)
    return replacement


def _checked_boxes(boxes, asset):
    if not boxes:
        raise BadBoxes("Draw or accept at least one box to redact, or approve the screen as it is.")
    clean = []
    for box in boxes:
        try:
            x, y, width, height = (int(round(float(value))) for value in box)
        except (TypeError, ValueError):
            raise BadBoxes(f"{box!r} is not a box [x, y, width, height].") from None
        x, y = max(0, x), max(0, y)
        width, height = min(width, asset.width - x), min(height, asset.height - y)
        if width <= 0 or height <= 0:
            raise BadBoxes(f"The box {box!r} lies outside the {asset.width}×{asset.height} image.")
        clean.append([x, y, width, height])
    return clean


@transaction.atomic
def withdraw(*, asset, by):
    """An author removed the last thing using ``asset`` (e.g. a screen from a draft):
    its bytes are purged too."""
    ReviewItem.objects.filter(asset=asset, decided_at__isnull=True).update(decided_at=timezone.now())
    ReviewDecision.objects.create(
        asset=asset, asset_sha256=asset.sha256, decision=ReviewDecision.Decision.WITHDRAWN, reviewer=by
    )
    _purge(asset)


# --- Taking a decision back -------------------------------------------------------------


def last_decision(*, reviewer):
    """``reviewer``'s latest picture decision if it is still within the undo window (and
    not undone), else None: what the review page offers to undo."""
    since = timezone.now() - timedelta(seconds=UNDO_SECONDS)
    return (
        ReviewDecision.objects.filter(reviewer=reviewer, created_at__gte=since, undone_at__isnull=True)
        .exclude(decision__in=[ReviewDecision.Decision.MASKED, ReviewDecision.Decision.WITHDRAWN])
        .order_by("-created_at", "-id")
        .first()
    )


def can_undo(decision):
    """Only an approval can be taken back: a rejection or redaction deleted the original
    bytes, which nothing can restore."""
    return decision.decision == ReviewDecision.Decision.APPROVED


@transaction.atomic
def undo(*, decision_id, reviewer):
    """Takes back ``reviewer``'s approval within ``UNDO_SECONDS``: the asset is pending
    again and its item back in their hands. Refused, with the reason, when someone else
    made the decision, the window has passed, it cannot be reversed, or something has
    already acted on it. The decision stays in the audit log, marked undone."""
    _check_reviewer(reviewer)
    decision = ReviewDecision.objects.select_for_update().filter(pk=decision_id).first()
    if decision is None or decision.reviewer_id != reviewer.pk:
        raise CannotUndo("Only the reviewer who made a decision can undo it.")
    if decision.undone_at is not None:
        raise CannotUndo("This decision has already been undone.")
    now = timezone.now()
    if now - decision.created_at > timedelta(seconds=UNDO_SECONDS):
        raise CannotUndo(
            f"Decisions can be undone for {UNDO_SECONDS // 60} minutes only; ask an admin to correct this one."
        )
    if not can_undo(decision):
        raise CannotUndo(
            f"A decision to {'reject' if decision.decision == 'rejected' else 'redact'} cannot be undone: "
            "the screen's original bytes are already deleted."
        )
    item = ReviewItem.objects.select_for_update().select_related("asset").filter(asset_id=decision.asset_id).first()
    later = ReviewDecision.objects.filter(asset_id=decision.asset_id, created_at__gt=decision.created_at)
    if item is None or item.asset.review_state != Asset.ReviewState.CLEARED or later.exists():
        raise CannotUndo("This screen has been decided on again since; undo is no longer possible.")
    for _receiver, reason in moderation_signals.undoing_approval.send(
        sender=ReviewDecision, asset=item.asset, since=decision.created_at
    ):
        if reason:
            raise CannotUndo(f"Too late to undo: {reason}")
    Asset.objects.filter(pk=item.asset_id).update(review_state=Asset.ReviewState.PENDING_REVIEW)
    item.decided_at, item.claimed_by, item.claimed_until = None, reviewer, now + timedelta(minutes=CLAIM_MINUTES)
    item.save(update_fields=["decided_at", "claimed_by", "claimed_until"])
    decision.undone_at = now
    decision.save(update_fields=["undone_at"])
    signals.asset_uncleared.send(sender=ReviewDecision, asset=item.asset)
    return item
