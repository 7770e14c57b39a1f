from django.apps import AppConfig


class ModerationConfig(AppConfig):
    """What happens to every stored image: pre-screen, PII and safety queues, redaction, audit."""

    name = "moderation"

    def ready(self):
        from assets.signals import asset_stored

        from . import sweeps  # noqa: F401  (registers the sweeper's Celery task)
        from .services import take_new_asset

        # Every new image, however it arrived, is queued and pre-screened.
        asset_stored.connect(take_new_asset, dispatch_uid="moderation.take_new_asset")
