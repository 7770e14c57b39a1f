import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from accounts.models import Role, User
from collection.models import PoolImport
from collection.pools import SourceError, open_source, run_import


class Command(BaseCommand):
    help = (
        "Import images (a CSV or JSON Lines manifest, its folder, or s3://bucket/prefix) or snippets "
        "(a JSON Lines file) into the pools. Bad rows are listed with their line numbers; the rest is "
        "imported. Running it again adds only what is new."
    )

    def add_arguments(self, parser):
        parser.add_argument("kind", choices=PoolImport.Kind.values)
        parser.add_argument("source", help="Manifest file, its folder, or s3://bucket/prefix.")
        parser.add_argument("--as", dest="username", help="The admin recorded as importer (default: the first admin).")

    def handle(self, *args, kind, source, username=None, **options):
        user = self._user(username)
        if not source.startswith("s3://"):
            source = str(Path(source).resolve())
        try:
            open_source(kind, source, anywhere=True)
        except SourceError as error:
            raise CommandError(error.message) from None
        job = PoolImport.objects.create(kind=kind, source=source, created_by=user)
        job = run_import(job.pk, on_progress=self._progress, anywhere=True)
        if self.stdout.isatty():
            self.stdout.write("")
        if job.state == PoolImport.State.FAILED:
            raise CommandError(job.message)
        for error in job.errors:
            self.stderr.write(f"{source}:{error['line']}: {error['message']}")
        if job.error_count > len(job.errors):
            self.stderr.write(f"… and {job.error_count - len(job.errors)} more bad rows.")
        self.stdout.write(
            f"Import {job.pk}: {job.created_count} added, {job.existing_count} already there, "
            f"{job.error_count} bad rows of {job.total}."
        )

    def _progress(self, job):
        if not job.total:
            return
        width = 30
        done = int(width * job.processed / job.total)
        line = f"[{'#' * done}{'.' * (width - done)}] {job.processed}/{job.total} rows, {job.error_count} bad"
        if sys.stdout.isatty():
            self.stdout.write("\r" + line, ending="")
            self.stdout.flush()
        else:
            self.stdout.write(line)

    def _user(self, username):
        if username:
            user = User.objects.filter(username=username).first()
            if user is None:
                raise CommandError(f"There is no user {username}.")
            return user
        user = User.objects.filter(role=Role.ADMIN).order_by("id").first()
        if user is None:
            raise CommandError("Create an admin first, or name the importer with --as.")
        return user
