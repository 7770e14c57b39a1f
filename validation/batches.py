"""Where validation and reference tasks go: the newest open batch of the kind for the
pair's family (``kind_settings = {"family": "webquest"}``, or no family for any).

Admins may set up such batches themselves, e.g. with required qualifications. When
none is open and ``VALIDATION_AUTO_BATCH`` is on, one is created and opened, so that
no QA pair waits for a batch that nobody made.
"""

from django.conf import settings
from django.db import connection
from django.db.models import Q

from hits import registry
from hits import services as hits
from hits.models import Batch


def batch_for(*, kind, family):
    """The open batch that new ``kind`` tasks for a ``family`` QA pair join, or None."""
    batch = _newest_open(kind, family)
    if batch is not None or not settings.VALIDATION_AUTO_BATCH:
        return batch
    if connection.vendor == "postgresql":
        # Two submissions finding no batch at the same moment must not both open one:
        # the second waits here, then finds the first one's batch.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"trailmark:{kind}-batch:{family}"])
        batch = _newest_open(kind, family)
        if batch is not None:
            return batch
    from corpus.models import QAPair

    label = QAPair.Family(family).label if family in QAPair.Family.values else family
    batch = hits.create_batch(
        name=f"{registry.get(kind).auto_batch_title}: {label}",
        kind=kind,
        description=f"Opened automatically for new {label} questions.",
        reward=getattr(settings, registry.get(kind).reward_setting),
        kind_settings={"family": family},
    )
    return hits.open_batch(batch=batch)


def _newest_open(kind, family):
    return (
        Batch.objects.filter(kind=kind, state=Batch.State.OPEN)
        .filter(Q(kind_settings__family=family) | ~Q(kind_settings__has_key="family"))
        .order_by("-opened_at", "-id")
        .first()
    )
