from django.apps import AppConfig
from django.db.models.signals import post_migrate


class DashboardsConfig(AppConfig):
    """Staff dashboards: progress, queues, throughput, worker quality, dataset composition."""

    name = "dashboards"

    def ready(self):
        post_migrate.connect(_install_triggers, sender=self)


def _install_triggers(sender, using, **kwargs):
    from . import triggers

    triggers.ensure_installed(using=using)
