"""``manage.py evaluate <release-id> --family webqa --split test --predictions FILE [--json]``:
scores predictions against a published release here and now, and prints the metrics
(nothing is stored; the API and the release's evaluation page keep runs)."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from releases import evaluation
from releases.models import FAMILIES, Release


class Command(BaseCommand):
    help = "Scores a predictions file against one split of a published release with its family's metric."

    def add_arguments(self, parser):
        parser.add_argument("release", type=int, help="The release's id.")
        parser.add_argument("--family", required=True, choices=FAMILIES)
        parser.add_argument("--split", required=True, choices=evaluation.SCORED_SPLITS)
        parser.add_argument("--predictions", required=True, type=Path, help="The predictions file.")
        parser.add_argument("--json", action="store_true", help="Print one JSON object instead of a table.")

    def handle(self, *args, **options):
        release = Release.objects.filter(pk=options["release"], state=Release.State.PUBLISHED).first()
        if release is None:
            raise CommandError(f"There is no published release {options['release']}.")
        try:
            raw = options["predictions"].read_bytes()
        except OSError as error:
            raise CommandError(f"Cannot read {options['predictions']}: {error.strerror}.") from None
        family, split = options["family"], options["split"]
        try:
            report = evaluation.score(release=release, family=family, split=split, raw=raw)
        except evaluation.BadPredictions as refusal:
            problems = "\n".join(f"  {where}: {' '.join(messages)}" for where, messages in refusal.detail.items())
            raise CommandError(f"The predictions cannot be scored:\n{problems}") from None
        if options["json"]:
            keys = ("metrics", "per_category", "missing", "count")
            self.stdout.write(json.dumps({key: report[key] for key in keys}, indent=1, sort_keys=True))
            return
        self.stdout.write(f"{release} · {family} · {split} · {report['count']} items, {report['missing']} missing")
        for name, value in report["metrics"].items():
            self.stdout.write(f"  {name:<18} {_shown(name, value)}")
        for group, rows in report["per_category"].items():
            if not isinstance(rows, dict):
                self.stdout.write(f"{group}: {rows}")
                continue
            self.stdout.write(f"{group}:")
            for label, row in rows.items():
                if isinstance(row, dict):
                    cells = ", ".join(f"{key} {_shown(key, value)}" for key, value in row.items())
                    self.stdout.write(f"  {label:<18} {cells}")
                else:
                    self.stdout.write(f"  {label:<18} {_shown(label, row)}")


def _shown(name, value):
    if value is None:
        return "not computed"
    if name == "count" or isinstance(value, int):
        return str(value)
    if name == "tl":
        return f"{value:.2f} pages"
    return f"{value:.2%}"
