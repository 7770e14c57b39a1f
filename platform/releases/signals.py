"""Events of releases, for apps above (and, later, webhooks) that react to them."""

from django.dispatch import Signal

# A release was published: its files are in place and researchers can download it
# (``release``). Sent once the publishing transaction has committed.
release_published = Signal()
