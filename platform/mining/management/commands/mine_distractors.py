from django.core.management.base import BaseCommand

from mining.management import progress
from mining.models import MiningRun


class Command(BaseCommand):
    help = (
        "Mines text, image and screen distractors for QA pairs that have none yet (or as the options say), "
        "here or on the Celery workers, with a progress bar."
    )

    def add_arguments(self, parser):
        progress.add_arguments(parser)

    def handle(self, *args, **options):
        progress.run_job(self, job=MiningRun.Job.MINE, options=options)
