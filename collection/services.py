"""Capture work's writes: the one place a screenshot becomes a ``Screen``, and its removal."""

from django.db import transaction

from assets import services as assets
from corpus.models import Screen
from moderation import services as moderation

from .catalogue import site_for
from .errors import NotYourScreen, ScreenInUse


@transaction.atomic
def capture_screen(*, file, author, url="", title="", assignment=None, viewport_width=None, viewport_height=None):
    """Stores the image through the assets pipeline (checked, stripped, stored once) and
    records the page it shows. Raises the assets pipeline's errors for bad files."""
    asset, _created = assets.store_image(file=file, uploaded_by=author, source_url=url)
    site = site_for(url=url) if url else None
    return Screen.objects.create(
        asset=asset,
        author=author,
        assignment=assignment,
        url=url,
        title=title,
        site=site,
        category=site.category if site else None,
        viewport_width=viewport_width,
        viewport_height=viewport_height,
    )


def own_screens(*, author):
    return Screen.objects.filter(author=author).select_related("asset", "site", "category")


@transaction.atomic
def remove_screen(*, screen, author):
    """A rater removes a screen they captured, as long as no question uses it yet."""
    if screen.author_id != author.pk:
        raise NotYourScreen("This screen belongs to another rater.")
    if screen.evidence.exists():
        raise ScreenInUse("This screen is part of a submitted question and cannot be removed.")
    asset = screen.asset
    screen.delete()
    if not Screen.objects.filter(asset=asset).exists():
        # Nothing shows these bytes any more: they go from storage too.
        moderation.withdraw(asset=asset, by=author)


def describe_screen(*, screen, url, title, site, category, assignment):
    """What the rater said about a screen they captured for a question: its page, site
    and category, and the assignment it was captured for. Runs in the submission's
    transaction."""
    screen.url, screen.title, screen.site, screen.category, screen.assignment = url, title, site, category, assignment
    screen.save(update_fields=["url", "title", "site", "category", "assignment"])
    return screen
