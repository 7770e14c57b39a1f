"""Demo data for checking work: the default qualification tests (a migration installs
them; this puts them back after a flush), the validator's demo qualification, and
validation tasks for demo QA pairs written without going through a task."""

from django.apps import apps

from accounts.models import Qualification, User

from . import services
from .default_tests import install
from .services import queue_pending_pairs


def load(*, out):
    install(apps)
    admin = User.objects.get(username="admin")
    validator = User.objects.get(username="validator")
    for slug in ("screen-questions", "image-questions"):
        services.grant(
            worker=validator,
            qualification=Qualification.objects.get(slug=slug),
            actor=admin,
            reason="Demo validator.",
        )
    queued = queue_pending_pairs()
    if queued:
        out(f"Queued {len(queued)} QA pairs for validation.")
