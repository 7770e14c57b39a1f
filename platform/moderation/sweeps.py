"""Re-queues pre-screens that never ran: a job lost with a broker that kept nothing (or a
worker that died mid-task) must not leave an image unordered in the queues for ever."""

from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from outbox.services import enqueue

from .models import ReviewItem

STALE_MINUTES = 5
# Older than this, an image the pre-screen keeps failing on is left to the reviewers (it
# waits in its queue unordered) instead of being tried again every few minutes for ever.
GIVE_UP_HOURS = 24


@shared_task(name="moderation.tasks.sweep_unscreened")
def sweep_unscreened(limit=200):
    """Queues the pre-screen again for undecided items still not pre-screened after
    ``STALE_MINUTES`` (within their first ``GIVE_UP_HOURS``); returns how many. Safe to run
    twice (the pre-screen is). The page's URL is not known here: the URL rules wait for a
    reviewer, the text on the image is read."""
    now = timezone.now()
    items = ReviewItem.objects.filter(
        prescreened_at__isnull=True,
        decided_at__isnull=True,
        created_at__lt=now - timedelta(minutes=STALE_MINUTES),
        created_at__gte=now - timedelta(hours=GIVE_UP_HOURS),
    )
    asset_ids = list(items.order_by("id").values_list("asset_id", flat=True)[:limit])
    for asset_id in asset_ids:
        enqueue("moderation.tasks.prescreen_asset", asset_id, "")
    return len(asset_ids)
