"""Reads of capture work."""

from corpus.models import Screen

from .models import BlockedSite


def own_screens(*, author):
    return Screen.objects.filter(author=author).select_related("asset", "site", "category")


def block_list():
    """What the extension must never capture."""
    blocks = BlockedSite.objects.all()
    return {
        "hosts": sorted({b.host for b in blocks if b.host}),
        "patterns": sorted({b.path_contains for b in blocks if b.path_contains}),
    }
