from django.apps import AppConfig


class ReleasesConfig(AppConfig):
    """Versioned dataset releases: snapshot, splits, export formats, manifest."""

    name = "releases"
