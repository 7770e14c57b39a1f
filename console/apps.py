from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    """The staff console: the daily admin work (batches, reference answers, releases,
    mining and generation runs) on server-rendered pages, above every other app."""

    name = "console"
