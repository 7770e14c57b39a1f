"""The build job: snapshot, splits, every format, manifest, then one atomic publish.

Files go to a prefix of their own for each attempt (``releases/<name>/<version>/build-<n>/``)
and the release only becomes visible when one transaction records its files and marks it
published; a build that fails or is killed leaves an unpublished release and some files
under its attempt's prefix, which the next successful attempt deletes. Each attempt has a
number: a stale task (e.g. redelivered after its worker died) that finds a newer attempt
stops at its next progress report and never publishes.
"""

import hashlib
import heapq
import json
import logging
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from django.conf import settings
from django.core.cache import cache
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from webhooks import services as webhooks

from . import facts
from .formats import croissant, datasheet
from .formats.gold import GoldWriter
from .formats.records import EXTENSIONS, RecordsWriter
from .formats.webqa import WebQAImages, WebQAWriter, image_id
from .formats.webvln import WebVLNWriter
from .heap import fewer_collections
from .models import EVALUATION_FOLDER, SPLITS, Release, ReleaseAsset, ReleaseFile, ReleaseGraph, ReleaseItem
from .signals import release_published
from .snapshot import take_snapshot
from .storage import ReleaseFiles, delete_prefix

logger = logging.getLogger(__name__)


SNAPSHOT_COUNTS = ("selected", "excluded", "authors", "licences", "generated", "text_screening")


class Superseded(Exception):
    """A newer build attempt of the release has started: this one stops."""


def progress_key(release_id):
    return f"trailmark:release-progress:{release_id}"


class Progress:
    """Reports a build's stage and counts: to the cache at once, and to the release row
    (checking there that this attempt is still the current one) unless ``persist`` is
    off, as during the snapshot, whose one transaction nobody sees into until it ends."""

    def __init__(self, release_id, attempt):
        self.release_id = release_id
        self.attempt = attempt
        self.stage, self.done, self.total = "", 0, 0

    def __call__(self, *, stage, done=0, total=None, persist=True):
        if stage != self.stage:
            self.stage, self.total = stage, 0
        self.done = done
        if total is not None:
            self.total = total
        now = timezone.now()
        state = {"stage": self.stage, "done": self.done, "total": self.total, "at": now.isoformat()}
        cache.set(progress_key(self.release_id), {**state, "attempt": self.attempt}, timeout=24 * 3600)
        if persist:
            updated = Release.objects.filter(
                pk=self.release_id, attempt=self.attempt, state=Release.State.BUILDING
            ).update(stage=self.stage, progress_done=self.done, progress_total=self.total, heartbeat_at=now)
            if not updated:
                raise Superseded()


def no_progress(**kwargs):
    """For a rebuild of a published release: nothing to report, nothing to supersede."""


def run_build(*, release_id, attempt):
    """Builds and publishes attempt ``attempt`` of a release; safe to run twice."""
    updated = Release.objects.filter(pk=release_id, attempt=attempt, state__in=["queued", "building"]).update(
        state=Release.State.BUILDING, heartbeat_at=timezone.now(), message=""
    )
    if not updated:
        return None
    progress = Progress(release_id, attempt)
    try:
        release = Release.objects.get(pk=release_id)
        if release.snapshot_at is None:
            counts, _ = take_snapshot(release=release, progress=progress)
            Release.objects.filter(pk=release_id).update(counts=counts)
            release.refresh_from_db()
        prefix = f"{settings.RELEASE_STORAGE_PREFIX}/{release.name}/{release.version}/build-{attempt}"
        built = write_release(release=release, prefix=prefix, progress=progress)
        _publish(release_id=release_id, attempt=attempt, prefix=prefix, built=built)
    except Superseded:
        logger.info("Build %s of release %s was superseded.", attempt, release_id)
        return None
    except Exception as error:
        message = f"{type(error).__name__}: {error}"[:2000]
        with transaction.atomic():
            failed = Release.objects.filter(pk=release_id, attempt=attempt).update(
                state=Release.State.FAILED, message=message
            )
            if failed:
                release = Release.objects.get(pk=release_id)
                webhooks.emit("release.failed", {**_release_event(release), "message": message})
        raise
    cache.delete(progress_key(release_id))
    for old in range(1, attempt):
        delete_prefix(f"{settings.RELEASE_STORAGE_PREFIX}/{release.name}/{release.version}/build-{old}")
    return {"release": release_id, "files": built["file_count"]}


class Built(dict):
    """What ``write_release`` made: the manifest (without its file list), the datasheet,
    the counts, and the non-image files; image files are listed from ``ReleaseAsset``."""


@fewer_collections()
def write_release(*, release, prefix, progress):
    """Writes every file of ``release`` from its snapshot under ``prefix``."""
    files = ReleaseFiles(prefix)
    # Only what the snapshot counted: a rebuild of a published release starts from the same.
    counts = {key: release.counts[key] for key in SNAPSHOT_COUNTS if key in release.counts}
    counts.update(_split_counts(release))
    items = ReleaseItem.objects.filter(release=release)
    total = items.count()

    private_test = not release.test_answers_public
    gold = GoldWriter(files)
    records = RecordsWriter(files, gold=gold, private_test=private_test)
    webqa = WebQAWriter(files, gold=gold, private_test=private_test)
    progress(stage="records", done=0, total=total)
    write_items(release=release, writers=[records, webqa], progress=progress)
    records.finish()
    webqa.finish()

    _copy_assets(release, files, progress)

    webvln = WebVLNWriter(files, setting=release.webvln_setting, gold=gold, private_test=private_test)
    graphs = ReleaseGraph.objects.filter(release=release).order_by("host")
    progress(stage="webvln", done=0, total=graphs.count())
    for done, graph in enumerate(graphs.iterator(chunk_size=20), start=1):
        episodes = (
            items.filter(family="webvln", record__episode__site=graph.host)
            .order_by("guid")
            .values("split", "record")
            .iterator(chunk_size=500)
        )
        webvln.add_site(graph.host, graph.graph, episodes)
        progress(stage="webvln", done=done)
    webvln.finish()
    gold.finish()
    if webvln.sites:
        counts["webvln"] = {"setting": release.webvln_setting, "websites": webvln.sites,
                            "episodes": webvln.episode_count}  # fmt: skip

    if release.parent_id:
        progress(stage="diff")
        _write_diff(release, files)
    progress(stage="manifest")
    counts.update(facts.collect(release=release))  # e.g. validation's agreement, as counts["agreement"]
    readme = datasheet.readme(release=release, counts=counts)
    files.write_bytes("README.md", (datasheet.front_matter(release=release, counts=counts) + readme).encode())
    # After every data file is closed (it lists their hashes), before the manifest (which lists it).
    metadata = croissant.croissant(release=release, counts=counts, files=files.files(),
                                   image_formats=_image_formats(release))  # fmt: skip
    files.write_bytes("croissant.json", metadata.encode())
    head = datasheet.manifest(release=release, counts=counts, files=None)
    file_count, total_size = _write_manifest(release, files, head)
    head.pop("files")
    head.update(file_count=file_count, total_size=total_size)
    return Built(manifest=head, counts=counts, datasheet=readme, files=files.files(), file_count=file_count)


def write_items(*, release, writers, progress):
    """Feeds every item of the snapshot to each writer, in one pass, a chunk at a time."""
    if connection.vendor == "postgresql":
        # Fresh statistics: a planner that takes the snapshot's many new items for a few
        # sorts all of them for every chunk, which makes a build quadratic in its size.
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(ReleaseItem._meta.db_table)}")
    lookup = _Lookup(release)
    done = 0
    for rows in _item_rows(release, settings.RELEASE_CHUNK_SIZE):
        chunk = [{"family": family, "split": split, "record": _decoded(record)} for family, split, record in rows]
        lookup.load(chunk)
        for item in chunk:
            for writer in writers:
                writer.add(item, lookup)
        done += len(chunk)
        progress(stage="records", done=done)


def _item_rows(release, size):
    """``[(family, split, record as JSON text)]`` of the release's items in id order, a
    chunk at a time. On PostgreSQL the next chunk is read while this one is written, so
    the server turns records into text while Python writes: from a second thread on the
    same connection (psycopg2's is shared safely between threads, and a test's
    transaction stays the one read)."""
    table = connection.ops.quote_name(ReleaseItem._meta.db_table)
    sql = f"SELECT id, family, split, record FROM {table} WHERE release_id = %s AND id > %s ORDER BY id LIMIT %s"

    def read(last, cursor_of):
        with cursor_of() as cursor:
            cursor.execute(sql, [release.pk, last, size])
            return cursor.fetchall()

    if connection.vendor != "postgresql":
        last = 0
        while rows := read(last, connection.cursor):
            last = rows[-1][0]
            yield [row[1:] for row in rows]
        return
    connection.ensure_connection()
    raw = connection.connection
    with ThreadPoolExecutor(max_workers=1) as reader:
        with connection.wrap_database_errors:
            rows = read(0, raw.cursor)
        while rows:
            following = reader.submit(read, rows[-1][0], raw.cursor)
            yield [row[1:] for row in rows]
            with connection.wrap_database_errors:
                rows = following.result()


def _decoded(record):
    """A record read by raw SQL: JSON text (PostgreSQL's ``jsonb`` comes as text to Django's
    connections, as to SQLite's), or already decoded where a driver does it."""
    return json.loads(record) if isinstance(record, str) else record


class _Lookup:
    """WebQA image ids of the images the items reference, read for each chunk's new ones;
    pool images recur across chunks (as negatives), so the ids are kept (up to a bound)."""

    LIMIT = 100_000

    def __init__(self, release):
        self.release = release
        self.image_ids = {}

    def load(self, chunk):
        shas = set()
        for item in chunk:
            if item["family"] != "webqa":
                continue
            record = item["record"]
            shas.update(piece["image"]["sha256"] for piece in record["evidence"] if piece["type"] == "image")
            shas.update(image["sha256"] for image in record["negatives"]["image"])
        missing = shas - self.image_ids.keys()
        if not missing:
            return
        if len(self.image_ids) + len(missing) > self.LIMIT:
            self.image_ids.clear()
            missing = shas
        rows = ReleaseAsset.objects.filter(release=self.release, sha256__in=missing)
        self.image_ids.update((sha, image_id(index)) for sha, index in rows.values_list("sha256", "image_index"))


def _split_counts(release):
    rows = ReleaseItem.objects.filter(release=release).values("split", "family").annotate(n=Count("id"))
    splits = {split: {} for split in SPLITS}
    families = {}
    for row in rows.order_by("split", "family"):
        splits[row["split"]][row["family"]] = row["n"]
        families[row["family"]] = families.get(row["family"], 0) + row["n"]
    return {"splits": splits, "families": dict(sorted(families.items())), "items": sum(families.values())}


# Images copied at once: reading and hashing a file releases the interpreter's lock.
COPY_THREADS = 2


def _copy_assets(release, files, progress):
    """Every shipped image into ``images/<sha256>.<ext>``, checked against its hash;
    WebQA's images into ``imgs.tsv`` as well, in image-index (= hash) order."""
    assets = ReleaseAsset.objects.filter(release=release).order_by("sha256")
    webqa_images = WebQAImages(files)
    progress(stage="images", done=0, total=assets.count())
    sizes = []
    rows = assets.values_list("id", "sha256", "format", "storage_key", "image_index", "webqa_image")
    copied = _in_order(partial(_copy_asset, files), rows.iterator(chunk_size=1000), threads=COPY_THREADS)
    for done, ((asset_id, _sha, _format, _key, image_index, _webqa), (output, data)) in enumerate(copied, start=1):
        if data is not None:
            webqa_images.add(image_index, data)
        files.written.pop(output.path)  # listed from ReleaseAsset instead, to keep memory flat
        sizes.append((asset_id, output.size))
        if len(sizes) == 2000:
            _store_sizes(sizes)
            sizes = []
            progress(stage="images", done=done)
    _store_sizes(sizes)
    webqa_images.finish()


def _copy_asset(files, row):
    """``(output, bytes)``: one image copied in; a WebQA image's bytes, for its base64 line."""
    _id, sha, fmt, storage_key, _index, webqa_image = row
    path = f"images/{sha}.{EXTENSIONS[fmt]}"
    if not webqa_image:
        return files.copy_from_storage(path, storage_key, expected_sha256=sha), None
    with default_storage.open(storage_key, "rb") as handle:  # a few images at a time in memory
        data = handle.read()
    if hashlib.sha256(data).hexdigest() != sha:
        raise ValueError(f"The stored file {storage_key} does not match its hash {sha}.")
    return files.write_bytes(path, data), data


def _in_order(work, items, *, threads):
    """``(item, work(item))`` for each item, in order, with up to ``2 * threads`` at work at once."""
    window = 2 * threads
    with ThreadPoolExecutor(max_workers=threads) as pool:
        pending = deque()
        for item in items:
            pending.append((item, pool.submit(work, item)))
            if len(pending) >= window:
                item, future = pending.popleft()
                yield item, future.result()
        while pending:
            item, future = pending.popleft()
            yield item, future.result()


def _store_sizes(sizes):
    """Each copied image's size on its ``ReleaseAsset`` row, in one statement."""
    if not sizes:
        return
    if connection.vendor != "postgresql":
        ReleaseAsset.objects.bulk_update([ReleaseAsset(id=id_, size=size) for id_, size in sizes], ["size"])
        return
    table = connection.ops.quote_name(ReleaseAsset._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET size = copied.size FROM unnest(%s::bigint[], %s::bigint[]) AS copied(id, size)"
            f" WHERE {table}.id = copied.id",
            [[id_ for id_, _size in sizes], [size for _id, size in sizes]],
        )


def _image_formats(release):
    formats = ReleaseAsset.objects.filter(release=release).values_list("format", flat=True).distinct()
    return sorted({EXTENSIONS[fmt] for fmt in formats})


def _image_entries(release):
    assets = ReleaseAsset.objects.filter(release=release).order_by("sha256").values_list("sha256", "format", "size")
    for sha, fmt, size in assets.iterator(chunk_size=2000):
        yield {"path": f"images/{sha}.{EXTENSIONS[fmt]}", "size": size, "sha256": sha}


def _all_entries(release, files):
    return heapq.merge(files.files(), _image_entries(release), key=lambda entry: entry["path"])


def _write_manifest(release, files, head):
    """manifest.json, its file list streamed (it does not list itself)."""
    output = files.open("manifest.json")
    head = {key: value for key, value in head.items() if key != "files"}
    text = json.dumps(head, indent=1, ensure_ascii=False, sort_keys=True)
    output.write(text.removesuffix("\n}") + ',\n "files": [')
    count, size = 0, 0
    for entry in _all_entries(release, files):
        entry = {**entry, "set": "evaluation" if entry["path"].startswith(EVALUATION_FOLDER) else "public"}
        output.write(("\n  " if not count else ",\n  ") + json.dumps(entry))
        count += 1
        size += entry["size"]
    output.write("\n ]\n}\n")
    files.close(output)
    return count + 1, size + output.size


def _write_diff(release, files):
    from .diff import diff_ids

    output = files.open("diff.json")
    output.write(json.dumps({"from": release.parent.version, "to": release.version})[:-1] + ', "splits": {')
    for n, split in enumerate(SPLITS):
        output.write(("" if n == 0 else ", ") + json.dumps(split) + ": {")
        for m, change in enumerate(("added", "removed", "changed")):
            output.write(("" if m == 0 else ", ") + json.dumps(change) + ": [")
            for k, guid in enumerate(diff_ids(release=release, against=release.parent, split=split, change=change)):
                output.write(("" if k == 0 else ", ") + json.dumps(guid))
            output.write("]")
        output.write("}")
    output.write("}}\n")
    files.close(output)


def _publish(*, release_id, attempt, prefix, built):
    with transaction.atomic():
        release = Release.objects.select_for_update().get(pk=release_id)
        if release.attempt != attempt or release.state != Release.State.BUILDING:
            raise Superseded()
        ReleaseFile.objects.filter(release=release).delete()
        private = not release.test_answers_public
        ReleaseFile.objects.bulk_create(
            ReleaseFile(release=release, private=private and entry["path"].startswith(EVALUATION_FOLDER), **entry)
            for entry in built["files"]
        )
        _store_image_files(release)
        release.state = Release.State.PUBLISHED
        release.manifest = built["manifest"]
        release.counts = built["counts"]
        release.datasheet = built["datasheet"]
        release.storage_prefix = prefix
        release.published_at = timezone.now()
        release.stage = "published"
        release.message = ""
        release.save()
        webhooks.emit("release.published", {**_release_event(release), "counts": _headline(built["counts"])})
        transaction.on_commit(lambda: release_published.send(sender=Release, release=release))


def _store_image_files(release):
    """A ``ReleaseFile`` row for each copied image, made from its ``ReleaseAsset`` row."""
    if connection.vendor != "postgresql":
        batch = []
        for entry in _image_entries(release):
            batch.append(ReleaseFile(release=release, **entry))
            if len(batch) == 2000:
                ReleaseFile.objects.bulk_create(batch)
                batch = []
        ReleaseFile.objects.bulk_create(batch)
        return
    files = connection.ops.quote_name(ReleaseFile._meta.db_table)
    assets = connection.ops.quote_name(ReleaseAsset._meta.db_table)
    extension = " ".join(f"WHEN '{fmt}' THEN '{ext}'" for fmt, ext in EXTENSIONS.items())
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {files} (release_id, path, size, sha256, private)"
            f" SELECT release_id, 'images/' || sha256 || '.' || (CASE format {extension} END), size, sha256, false"
            f" FROM {assets} WHERE release_id = %s ORDER BY sha256",
            [release.pk],
        )


def _release_event(release):
    return {"release": release.pk, "name": release.name, "version": release.version,
            "url": f"/api/v1/releases/{release.pk}/"}  # fmt: skip


def _headline(counts):
    return {key: counts[key] for key in ("items", "families", "splits") if key in counts}


def check_rebuild(*, release_id):
    """Builds a published release again from its snapshot into a scratch prefix and
    compares every file's SHA-256 with the published ones; records and returns the result."""
    release = Release.objects.get(pk=release_id, state=Release.State.PUBLISHED)
    started = timezone.now()
    prefix = f"{settings.RELEASE_STORAGE_PREFIX}/{release.name}/{release.version}/check-{started:%Y%m%d%H%M%S%f}"
    try:
        built = write_release(release=release, prefix=prefix, progress=no_progress)
    finally:
        delete_prefix(prefix)
    rebuilt = {entry["path"]: entry["sha256"] for entry in built["files"]}
    published = dict(
        ReleaseFile.objects.filter(release=release).exclude(path__startswith="images/").values_list("path", "sha256")
    )
    # Image files are checked against their content hash as they are copied.
    differing = sorted(path for path in rebuilt.keys() | published.keys() if rebuilt.get(path) != published.get(path))
    result = {"at": started.isoformat(), "identical": not differing, "differing": differing, "files": len(rebuilt)}
    Release.objects.filter(pk=release_id).update(rebuild_check=result)
    return result
