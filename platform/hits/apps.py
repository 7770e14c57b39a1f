from django.apps import AppConfig


class HitsConfig(AppConfig):
    name = "hits"
    verbose_name = "Work"

    def ready(self):
        from . import registry

        registry.autodiscover(self)
