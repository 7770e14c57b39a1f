from django.apps import AppConfig


class DashboardsConfig(AppConfig):
    """Staff dashboards: progress, queues, throughput, worker quality, dataset composition."""

    name = "dashboards"
