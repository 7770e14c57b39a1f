from django.apps import AppConfig


class CollectionConfig(AppConfig):
    """Capture work: the catalogue UI, screen capture, the extension's trace API, pool
    imports, grouping, and the capture task kinds."""

    name = "collection"

    def ready(self):
        from hits import registry
        from moderation.signals import texts_masked

        from .pools import mask_pool_image_texts
        from .services import mask_step_texts

        registry.autodiscover(self)
        # A reviewer's masking of found texts reaches the steps and pool images holding them.
        texts_masked.connect(mask_step_texts, dispatch_uid="collection.mask_step_texts")
        texts_masked.connect(mask_pool_image_texts, dispatch_uid="collection.mask_pool_image_texts")
