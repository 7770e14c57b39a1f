from django.apps import AppConfig


class ReleasesConfig(AppConfig):
    """Versioned dataset releases: snapshot, splits, export formats, manifest."""

    name = "releases"

    def ready(self):
        from moderation.signals import undoing_approval

        from .selectors import release_holding

        undoing_approval.connect(release_holding, dispatch_uid="releases.release_holding")
