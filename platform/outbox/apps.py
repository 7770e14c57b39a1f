from django.apps import AppConfig


class OutboxConfig(AppConfig):
    """Background jobs recorded with the write that asks for them, and relayed to Celery."""

    name = "outbox"
