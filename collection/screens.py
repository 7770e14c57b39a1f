"""Capturing screens: the one place a screenshot becomes a ``Screen``."""

from django.db import transaction

from assets import services as assets
from validation import review

from .catalogue import site_for
from .errors import NotYourScreen, ScreenInUse
from .models import Screen


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
        review.withdraw(asset=asset, by=author)


def follow_replacement(*, original, replacement):
    """A redacted copy takes the original's place in every screen."""
    Screen.objects.filter(asset=original).update(asset=replacement)


def reject_questions_on(*, asset, reason):
    """Questions citing a rejected screen are rejected too, with the reviewer's reason."""
    from .models import QAPair

    QAPair.objects.filter(evidence__screen__asset=asset).exclude(state=QAPair.State.REJECTED).update(
        state=QAPair.State.REJECTED, state_reason=f"A screen it uses was rejected in review: {reason}"
    )


def assigned_to_see(*, user, asset):
    """Raters writing questions on a trace see its screens while they hold (or held)
    that task."""
    from django.db.models import BigIntegerField
    from django.db.models.fields.json import KT
    from django.db.models.functions import Cast

    from hits.models import Task

    from .models import TraceStep

    traces = Task.objects.filter(assignments__worker=user, batch__kind="trace_qa").values(
        trace=Cast(KT("payload__trace"), BigIntegerField())
    )
    return TraceStep.objects.filter(screen__asset=asset, trace_id__in=traces).exists()


def pool_image_for_workers(*, user, asset):
    """Pool images are published pictures (e.g. from Wikipedia): every signed-in worker may
    see them, as the image tasks show them to whoever takes the task."""
    from .models import ImageSource

    return user.is_authenticated and ImageSource.objects.filter(asset=asset).exists()
