"""What the providers app does when the work engine decides (``hits.signals``)."""

from . import services


def assignment_decided(sender, *, assignment, state, **kwargs):
    services.settle_decision(assignment=assignment, state=state)


def bonus_granted(sender, *, assignment, amount, reason, **kwargs):
    services.settle_bonus(assignment=assignment, amount=amount, reason=reason)
