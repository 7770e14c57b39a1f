from django.apps import AppConfig


class GenerationConfig(AppConfig):
    """Machine-generated QA candidates from recorded pages (WebVLN §4.2), with provenance."""

    name = "generation"

    def ready(self):
        from corpus.signals import pair_decided

        from . import receivers

        pair_decided.connect(receivers.count_decision, dispatch_uid="generation.count_decision")
