"""What moderation tells the apps above it."""

from django.dispatch import Signal

# Personal data found in the texts stored with ``asset`` was masked: ``findings`` are the
# text findings (``{"field", "kind", "text", "record": {"type", "id"}}``); the app that
# stored each record replaces the found texts in it. Sent inside the decision's transaction.
texts_masked = Signal()
