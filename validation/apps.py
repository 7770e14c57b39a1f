from django.apps import AppConfig


class ValidationConfig(AppConfig):
    """Qualification tests, validation and agreement, PII and safety review, worker quality."""

    name = "validation"

    def ready(self):
        from assets.selectors import add_view_rule
        from assets.services import on_new_asset
        from collection.pairs import on_pairs_written

        from .evidence import assigned_to_check, in_a_test
        from .judging import queue_for_validation
        from .review import take_new_asset

        on_new_asset(take_new_asset)
        # Every QA pair, whatever kind of task wrote it, is queued for validation.
        on_pairs_written(queue_for_validation)
        add_view_rule(assigned_to_check)
        add_view_rule(in_a_test)
