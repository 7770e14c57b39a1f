"""What every recruitment provider's adapter declares and does."""

from dataclasses import dataclass, field

from rest_framework import serializers

from ..errors import NotSetUp


@dataclass
class Call:
    """A call to make to a provider's API: recorded as a ``ProviderCall``, then sent."""

    purpose: str
    path: str
    body: dict = field(default_factory=dict)
    method: str = "POST"


@dataclass
class Answer:
    """A provider's answer: its HTTP status, its text (kept in part) and its JSON."""

    status: int
    text: str
    data: dict | None = None

    @property
    def ok(self):
        return 200 <= self.status < 300


class ProviderSettings(serializers.Serializer):
    """The settings every provider's batch has: ``name`` picks the adapter."""

    name = serializers.CharField()


class ProviderAdapter:
    """One recruitment provider: the batch settings it needs and the calls that settle
    Trailmark's decisions there. The arrival pages are in ``providers.views``."""

    name = ""
    title = ""
    settings_serializer = ProviderSettings
    # A worker takes part in a batch once (Prolific: one submission per study), or once
    # per provider turn (MTurk: one per HIT assignment).
    once_per_batch = False
    # The purpose of the calls that publish a batch ("" when batches are listed by hand).
    publish_purpose = ""

    def clean_settings(self, raw):
        """The batch's provider settings, checked; a ``ValidationError`` says what is wrong."""
        serializer = self.settings_serializer(data=raw)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def check_study(self, *, settings, study_id):
        """Refuses (``SessionMismatch``) an arrival for a study the batch is not for."""

    def publish_calls(self, *, batch, settings, task_url, tasks, published):
        """The calls that list ``batch`` on the provider; ``published`` counts those made."""
        raise NotSetUp(f"{self.title} studies are set up on {self.title}'s own site; see docs/providers.md.")

    def decision_calls(self, *, session, settings, approved, feedback):
        """The calls that approve or reject ``session``'s work on the provider."""
        raise NotImplementedError

    def bonus_calls(self, *, session, settings, assignment, amount, reason, number):
        """The calls that pay a bonus; ``number`` counts the session's bonuses, from 1."""
        raise NotImplementedError

    def send(self, call):
        """Makes ``call`` (a ``ProviderCall``); returns an ``Answer`` or raises
        ``ProviderUnreachable``."""
        raise NotImplementedError

    def after(self, *, call, answer):
        """What a successful answer leads to: follow-up ``Call``s (e.g. paying a bonus
        that was just set up)."""
        return []
