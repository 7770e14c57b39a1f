from django.apps import AppConfig


class GenerationConfig(AppConfig):
    """Machine-generated QA candidates from recorded pages (WebVLN §4.2), with provenance."""

    name = "generation"
