from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from collection.catalogue import import_sites


class Command(BaseCommand):
    help = "Import sites into the catalogue from a CSV file (columns: category, name, url[, notes])."

    def add_arguments(self, parser):
        parser.add_argument("csv_file", type=Path)

    def handle(self, *args, csv_file, **options):
        try:
            text = csv_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"Cannot read {csv_file}: {error}") from None
        report = import_sites(text=text)
        if not report.ok:
            for line, message in report.errors:
                self.stderr.write(f"{csv_file}:{line}: {message}")
            raise CommandError(f"Nothing imported: {len(report.errors)} lines need fixing.")
        self.stdout.write(f"{report.created} sites added, {report.updated} updated.")
