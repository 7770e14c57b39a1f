from django.apps import AppConfig


class CollectionConfig(AppConfig):
    """Capture work: sites and categories, screen and trace QA, image and text HITs."""

    name = "collection"

    def ready(self):
        from assets.selectors import add_view_rule

        from .screens import assigned_to_see

        add_view_rule(assigned_to_see)
