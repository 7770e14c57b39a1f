from django.apps import AppConfig


class ValidationConfig(AppConfig):
    """Qualification tests, validation and agreement, PII and safety review, worker quality."""

    name = "validation"

    def ready(self):
        from assets.services import on_new_asset

        from .review import take_new_asset

        on_new_asset(take_new_asset)
