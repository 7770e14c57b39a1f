from django.apps import AppConfig


class CollectionConfig(AppConfig):
    """Capture work: the catalogue UI, screen capture, the extension's trace API, pool
    imports, grouping, and the capture task kinds."""

    name = "collection"

    def ready(self):
        from hits import registry

        registry.autodiscover(self)
