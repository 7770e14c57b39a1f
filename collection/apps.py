from django.apps import AppConfig


class CollectionConfig(AppConfig):
    """Capture work: sites and categories, screen and trace QA, image and text HITs."""

    name = "collection"

    def ready(self):
        from assets.selectors import add_view_rule
        from validation import review

        from .screens import assigned_to_see, follow_replacement, pool_image_for_workers, reject_questions_on

        add_view_rule(assigned_to_see)
        add_view_rule(pool_image_for_workers)
        review.on_replacement(follow_replacement)
        review.on_rejection(reject_questions_on)
