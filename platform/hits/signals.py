"""Events of the work engine, for the apps above that react to them (e.g. recruitment
providers, which settle the same decisions on their own platforms).

Sent inside the transaction that made the change; receivers that start jobs record them
through ``outbox.services.enqueue`` so that they go out only if the change commits.
"""

from django.dispatch import Signal

# A reviewer approved or rejected a submission (``assignment``, ``state``, ``actor``).
assignment_decided = Signal()

# A reviewer gave a bonus on an assignment (``assignment``, ``amount``: a Decimal,
# ``reason``, ``actor``).
bonus_granted = Signal()
