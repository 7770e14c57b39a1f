"""The site catalogue: categories and the sites raters are sent to, and their CSV import."""

import csv
import io
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction

from corpus.models import Category, Site, host_of

CSV_COLUMNS = ("category", "name", "url")


@dataclass
class ImportReport:
    created: int = 0
    updated: int = 0
    errors: list = field(default_factory=list)  # (line number, message)

    @property
    def ok(self):
        return not self.errors


def import_sites(*, text):
    """Imports sites from CSV text with the columns ``category,name,url`` (``notes`` optional).

    Every row is checked first; if any is bad, nothing is imported and the report lists
    each bad line with its number. Importing the same file twice changes nothing.
    """
    report = ImportReport()
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    missing = [column for column in CSV_COLUMNS if column not in (reader.fieldnames or [])]
    if missing:
        report.errors.append(
            (1, f"The header must name the columns {', '.join(CSV_COLUMNS)}; missing: {', '.join(missing)}.")
        )
        return report
    categories = {c.name.lower(): c for c in Category.objects.all()} | {c.slug: c for c in Category.objects.all()}
    rows, seen = [], set()
    for line, row in enumerate(reader, start=2):
        name, url = (row.get("name") or "").strip(), (row.get("url") or "").strip()
        category = categories.get((row.get("category") or "").strip().lower())
        if category is None:
            report.errors.append((line, f"Unknown category “{row.get('category')}”."))
            continue
        if not name:
            report.errors.append((line, "The site has no name."))
            continue
        try:
            URLValidator(schemes=["http", "https"])(url)
        except ValidationError:
            report.errors.append((line, f"“{url}” is not a web address (http or https)."))
            continue
        key = (category.pk, host_of(url))
        if key in seen:
            report.errors.append((line, f"{host_of(url)} is listed twice under {category}."))
            continue
        seen.add(key)
        rows.append((category, name, url, (row.get("notes") or "").strip()))
    if report.errors:
        return report
    with transaction.atomic():
        for category, name, url, notes in rows:
            site = Site.objects.filter(category=category, host=host_of(url)).first()
            if site is None:
                Site.objects.create(category=category, name=name, url=url, notes=notes)
                report.created += 1
            elif (site.name, site.url, site.notes) != (name, url, notes):
                site.name, site.url, site.notes = name, url, notes
                site.save()
                report.updated += 1
    return report


def site_for(*, url, category=None):
    """The catalogue site a page belongs to (in ``category`` if given), or None.

    Subdomains count as their site: a page on ``secure.booking.com`` is Booking.com's.
    """
    labels = host_of(url).split(".")
    suffixes = [".".join(labels[i:]) for i in range(len(labels) - 1)]
    sites = Site.objects.filter(host__in=suffixes, active=True).select_related("category")
    if category is not None:
        sites = sites.filter(category=category)
    return max(sites, key=lambda site: len(site.host), default=None)
