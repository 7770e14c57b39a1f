from django.apps import AppConfig


class AssetsConfig(AppConfig):
    name = "assets"
    verbose_name = "Screenshots and images"
