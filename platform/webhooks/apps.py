from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    """Signed notifications to other systems when something happens on the platform."""

    name = "webhooks"
