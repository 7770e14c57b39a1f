from django.core.management.base import BaseCommand

from mining.management import progress
from mining.models import MiningRun


class Command(BaseCommand):
    help = (
        "Gives WebQA questions their category and checks screen questions' reasoning types, for QA pairs not yet "
        "done (or as the options say), here or on the Celery workers, with a progress bar."
    )

    def add_arguments(self, parser):
        progress.add_arguments(parser)

    def handle(self, *args, **options):
        progress.run_job(self, job=MiningRun.Job.CATEGORISE, options=options)
