from django.apps import AppConfig


class CollectionConfig(AppConfig):
    """Capture work: sites and categories, screen and trace QA, image and text HITs."""

    name = "collection"
