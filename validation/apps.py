from django.apps import AppConfig


class ValidationConfig(AppConfig):
    """Qualification tests, validation and agreement, PII and safety review, worker quality."""

    name = "validation"
