from rest_framework import serializers

from config.api import field_errors

from . import registry
from .errors import NotSetUp
from .models import ProviderSession, SessionAssignment

DONE_STATES = ("submitted", "approved", "rejected")


def provider_of(batch):
    """The provider name a batch is set up for (``kind_settings["provider"]["name"]``), or ""."""
    raw = (batch.kind_settings or {}).get("provider")
    return raw.get("name", "") if isinstance(raw, dict) else ""


def settings_for(*, batch, provider):
    """``(adapter, settings)`` for a batch set up for ``provider``; ``NotSetUp`` otherwise,
    with what is wrong in the batch's settings."""
    if provider_of(batch) != provider:
        raise NotSetUp(f"The batch “{batch.name}” is not set up for {registry.get(provider).title}.")
    adapter = registry.get(provider)
    try:
        return adapter, adapter.clean_settings(batch.kind_settings["provider"])
    except serializers.ValidationError as error:
        problems = "; ".join(
            f"{field}: {' '.join(map(str, messages))}" for field, messages in field_errors(error.detail).items()
        )
        raise NotSetUp(f"The batch “{batch.name}” has incomplete {adapter.title} settings ({problems}).") from None


def tasks_done(session):
    """How many of the session's tasks were submitted (whatever became of them since)."""
    return SessionAssignment.objects.filter(session=session, assignment__state__in=DONE_STATES).count()


def session_of(assignment):
    work = SessionAssignment.objects.select_related("session").filter(assignment=assignment).first()
    return work.session if work else None


def sessions_of(batch):
    return ProviderSession.objects.filter(batch=batch).select_related("worker")
