"""The pre-screen job: OCR and detectors over a new asset, which orders it in the queues.

A failure that may pass (storage or the database out of reach for a moment, Tesseract
killed, e.g. by the out-of-memory killer) is retried with a growing, jittered delay, a
bounded number of times, and then fails loudly in Celery's log and results. One that
cannot pass (the bytes were purged, the stored file does not decode, Tesseract is not
installed) is logged as an error at once; the item waits in its queue unordered.
"""

import io
import logging

import pytesseract
from celery import shared_task
from django.conf import settings
from django.core.files.storage import default_storage
from django.db import InterfaceError, OperationalError
from PIL import Image

from . import selectors, services

logger = logging.getLogger(__name__)

MAX_RETRIES = 5


class TransientFailure(Exception):
    """The pre-screen could not run this time for a reason that may pass; try again."""


@shared_task(
    bind=True,
    name="moderation.tasks.prescreen_asset",
    autoretry_for=(TransientFailure,),
    max_retries=MAX_RETRIES,
    retry_backoff=15,  # 15 s, 30 s, 60 s, … (with jitter), at most retry_backoff_max apart
    retry_backoff_max=600,
    retry_jitter=True,
)
def prescreen_asset(self, asset_id, url=""):
    """OCR and detectors over a new asset; orders it in the review queues. Safe to repeat:
    it reads the stored bytes and overwrites the item's pre-screen with the same result."""
    try:
        return _prescreen(asset_id, url)
    except TransientFailure as failure:
        if settings.CELERY_TASK_ALWAYS_EAGER:
            # No broker (the embedded default): the job runs inside the upload's request,
            # which must not wait through retries or fail for it.
            logger.warning("Pre-screen of asset %s failed and is not retried without a broker: %s", asset_id, failure)
            return None
        logger.warning(
            "Pre-screen of asset %s failed (attempt %s of %s), retrying: %s",
            asset_id,
            self.request.retries + 1,
            MAX_RETRIES + 1,
            failure,
        )
        raise


def _prescreen(asset_id, url):
    from assets.models import Asset

    from .prescreen import prescreen

    try:
        asset = Asset.objects.filter(pk=asset_id).first()
        if asset is None or asset.review_state != Asset.ReviewState.PENDING_REVIEW:
            return None
        blocked = selectors.blocked_domains()
    except (OperationalError, InterfaceError) as error:
        raise TransientFailure(f"the database could not be reached: {error}") from error

    data = _stored_bytes(asset)
    if data is None:
        return None
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as error:
        logger.error("Pre-screen of asset %s: its stored file does not decode: %s", asset_id, error)
        return None
    del data

    try:
        result = prescreen(image, url=url, blocked_domains=blocked).to_json()
    except pytesseract.TesseractNotFoundError as error:
        logger.error(
            "Pre-screen of asset %s: Tesseract is not installed here (%s); it waits unordered.", asset_id, error
        )
        return None
    except pytesseract.TesseractError as error:
        if error.status is not None and error.status < 0:  # killed by a signal
            raise TransientFailure(f"Tesseract was killed (status {error.status}): {error.message}") from error
        logger.error("Pre-screen of asset %s: Tesseract refused the image: %s", asset_id, error)
        return None
    except OSError as error:  # e.g. no room for Tesseract's temporary files
        raise TransientFailure(f"OCR could not run: {error}") from error

    try:
        services.record_prescreen(asset_id=asset_id, result=result)
    except (OperationalError, InterfaceError) as error:
        raise TransientFailure(f"the database could not be reached: {error}") from error
    return {"pii_risk": result["pii_risk"], "safety_risk": result["safety_risk"], "findings": len(result["findings"])}


def _stored_bytes(asset):
    """The asset's stored file, or None when it is gone (purged after a decision)."""
    try:
        with default_storage.open(asset.storage_key, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        logger.info("Pre-screen of asset %s: its file is no longer stored.", asset.pk)
        return None
    except Exception as error:  # local disk or S3 (botocore's errors are not OSErrors)
        raise TransientFailure(f"the stored file could not be read: {error}") from error
