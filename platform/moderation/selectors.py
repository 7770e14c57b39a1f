"""Reads of the review queues and of the blocked-domain list."""

from .models import BlockedDomain, ReviewItem


def blocked_domains():
    """The domains the pre-screen sends to the safety queue, as admins keep them."""
    return tuple(BlockedDomain.objects.values_list("domain", flat=True))


def queue_depths():
    open_items = ReviewItem.objects.filter(decided_at__isnull=True)
    return {queue: open_items.filter(queue=queue).count() for queue in ReviewItem.Queue.values}
