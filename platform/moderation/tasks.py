import logging

from celery import shared_task
from django.core.files.storage import default_storage
from PIL import Image

from . import selectors, services

logger = logging.getLogger(__name__)


@shared_task(name="moderation.tasks.prescreen_asset")
def prescreen_asset(asset_id, url=""):
    """OCR and detectors over a new asset; orders it in the review queues. Safe to repeat."""
    from assets.models import Asset

    from .prescreen import prescreen

    asset = Asset.objects.filter(pk=asset_id).first()
    if asset is None or asset.review_state != Asset.ReviewState.PENDING_REVIEW:
        return None
    with default_storage.open(asset.storage_key, "rb") as handle:
        image = Image.open(handle)
        image.load()
    try:
        result = prescreen(image, url=url, blocked_domains=selectors.blocked_domains()).to_json()
    except OSError as error:  # e.g. no Tesseract on this machine: the item waits, unordered
        logger.warning("Pre-screen of asset %s failed: %s", asset_id, error)
        return None
    services.record_prescreen(asset_id=asset_id, result=result)
    return {"pii_risk": result["pii_risk"], "safety_risk": result["safety_risk"], "findings": len(result["findings"])}
