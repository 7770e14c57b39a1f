"""What moderation tells the apps above it."""

from django.dispatch import Signal

# Personal data found in the texts stored with ``asset`` was masked: ``findings`` are the
# text findings (``{"field", "kind", "text", "record": {"type", "id"}}``); the app that
# stored each record replaces the found texts in it. Sent inside the decision's transaction.
texts_masked = Signal()

# Asked before a reviewer's approval of ``asset`` (made at ``since``) is taken back: a
# receiver in an app that may have acted on the cleared asset since (put it in a release,
# say) returns why the undo must not happen, as a sentence; None when it did nothing with it.
undoing_approval = Signal()
