from django.apps import AppConfig


class MiningConfig(AppConfig):
    """Question categorisation and hard-negative (distractor) mining."""

    name = "mining"
