from django.apps import AppConfig


class ValidationConfig(AppConfig):
    """Checking work: tutorials and qualification tests, validation and its agreement,
    reference answers, worker quality, and their task kinds."""

    name = "validation"

    def ready(self):
        from assets.signals import viewing_asset
        from corpus.signals import pairs_written
        from generation.signals import review_wanted
        from hits import registry

        from . import columns, release_facts
        from .evidence import assigned_to_check, in_a_test
        from .services import queue_candidate_review, queue_for_validation

        registry.autodiscover(self)
        # Every QA pair, whatever kind of task wrote it, is queued for validation.
        pairs_written.connect(queue_for_validation, dispatch_uid="validation.queue_for_validation")
        review_wanted.connect(queue_candidate_review, dispatch_uid="validation.queue_candidate_review")
        viewing_asset.connect(assigned_to_check, dispatch_uid="validation.assigned_to_check")
        viewing_asset.connect(in_a_test, dispatch_uid="validation.in_a_test")
        columns.contribute()
        release_facts.contribute()
