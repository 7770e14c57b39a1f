"""Importing the image and snippet pools that the WebQA-style tasks draw from.

An import reads a manifest, one row per image or snippet, and stores every good row;
a bad row is recorded with its line number and the reason, and the import goes on.
Importing the same content again finds the existing record, so an import can be re-run
(e.g. after fixing the bad rows) without making duplicates.

Sources:

- images: a CSV (with a header) or JSON Lines manifest whose ``file`` column names an
  image relative to the manifest's folder; or an S3 prefix ``s3://bucket/prefix`` holding
  ``manifest.jsonl`` or ``manifest.csv`` and the images it names, relative to the prefix.
  Other columns: ``title`` (required), ``description``, ``source_url``, ``topic``, ``licence``.
- snippets: a JSON Lines file (local or ``s3://bucket/key``) with ``title`` and ``text``
  (both required), ``url`` and ``topic``.

Local sources must lie under ``settings.POOL_IMPORT_ROOT``: the server reads them, so
an admin cannot point it at arbitrary files.
"""

import csv
import hashlib
import io
import json
import posixpath
import tempfile
import time
from pathlib import Path

from botocore.exceptions import BotoCoreError, ClientError
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.validators import URLValidator
from django.db import IntegrityError, transaction
from django.utils import timezone

from assets.errors import ImageRefused
from assets.services import store_image
from config.errors import DomainError
from corpus.models import ImageSource, Snippet
from moderation import services as moderation
from moderation import textscreen
from outbox import services as outbox

from .models import PoolImport

MAX_ERRORS_KEPT = 500
PROGRESS_EVERY_SECONDS = 1.0
IMAGE_COLUMNS = {"file", "title", "description", "source_url", "topic", "licence"}
SNIPPET_COLUMNS = {"title", "text", "url", "topic"}


class SourceError(DomainError):
    """The source as a whole cannot be read (no such file, not under the import root…)."""

    status = 400
    code = "invalid_source"


class RowError(Exception):
    """One manifest row is wrong; the import records it and goes on."""


# --- Starting an import -------------------------------------------------------------------


def start_import(*, kind, source, user):
    """Checks that ``source`` can be read and queues the import job; returns the job."""
    if kind not in PoolImport.Kind.values:
        raise SourceError(f"Unknown pool “{kind}”: choose images or snippets.")
    open_source(kind, source)  # refuses a missing or forbidden source now, not in the job
    job = PoolImport.objects.create(kind=kind, source=source, created_by=user)
    from .tasks import run_pool_import

    outbox.enqueue(run_pool_import, job.pk)
    return job


def run_import(job_id, *, on_progress=None, anywhere=False):
    """Runs (or re-runs) the import job ``job_id``. ``on_progress(job)`` is called as it goes.
    ``anywhere`` lets a local source lie outside the import folder (the shell command)."""
    job = PoolImport.objects.get(pk=job_id)
    job.state, job.message, job.finished_at = PoolImport.State.RUNNING, "", None
    job.processed = job.created_count = job.existing_count = job.error_count = 0
    job.errors = []
    job.save()
    try:
        source = open_source(job.kind, job.source, anywhere=anywhere)
        job.total = sum(1 for _ in source.rows())  # a first streaming pass, for progress
    except SourceError as error:
        _finish(job, PoolImport.State.FAILED, message=error.message)
        return job
    job.save(update_fields=["total"])
    importer = _import_image if job.kind == PoolImport.Kind.IMAGES else _import_snippet
    last_saved = time.monotonic()
    for line, row in source.rows():
        try:
            if isinstance(row, RowError):
                raise row
            created = importer(row, source=source, user=job.created_by)
        except RowError as error:
            job.error_count += 1
            if len(job.errors) < MAX_ERRORS_KEPT:
                job.errors.append({"line": line, "message": str(error)})
        else:
            if created:
                job.created_count += 1
            else:
                job.existing_count += 1
        job.processed += 1
        if time.monotonic() - last_saved >= PROGRESS_EVERY_SECONDS:
            job.save(update_fields=["processed", "created_count", "existing_count", "error_count", "errors"])
            last_saved = time.monotonic()
            if on_progress:
                on_progress(job)
    _finish(job, PoolImport.State.DONE)
    if on_progress:
        on_progress(job)
    return job


def _finish(job, state, *, message=""):
    job.state, job.message, job.finished_at = state, message, timezone.now()
    job.save()


# --- Sources ------------------------------------------------------------------------------


class _Source:
    """Rows of a manifest, and the files it names."""

    def __init__(self, *, kind, storage, manifest_key, base):
        self.kind, self.storage, self.manifest_key, self.base = kind, storage, manifest_key, base

    def rows(self):
        """``(line number, dict or RowError)`` for every non-blank row."""
        copy = self._copy()
        copy.seek(0)
        text = io.TextIOWrapper(copy, encoding="utf-8-sig", newline="")
        try:
            if self.manifest_key.lower().endswith(".csv"):
                yield from self._csv_rows(text)
            else:
                yield from self._jsonl_rows(text)
        except UnicodeDecodeError:
            raise SourceError("The manifest is not UTF-8 text.") from None
        finally:
            text.detach()  # keeps the copy open for the next pass

    def _copy(self):
        """The manifest in a local spooled file (memory, then disk), read in chunks once,
        whatever the storage: S3 objects are not seekable text streams."""
        if getattr(self, "_spooled", None) is None:
            spooled = tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024)  # noqa: SIM115 (kept for the passes)
            try:
                with self.storage.open(self.manifest_key, "rb") as handle:
                    for chunk in iter(lambda: handle.read(1024 * 1024), b""):
                        spooled.write(chunk)
            except OSError as error:
                raise SourceError(f"The manifest cannot be read: {error}") from None
            self._spooled = spooled
        return self._spooled

    def _columns(self):
        return IMAGE_COLUMNS if self.kind == PoolImport.Kind.IMAGES else SNIPPET_COLUMNS

    def _csv_rows(self, text):
        reader = csv.DictReader(text)
        missing = {"file", "title"} - set(reader.fieldnames or [])
        if missing:
            raise SourceError(
                "The CSV manifest's header lacks " + ", ".join(sorted(missing)) + f"; it has {reader.fieldnames}."
            )
        for row in reader:
            line = reader.line_num
            if None in row:
                yield line, RowError("The row has more values than the header has columns.")
            elif any(value.strip() for value in row.values() if value):
                yield line, {key: (value or "").strip() for key, value in row.items() if key in self._columns()}

    def _jsonl_rows(self, text):
        for line, raw in enumerate(text, start=1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except ValueError as error:
                yield line, RowError(f"Not valid JSON: {error.msg} at column {error.colno}.")
                continue
            if not isinstance(row, dict):
                yield line, RowError("Each line must be a JSON object.")
                continue
            bad = [key for key, value in row.items() if key in self._columns() and not isinstance(value, str)]
            if bad:
                yield line, RowError(f"“{bad[0]}” must be text.")
                continue
            yield line, {key: value.strip() for key, value in row.items() if key in self._columns()}

    def open_file(self, name):
        if not name:
            raise RowError("The row names no file.")
        if name.startswith("/") or ".." in Path(name).parts or "\\" in name:
            raise RowError(f"“{name}” must be a path inside the manifest's folder.")
        key = posixpath.join(self.base, name) if self.base else name
        try:
            size = self.storage.size(key)
        except (OSError, ValueError, BotoCoreError, ClientError):
            raise RowError(f"There is no file “{name}” next to the manifest.") from None
        if size > settings.ASSET_MAX_BYTES:
            limit = settings.ASSET_MAX_BYTES // (1024 * 1024)
            raise RowError(f"{name} is {size / 1024 / 1024:.1f} MB; images may be at most {limit} MB.")
        try:
            with self.storage.open(key, "rb") as handle:
                return ContentFile(handle.read(), name=posixpath.basename(name))
        except (OSError, ValueError, BotoCoreError, ClientError) as error:
            raise RowError(f"{name} cannot be read: {error}") from None


def open_source(kind, source, *, anywhere=False):
    source = (source or "").strip()
    if not source:
        raise SourceError("Say what to import: a manifest file or an s3:// prefix.")
    if source.startswith("s3://"):
        return _s3_source(kind, source)
    return _local_source(kind, source, anywhere=anywhere)


def _local_source(kind, source, *, anywhere):
    from django.core.files.storage import FileSystemStorage

    root = Path(settings.POOL_IMPORT_ROOT).resolve()
    path = Path(source)
    path = (path if path.is_absolute() else root / path).resolve()
    if not anywhere and not path.is_relative_to(root):
        raise SourceError(f"Imports are read from {root}; {source} is outside it.")
    if path.is_dir():
        path = _find_manifest(path, kind)
    if not path.is_file():
        raise SourceError(f"There is no manifest at {source}.")
    _check_manifest_type(kind, path.name)
    storage = FileSystemStorage(location=path.parent)
    return _Source(kind=kind, storage=storage, manifest_key=path.name, base="")


def _find_manifest(folder, kind):
    names = ["manifest.jsonl", "manifest.csv"] if kind == PoolImport.Kind.IMAGES else ["snippets.jsonl"]
    for name in names:
        if (folder / name).is_file():
            return folder / name
    raise SourceError(f"{folder} holds no {' or '.join(names)}.")


def _check_manifest_type(kind, name):
    allowed = (".jsonl", ".csv") if kind == PoolImport.Kind.IMAGES else (".jsonl",)
    if not name.lower().endswith(allowed):
        raise SourceError(f"The manifest must be a {' or '.join(allowed)} file; {name} is not.")


def _s3_source(kind, source):
    from storages.backends.s3 import S3Storage

    bucket, _, key = source[len("s3://") :].partition("/")
    if not bucket:
        raise SourceError("An S3 source looks like s3://bucket/prefix/.")
    options = {}
    configured = settings.STORAGES["default"]
    if configured["BACKEND"].endswith("S3Storage"):
        options = {k: v for k, v in configured.get("OPTIONS", {}).items() if k != "bucket_name"}
    storage = S3Storage(**{**options, "bucket_name": bucket})
    if key.lower().endswith((".jsonl", ".csv")):
        manifest_key = key
    else:
        prefix = key.rstrip("/")
        names = ["manifest.jsonl", "manifest.csv"] if kind == PoolImport.Kind.IMAGES else ["snippets.jsonl"]
        manifest_key = None
        for name in names:
            candidate = posixpath.join(prefix, name) if prefix else name
            try:
                if storage.exists(candidate):
                    manifest_key = candidate
                    break
            except Exception as error:  # noqa: BLE001 (botocore raises many kinds)
                raise SourceError(f"The bucket cannot be read: {error}") from None
        if manifest_key is None:
            raise SourceError(f"{source} holds no {' or '.join(names)}.")
    _check_manifest_type(kind, manifest_key)
    return _Source(kind=kind, storage=storage, manifest_key=manifest_key, base=posixpath.dirname(manifest_key))


# --- Rows ---------------------------------------------------------------------------------

_url = URLValidator(schemes=["http", "https"])


def _check_url(value, what):
    if not value:
        return ""
    if len(value) > 2000:
        raise RowError(f"The {what} is longer than 2000 characters.")
    try:
        _url(value)
    except ValidationError:
        raise RowError(f"The {what} “{value[:80]}” is not an http(s) address.") from None
    return value


def _check_text(row, key, *, required=False, limit=None):
    value = row.get(key, "")
    if required and not value:
        raise RowError(f"The row has no {key}.")
    if limit and len(value) > limit:
        raise RowError(f"The {key} is longer than {limit} characters.")
    return value


def _import_image(row, *, source, user):
    title = _check_text(row, "title", required=True, limit=500)
    fields = {
        "title": title,
        "description": _check_text(row, "description", limit=20000),
        "source_url": _check_url(row.get("source_url", ""), "source_url"),
        "topic": _check_text(row, "topic", limit=200),
        "licence": _check_text(row, "licence", limit=200),
    }
    image = source.open_file(row.get("file", ""))
    try:
        asset, _ = store_image(file=image, uploaded_by=user, source_url=fields["source_url"])
    except ImageRefused as refusal:
        raise RowError(f"{row['file']}: {refusal.message}") from None
    try:
        with transaction.atomic():
            image_source, created = ImageSource.objects.get_or_create(
                asset=asset, defaults={**fields, "imported_by": user}
            )
            if created:
                _screen_image_texts(image_source)
    except IntegrityError:  # imported at the same moment by another job
        created = False
    return created


def _screen_image_texts(image_source):
    """Personal data in a pool image's title and description goes to the image's review
    item, with the field it is in; the reviewer masks it there."""
    findings = moderation.screen_texts(
        texts=[("image title", image_source.title), ("image description", image_source.description)],
        urls=[("image source URL", image_source.source_url)],
    )
    moderation.record_text_findings(
        asset=image_source.asset, record={"type": "pool_image", "id": image_source.pk}, findings=findings
    )


def mask_pool_image_texts(*, asset, findings, **_signal):
    """A reviewer masked personal data found in a pool image's texts."""
    ids = {f["record"]["id"] for f in findings if f.get("record", {}).get("type") == "pool_image"}
    for image_source in ImageSource.objects.filter(pk__in=ids).select_for_update():
        image_source.title = textscreen.mask(image_source.title, findings)
        image_source.description = textscreen.mask(image_source.description, findings)
        image_source.source_url = textscreen.mask_url(image_source.source_url, findings)
        image_source.save(update_fields=["title", "description", "source_url"])


def snippet_digest(title, text):
    normal = " ".join(title.split()).lower() + "\n" + " ".join(text.split()).lower()
    return hashlib.sha256(normal.encode()).hexdigest()


def _import_snippet(row, *, source, user):
    title = _check_text(row, "title", required=True, limit=500)
    text = _check_text(row, "text", required=True, limit=20000)
    url = _check_url(row.get("url", ""), "url")
    # Nobody reviews a snippet, so personal data in it is masked as it comes in (signs of
    # a signed-in page are no visitor's in a quoted text); the digest is of the row as
    # given, so importing it again still finds it.
    found = textscreen.text_findings(f"{title}\n{text}") + textscreen.url_findings(url)
    found = [finding for finding in found if finding["kind"] not in textscreen.NOT_PERSONAL]
    fields = {
        "title": textscreen.mask(title, found),
        "text": textscreen.mask(text, found),
        "url": textscreen.mask_url(url, found),
        "topic": _check_text(row, "topic", limit=200),
        "imported_by": user,
    }
    try:
        with transaction.atomic():
            _, created = Snippet.objects.get_or_create(digest=snippet_digest(title, text), defaults=fields)
    except IntegrityError:
        created = False
    return created
