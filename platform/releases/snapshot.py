"""Taking a release's snapshot: the QA pairs its definition selects, frozen as records.

The whole snapshot is read in one transaction (REPEATABLE READ on PostgreSQL), so pairs
accepted, evidence added or distractors mined while it runs cannot leak in, and it is all
or nothing. Each pair becomes a ``ReleaseItem`` holding everything the formats write, with
the content hash of every image it references; builds read only those rows afterwards.
Only assets a reviewer cleared are referenced: a pair whose evidence is not cleared is left
out (and counted), other uncleared screens and distractors are dropped from its record.

It is the slow part of a build, so it reads and writes in sets. The pairs, their evidence,
distractors and reference answers are each read by one query in pair order (a server-side
cursor on PostgreSQL) and taken a chunk of pairs at a time; the screens, pool images and
snippets they name are read by id, screened once and kept in a bounded cache, as pool
sources recur across records. Each chunk's items go to the database in one ``COPY`` on
PostgreSQL (each record serialised once, for its hash and its row), its assets in one
upsert, and the WebQA images are numbered by one ``UPDATE``.
"""

import hashlib
import io
import json
import re
import threading
from collections import Counter, defaultdict
from itertools import islice
from urllib.parse import urlsplit

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, Value
from django.db.models.functions import Coalesce, Lower, NullIf, Trim
from django.utils import timezone

from assets.models import Asset
from corpus.models import (
    Evidence,
    ImageSource,
    QAPair,
    ReferenceAnswer,
    ReferenceSet,
    Screen,
    Site,
    Snippet,
    TraceStep,
)
from mining.models import Distractor

from .environments import freeze, rebuild_sites
from .formats.answers import keyword_fits_domain
from .heap import fewer_collections
from .models import Release, ReleaseAsset, ReleaseItem
from .splits import SplitPlan
from .textscreen import screen_record, screen_source

CLEARED = Asset.ReviewState.CLEARED
ASSET_FIELDS = ["asset__id", "asset__sha256", "asset__format", "asset__storage_key", "asset__review_state"]
ASSET_FIELDS += ["asset__width", "asset__height"]
SCREEN_FIELDS = ["id", "url", "title", "captured_at", "site__host", *ASSET_FIELDS]
IMAGE_FIELDS = ["id", "title", "description", "source_url", "topic", "licence", *ASSET_FIELDS]
SNIPPET_FIELDS = ["id", "title", "text", "url"]
PAIR_FIELDS = ["id", "family", "split_kind", "question", "answer", "answer_type", "keyword_answer", "reasoning_types"]
PAIR_FIELDS += ["question_category", "category__slug", "trace_id", "image_group_id", "image_group__label", "author_id"]
PAIR_FIELDS += ["answer_variants", "episode__site__host", "episode__target_url", "episode__description"]
PAIR_FIELDS += ["assignment__task__payload__topic"]
PAIR_FIELDS += [
    "candidate__generator",
    "candidate__generator_version",
    "candidate__prompt_version",
    "candidate__run_id",
]
STEP_FIELDS = ["trace_id", "position", "action", "target", "url", "title", "captured_at", "clickables"]
STEP_FIELDS += ["viewport_width", "viewport_height", "device_pixel_ratio", "scroll_x", "scroll_y", "screen_id"]
EVIDENCE_FIELDS = ["qa_pair_id", "position", "note", "fact", "url", "step__position", "screen_id", "image_id"]
EVIDENCE_FIELDS += ["snippet_id"]
DISTRACTOR_FIELDS = ["qa_pair_id", "kind", "rank", "method", "screen_id", "image_id", "snippet_id"]
# Asset rows a snapshot remembers having written, so that chunks skip them.
STORED_ASSETS_KEPT = 200_000
# Pool sources kept screened between chunks, per kind (screens, pool images, snippets).
SOURCE_CACHE_SIZE = 50_000


def guid_of(pair_id):
    """A pair's id in every release: 32 hex characters, the same in every version."""
    return hashlib.sha256(f"trailmark-qa-pair-{pair_id}".encode()).hexdigest()[:32]


def record_text(record):
    """The record as stored and hashed: sorted keys, so equal records hash alike."""
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def content_hash(record):
    return hashlib.sha256(record_text(record).encode()).hexdigest()


def host_of(url):
    return (urlsplit(url or "").hostname or "").lower().removeprefix("www.")


def selected_pairs(release):
    return QAPair.objects.filter(family__in=release.families, state__in=release.qa_states)


@fewer_collections()
def take_snapshot(*, release, progress):
    """Freezes the pairs ``release`` selects into its items and assets; returns counts."""
    outermost = not connection.in_atomic_block
    if "webvln" in release.families:
        rebuild_sites(selected_pairs(release))  # the sites' graphs as their traces are now
    with transaction.atomic():
        if connection.vendor == "postgresql" and outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                # Its commit need not wait for the disk: a crash that lost it loses the release
                # row's snapshot_at with it (one transaction), so the next build snapshots
                # again; and the build's later commits, which do wait, make it durable.
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        snapshot_at = timezone.now()
        pairs = selected_pairs(release)
        plan = SplitPlan.make(release=release, pairs=pairs)
        environment, screened = Shipped(), Counter()
        keep_query_hosts = set(Site.objects.filter(keep_query=True).values_list("host", flat=True))
        graphs = (
            freeze(release=release, pairs=pairs, shipped=environment.assets, screened=screened)
            if "webvln" in release.families
            else {}
        )
        if environment.assets:
            _store_assets(release, environment.assets.values())
        progress(stage="snapshot", done=0, total=pairs.count(), persist=False)
        excluded, authors, licences, generated = defaultdict(int), set(), set(), defaultdict(int)
        sources = _Sources(keep_query_hosts)
        done = 0
        with _ItemWriter(release) as writer:
            for chunk, rows in _chunks(pairs, settings.RELEASE_CHUNK_SIZE):
                sources.load(_wanted(rows))
                writer.start()  # the last chunk's COPY, while this one is built
                licences |= _snapshot_chunk(chunk, rows, sources, graphs, plan, writer, keep_query_hosts,
                                            tallies=(excluded, screened, authors, generated))  # fmt: skip
                done += len(chunk)
                progress(stage="snapshot", done=done, persist=False)
        _number_webqa_images(release)
        counts = {
            "selected": done,
            "excluded": dict(sorted(excluded.items())),
            "authors": len(authors),
            "licences": sorted(licences),
        }
        if generated:
            counts["generated"] = generated_counts(generated)
        if screened:
            counts["text_screening"] = dict(sorted(screened.items()))
        Release.objects.filter(pk=release.pk).update(snapshot_at=snapshot_at, split_plan=plan.to_json())
    return counts, snapshot_at


def _snapshot_chunk(chunk, rows, sources, graphs, plan, writer, keep_query_hosts, *, tallies):
    """One chunk's items handed to ``writer`` and its assets stored; returns its licences.
    ``tallies`` (excluded, screened, authors, generated) are added to."""
    excluded, screened, authors, generated = tallies
    items, shipped = [], Shipped()
    for pair, record_or_reason, source_counts in _records(chunk, rows, sources, shipped, graphs):
        if isinstance(record_or_reason, str):
            excluded[record_or_reason] += 1
            continue
        record, changed = screen_record(
            record_or_reason, keep_query_hosts=keep_query_hosts, in_place=True, pool_sources=False
        )
        screened.update(changed)
        for counts in source_counts:
            screened.update(counts)
        group = _group_key(pair, record)
        split = plan.split_of(record=record, group_key=group)
        if split is None or (split == "test" and pair["id"] in rows.disagreeing):
            excluded[plan.left_out.get(pair["id"], LOW_AGREEMENT)] += 1
            continue
        if record["source"] == "generated":
            generated[pair["candidate__run_id"]] += 1
        else:
            authors.add(pair["author_id"])
        items.append((pair["id"], record["guid"], pair["family"], split, group[:300], record))
    writer.add(items)
    _store_assets(writer.release, shipped.assets.values(), stored=writer.stored_assets)
    return shipped.licences


ITEM_COLUMNS = ("release_id", "qa_pair_id", "guid", "family", "split", "group_key", "content_hash", "record")


class _ItemWriter:
    """Writes the snapshot's items, a chunk at a time: ``add`` a chunk's items ``(pair id,
    guid, family, split, group key, record)``, ``start`` writing them once the next chunk's
    rows are read. On PostgreSQL a chunk is one ``COPY`` in text form, run on the same
    connection (so in the snapshot's transaction) from a second thread while the next
    chunk is built in Python, as PostgreSQL spends about as long parsing the records into
    ``jsonb`` and checking their foreign keys as Python spends making them; at most one
    chunk waits and one is in flight, so memory stays flat. Elsewhere ``add`` writes at once.
    """

    def __init__(self, release):
        self.release = release
        self.postgresql = connection.vendor == "postgresql"
        self.pending = None  # the COPY text of the chunk added last, not started yet
        self.copying = None  # the thread of the COPY in flight, and its error
        self.error = None
        self.deferred = None  # the items' foreign keys PostgreSQL checks at the commit
        self.stored_assets = {}  # see _store_assets

    def __enter__(self):
        if self.postgresql:
            with connection.cursor() as cursor:
                # The items' foreign keys are checked in each COPY rather than all at the
                # commit, which waits for them: the COPY runs while Python works.
                cursor.execute(
                    "SELECT string_agg(quote_ident(conname), ', ') FROM pg_constraint"
                    " WHERE conrelid = %s::regclass AND contype = 'f' AND condeferred",
                    [ReleaseItem._meta.db_table],
                )
                (self.deferred,) = cursor.fetchone()
            self._constraints("IMMEDIATE")
        return self

    def __exit__(self, kind, error, traceback):
        if error is None:
            self.start()
        self.wait(raising=error is None)
        if error is None:
            self._constraints("DEFERRED")

    def _constraints(self, mode):
        if self.deferred:
            with connection.cursor() as cursor:
                cursor.execute(f"SET CONSTRAINTS {self.deferred} {mode}")

    def add(self, items):
        if not self.postgresql:
            ReleaseItem.objects.bulk_create(
                ReleaseItem(release=self.release, qa_pair_id=pair_id, guid=guid, family=family, split=split,
                            group_key=group, content_hash=content_hash(record), record=record)
                for pair_id, guid, family, split, group, record in items
            )  # fmt: skip
            return
        # A record's JSON holds no tab, newline or return (JSON escapes them), so only its
        # backslashes need escaping.
        lines = []
        release_id = str(self.release.pk)
        for pair_id, guid, family, split, group, record in items:
            text = record_text(record)
            digest = hashlib.sha256(text.encode()).hexdigest()
            fields = (release_id, str(pair_id), guid, family, split, group.translate(COPY_ESCAPES), digest)
            lines.append("\t".join(fields) + "\t" + text.replace("\\", "\\\\") + "\n")
        self.wait()  # the chunk before: its COPY holds the connection
        self.pending = "".join(lines)

    def start(self):
        """Starts the COPY of the chunk added last, if any, in its own thread."""
        if self.pending is None:
            return
        text, self.pending = self.pending, None
        raw = connection.connection  # psycopg2's connection: safe to share between threads
        table = connection.ops.quote_name(ReleaseItem._meta.db_table)
        sql = f"COPY {table} ({', '.join(ITEM_COLUMNS)}) FROM STDIN"

        def copy():
            try:
                with raw.cursor() as cursor:
                    cursor.copy_expert(sql, io.StringIO(text), size=COPY_BLOCK)
            except Exception as error:  # raised again in the snapshot's thread (wait)
                self.error = error

        self.copying = threading.Thread(target=copy, name="snapshot-copy", daemon=True)
        self.copying.start()

    def wait(self, *, raising=True):
        """Waits for the COPY in flight; raises its error (as Django's) if it failed."""
        if self.copying is not None:
            self.copying.join()
            self.copying = None
        error, self.error = self.error, None
        if error is not None and raising:
            with connection.wrap_database_errors:
                raise error


# Text handed to each COPY message.
COPY_BLOCK = 1 << 20


# What COPY's text form escapes in a field.
COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _store_assets(release, assets, stored=None):
    """One chunk's shipped assets: new ones inserted, and an asset a WebQA record uses
    marked as a WebQA image even when an earlier chunk inserted it unmarked. ``stored``
    (``{sha256: webqa image}`` of rows this snapshot wrote, bounded) spares the rows of
    pool sources that every chunk ships again."""
    if stored is not None:
        assets = [fields for fields in assets if stored.get(fields["sha256"]) not in (True, fields["webqa_image"])]
        if len(stored) + len(assets) > STORED_ASSETS_KEPT:
            stored.clear()
        stored.update((fields["sha256"], fields["webqa_image"]) for fields in assets)
    if not assets:
        return
    assets = sorted(assets, key=lambda fields: fields["sha256"])  # rows locked in one order
    if connection.vendor != "postgresql":
        rows = [ReleaseAsset(release=release, **fields) for fields in assets]
        ReleaseAsset.objects.bulk_create(
            [row for row in rows if row.webqa_image],
            update_conflicts=True, unique_fields=["release", "sha256"], update_fields=["webqa_image"],
        )  # fmt: skip
        ReleaseAsset.objects.bulk_create([row for row in rows if not row.webqa_image], ignore_conflicts=True)
        return
    table = connection.ops.quote_name(ReleaseAsset._meta.db_table)
    columns = ("asset_id", "sha256", "format", "storage_key", "webqa_image")
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} AS shipped (release_id, {', '.join(columns)})"
            f" SELECT %s, * FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::boolean[])"
            f" ON CONFLICT (release_id, sha256) DO UPDATE SET webqa_image = true"
            f" WHERE excluded.webqa_image AND NOT shipped.webqa_image",
            [release.pk, *([fields[column] for fields in assets] for column in columns)],
        )


def _number_webqa_images(release):
    """WebQA images are numbered 0, 1, 2, … in hash order: image_id = 30,000,000 + n."""
    table = connection.ops.quote_name(ReleaseAsset._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET image_index = numbered.n FROM ("
            f"  SELECT id, row_number() OVER (ORDER BY sha256) - 1 AS n FROM {table}"
            f"  WHERE release_id = %s AND webqa_image"
            f") AS numbered WHERE {table}.id = numbered.id",
            [release.pk],
        )


# --- Records ------------------------------------------------------------------------------


def _time(value):
    return value.isoformat() if value else None


class _Source:
    """A screen, pool image or snippet as records hold it (``kept``: screened, without
    storage details), whether its asset is cleared, the asset row it ships, and what
    screening it changed (counted again for every record that holds it)."""

    __slots__ = ("kept", "cleared", "asset", "licence", "counts")

    def __init__(self, kept, *, asset=None, cleared=False, licence=""):
        self.kept, self.asset, self.cleared, self.licence = kept, asset, cleared, licence
        self.counts = {}


def _with_asset(kept, asset):
    """``_Source`` of a screen or image from its fields and its asset's (``ASSET_FIELDS``)."""
    asset_id, sha, fmt, storage_key, review_state, width, height = asset
    if sha is None:
        return _Source(kept)
    kept.update(sha256=sha, format=fmt, width=width, height=height)
    shipped = {"sha256": sha, "format": fmt, "storage_key": storage_key, "asset_id": asset_id}
    return _Source(kept, asset=shipped, cleared=review_state == CLEARED, licence=kept.get("licence") or "")


def _screen_sources(ids):
    for id_, url, title, captured_at, site, *asset in (
        Screen.objects.filter(id__in=ids).values_list(*SCREEN_FIELDS).iterator(chunk_size=2000)
    ):
        kept = {"id": id_, "url": url, "title": title, "captured_at": _time(captured_at), "site": site or host_of(url)}
        yield id_, _with_asset(kept, asset)


def _image_sources(ids):
    for id_, title, description, url, topic, licence, *asset in (
        ImageSource.objects.filter(id__in=ids).values_list(*IMAGE_FIELDS).iterator(chunk_size=2000)
    ):
        kept = {"id": id_, "title": title, "description": description, "url": url, "topic": topic,
                "licence": licence}  # fmt: skip
        yield id_, _with_asset(kept, asset)


def _snippet_sources(ids):
    for row in Snippet.objects.filter(id__in=ids).values_list(*SNIPPET_FIELDS).iterator(chunk_size=2000):
        yield row[0], _Source(dict(zip(SNIPPET_FIELDS, row, strict=True)))


class _Sources:
    """The pool sources records name, read by id a chunk at a time and screened once; a
    bounded cache per kind keeps those that recur (distractors) between chunks."""

    READERS = {"screen": _screen_sources, "image": _image_sources, "text": _snippet_sources}

    def __init__(self, keep_query_hosts):
        self.keep_query_hosts = keep_query_hosts
        self.found = {kind: {} for kind in self.READERS}

    def load(self, wanted):
        """Reads the sources of ``wanted`` (``{kind: ids}``) not in the cache yet."""
        for kind, ids in wanted.items():
            found = self.found[kind]
            missing = ids - found.keys()
            if not missing:
                continue
            if len(found) + len(missing) > SOURCE_CACHE_SIZE:
                found.clear()
                missing = ids
            for id_, source in self.READERS[kind](missing):
                source.counts = screen_source(kind, source.kept, keep_query_hosts=self.keep_query_hosts)
                found[id_] = source

    def get(self, kind, id_):
        return self.found[kind][id_]


class Shipped:
    """The assets and licences a chunk's records reference, for the release's asset rows."""

    def __init__(self):
        self.assets = {}
        self.licences = set()

    def add(self, source, *, webqa_image=False):
        entry = self.assets.setdefault(source.asset["sha256"], {**source.asset, "webqa_image": False})
        entry["webqa_image"] = entry["webqa_image"] or webqa_image
        if source.licence:
            self.licences.add(source.licence)


class _InPairOrder:
    """Rows of one query ordered by QA pair id (their first column), read as the pairs
    go by: ``upto(last)`` gives ``{pair id: [row, ...]}`` of the pairs up to ``last``."""

    def __init__(self, rows):
        self.rows = iter(rows)
        self.next = next(self.rows, None)

    def upto(self, last):
        found = defaultdict(list)
        while self.next is not None and self.next[0] <= last:
            found[self.next[0]].append(self.next)
            self.next = next(self.rows, None)
        return found


class _ChunkRows:
    """What a chunk's records are made of, beyond the pairs' own fields."""

    def __init__(self, evidence, distractors, references, disagreeing, steps):
        self.evidence, self.distractors, self.references = evidence, distractors, references
        self.disagreeing, self.steps = disagreeing, steps


LOW_AGREEMENT = "test_references_disagree"


def _chunks(pairs, size):
    """``(pairs, _ChunkRows)`` a chunk of ``size`` selected pairs at a time, in id order.

    Each kind of row is one query over all selected pairs, in pair order, read as the
    chunks go by (a server-side cursor on PostgreSQL); only a chunk's trace steps are
    read for it, as traces do not follow pair order."""
    stream = 2000
    ordered = pairs.order_by("id")
    evidence = Evidence.objects.filter(qa_pair__in=pairs).order_by("qa_pair_id", "position")
    distractors = Distractor.objects.filter(qa_pair__in=pairs).order_by("qa_pair_id", "kind", "rank")
    # A test pair whose reference answers agree less than REFERENCE_MIN_AGREEMENT (see
    # ReferenceSet.agreement) is left out, as WebQA's were; a set not complete yet keeps it.
    least = getattr(settings, "REFERENCE_MIN_AGREEMENT", 0.6)
    disagreeing = ReferenceSet.objects.filter(qa_pair__in=pairs, agreement__lt=least).order_by("qa_pair_id")
    references = ReferenceAnswer.objects.filter(reference_set__qa_pair__in=pairs).order_by(
        "reference_set__qa_pair_id", "created_at", "id"
    )
    evidence = _InPairOrder(evidence.values_list(*EVIDENCE_FIELDS).iterator(chunk_size=stream))
    distractors = _InPairOrder(distractors.values_list(*DISTRACTOR_FIELDS).iterator(chunk_size=stream))
    disagreeing = _InPairOrder(disagreeing.values_list("qa_pair_id").iterator(chunk_size=stream))
    fields = ("reference_set__qa_pair_id", "reference_set__keyword_answer", "answer")
    references = _InPairOrder(references.values_list(*fields).iterator(chunk_size=stream))
    rows = ordered.values(*PAIR_FIELDS).iterator(chunk_size=min(size, stream))
    while chunk := list(islice(rows, size)):
        last = chunk[-1]["id"]
        steps = defaultdict(list)
        trace_ids = {pair["trace_id"] for pair in chunk if pair["trace_id"]}
        if trace_ids:
            step_rows = TraceStep.objects.filter(trace_id__in=trace_ids).order_by("trace_id", "position")
            for row in step_rows.values(*STEP_FIELDS):
                steps[row["trace_id"]].append(row)
        yield (
            chunk,
            _ChunkRows(
                evidence.upto(last), distractors.upto(last), references.upto(last), disagreeing.upto(last), steps
            ),
        )


def _wanted(rows):
    """``{kind: ids}`` of the pool sources a chunk's records hold."""
    wanted = {kind: set() for kind in _Sources.READERS}
    for by_pair in (rows.evidence, rows.distractors):
        for pair_rows in by_pair.values():
            for row in pair_rows:
                screen_id, image_id, snippet_id = row[-3:]
                _want(wanted, screen_id, image_id, snippet_id)
    for step_rows in rows.steps.values():
        wanted["screen"].update(row["screen_id"] for row in step_rows if row["screen_id"] is not None)
    return wanted


def _records(chunk, rows, sources, shipped, graphs):
    """``(pair, record, [source counts])`` for each pair of the chunk, or ``(pair, reason,
    [])`` when it is left out; the assets of the records are added to ``shipped``. Its
    pool sources are loaded (``_wanted``)."""
    for pair in chunk:
        references = rows.references.get(pair["id"])
        if references:
            references = (references[0][1], [answer for _pair, _keyword, answer in references])
        held = _Held(sources)
        pair_rows = (rows.evidence.get(pair["id"], ()), rows.distractors.get(pair["id"], ()))
        record = _record(pair, *pair_rows, rows.steps.get(pair["trace_id"], ()), references, held, graphs)
        if isinstance(record, str):
            yield pair, record, []
            continue
        for source, webqa_image in held.assets:
            shipped.add(source, webqa_image=webqa_image)
        yield pair, record, held.counts


def _want(wanted, screen_id, image_id, snippet_id):
    if screen_id is not None:
        wanted["screen"].add(screen_id)
    if image_id is not None:
        wanted["image"].add(image_id)
    if snippet_id is not None:
        wanted["text"].add(snippet_id)


class _Held:
    """The pool sources one record holds: their assets, and their screening counts."""

    def __init__(self, sources):
        self.sources = sources
        self.assets = []
        self.counts = []

    def __call__(self, kind, id_, *, webqa_image=False):
        source = self.sources.get(kind, id_)
        if source.counts:
            self.counts.append(source.counts)
        if source.asset is not None:
            self.assets.append((source, webqa_image))
        return source.kept

    def cleared(self, kind, id_):
        return id_ is not None and self.sources.get(kind, id_).cleared


def _record(pair, evidence_rows, distractor_rows, step_rows, references, held, graphs):
    webqa = pair["family"] == "webqa"
    evidence = []
    for _pair, _position, note, fact, url, step, screen_id, image_id, snippet_id in evidence_rows:
        if screen_id is not None:
            if not held.cleared("screen", screen_id):
                return "uncleared_evidence"
            piece = {"type": "screen", "screen": held("screen", screen_id), "step": step, "note": note}
        elif image_id is not None:
            if not held.cleared("image", image_id):
                return "uncleared_evidence"
            piece = {"type": "image", "image": held("image", image_id, webqa_image=webqa), "note": note}
        elif snippet_id is not None:
            piece = {"type": "snippet", "snippet": held("text", snippet_id), "note": note}
        else:
            piece = {"type": "fact", "fact": fact, "url": url, "note": note}
        evidence.append(piece)
    if not evidence:
        return "no_evidence"
    negatives = {"image": [], "text": [], "screen": []}
    for _pair, kind, _rank, method, screen_id, image_id, snippet_id in distractor_rows:
        if kind == "text":
            negatives["text"].append({**held("text", snippet_id), "method": method})
        elif kind in ("screen", "image"):
            id_ = screen_id if kind == "screen" else image_id
            if held.cleared(kind, id_):
                negatives[kind].append({**held(kind, id_, webqa_image=webqa), "method": method})
    steps = []
    for row in step_rows:
        screen_id = row["screen_id"]
        steps.append(
            {
                "position": row["position"], "action": row["action"], "target": row["target"], "url": row["url"],
                "title": row["title"], "captured_at": _time(row["captured_at"]), "clickables": row["clickables"] or [],
                "viewport": [row["viewport_width"], row["viewport_height"]],
                "device_pixel_ratio": row["device_pixel_ratio"], "scroll": [row["scroll_x"], row["scroll_y"]],
                "screen": held("screen", screen_id) if held.cleared("screen", screen_id) else None,
            }
        )  # fmt: skip
    record = {
        "guid": guid_of(pair["id"]),
        "id": pair["id"],
        "family": pair["family"],
        "kind": pair["split_kind"] or _kind_from(evidence, pair),
        "category": pair["category__slug"] or "",
        "topic": pair["image_group__label"] or pair["assignment__task__payload__topic"] or pair["category__slug"] or "",
        "question": pair["question"],
        "answer": pair["answer"],
        "keyword_answer": pair["keyword_answer"] if pair["keyword_answer"].strip() or not references else references[0],
        "answer_type": pair["answer_type"],
        "reasoning_types": list(pair["reasoning_types"] or []),
        "question_category": pair["question_category"],
        "trace": pair["trace_id"],
        "source": "generated" if pair["candidate__generator"] else "human",
        "image_group": pair["image_group_id"],
        "evidence": evidence,
        "steps": steps,
        "negatives": negatives,
    }
    if references and references[1]:  # only then, so a pair without them hashes as before
        record["reference_answers"] = references[1]
    if pair["answer_variants"]:  # likewise: validators' other ways to write the answer
        record["answer_variants"] = pair["answer_variants"]
    if pair["candidate__generator"]:
        record["generator"] = {
            "name": pair["candidate__generator"], "version": pair["candidate__generator_version"],
            "prompt_version": pair["candidate__prompt_version"], "run": pair["candidate__run_id"],
        }  # fmt: skip
    if record["family"] == "webvln":
        episode = _episode(pair, graphs)
        if isinstance(episode, str):
            return episode
        record["episode"] = episode
    return _check_family(record) or record


def generated_counts(by_run):
    """Generated pairs in the release per run, and each site's sample in those runs."""
    from generation.models import SiteSample

    samples = []
    rows = SiteSample.objects.filter(run_id__in=by_run).select_related("site", "run").order_by("run_id", "site__host")
    for sample in rows:
        samples.append(
            {"run": sample.run_id, "generator": sample.run.generator, "site": sample.site.host,
             "candidates": sample.candidates, "sample": sample.size, "accepted": sample.accepted,
             "rejected": sample.rejected, "decision": sample.state}
        )  # fmt: skip
    return {
        "pairs": sum(by_run.values()),
        "runs": {str(run): n for run, n in sorted(by_run.items())},
        "samples": samples,
    }


def _episode(pair, graphs):
    """A WebVLN record's episode on its site's frozen graph, or why it has none."""
    if pair["episode__site__host"] is None:
        return "webvln_without_episode"
    graph = graphs.get(pair["episode__site__host"])
    path = graph.episode_path(pair["episode__target_url"]) if graph is not None else None
    if path is None:
        return "episode_target_unreachable"
    return {
        "site": graph.host,
        "website": graph.site_id,
        "path": [graph.url_id(number) for number in path],
        "urls": [graph.pages[number]["url"] for number in path],
        "description": pair["episode__description"],
    }


def _kind_from(evidence, pair):
    types = {piece["type"] for piece in evidence}
    if pair["trace_id"]:
        return "trace"
    if "image" in types:
        return "image"
    if types <= {"snippet", "fact"}:
        return "text"
    return "single_screen" if len(evidence) == 1 else "multi_screen"


def webqa_category(record):
    """The record's WebQA ``Qcate``: ``text`` for text questions, the image class otherwise."""
    if record["kind"] == "text":
        return "text"
    return record["question_category"] if record["question_category"] in WEBQA_IMAGE_CATEGORIES else "Others"


WEBQA_IMAGE_CATEGORIES = ("YesNo", "Others", "choose", "number", "color", "shape")


def _check_family(record):
    """Why a record cannot be written in its family's format, or None."""
    if record["family"] == "webqa":
        types = {piece["type"] for piece in record["evidence"]}
        images = sum(piece["type"] == "image" for piece in record["evidence"])
        if record["kind"] == "image" and not (types == {"image"} and 1 <= images <= 2):
            return "evidence_does_not_fit_webqa"
        if record["kind"] == "text" and not (types <= {"snippet", "fact"}):
            return "evidence_does_not_fit_webqa"
        if record["kind"] not in ("image", "text"):
            return "evidence_does_not_fit_webqa"
        if not re.sub(r"\W", "", record["keyword_answer"]):
            return "missing_keyword_answer"
        if not keyword_fits_domain(webqa_category(record), record["keyword_answer"]):
            return "keyword_outside_answer_domain"
    return None


def _group_key(pair, record):
    """Items with the same key stay in one split: one trace's screens, one WebVLN episode,
    one six-image group, one screenshot, one pool image or snippet. (WebVLN's websites
    are split as the release's setting says: ``splits.SplitPlan``.)"""
    if pair["trace_id"]:
        return f"trace:{pair['trace_id']}"
    if record["family"] == "webvln":
        return f"episode:{pair['id']}"
    if pair["image_group_id"]:
        return f"image-group:{pair['image_group_id']}"
    first = record["evidence"][0]
    if first["type"] == "screen":
        return "screen:" + first["screen"]["sha256"]
    if first["type"] == "image":
        return f"image:{first['image']['id']}"
    if first["type"] == "snippet":
        return f"snippet:{first['snippet']['id']}"
    return f"pair:{pair['id']}"


def draft_records(pairs):
    """``(record, group key)`` of each of ``pairs``, with only what ``SplitPlan.split_of``
    reads, for choosing test items before a release is built. The key is the snapshot's
    (``_group_key``), from the pair's first piece of evidence."""
    first = {}
    evidence = Evidence.objects.filter(qa_pair__in=pairs).order_by("qa_pair_id", "position")
    fields = ("qa_pair_id", "screen__asset__sha256", "image_id", "snippet_id")
    for pair_id, screen, image, snippet in evidence.values_list(*fields).iterator(chunk_size=5000):
        if pair_id not in first:
            first[pair_id] = (
                {"type": "screen", "screen": {"sha256": screen}} if screen is not None
                else {"type": "image", "image": {"id": image}} if image is not None
                else {"type": "snippet", "snippet": {"id": snippet}} if snippet is not None
                else {"type": "fact"}
            )  # fmt: skip
    fields = ("id", "family", "trace_id", "image_group_id", "question_category")
    rows = pairs.annotate(keyword=keyword_answer()).order_by("id").values(*fields, "keyword")
    for pair in rows.iterator(chunk_size=5000):
        if pair["id"] not in first:
            continue  # no evidence: the snapshot leaves it out
        record = {"id": pair["id"], "family": pair["family"], "image_group": pair["image_group_id"],
                  "question_category": pair["question_category"], "keyword_answer": pair["keyword"],
                  "evidence": [first[pair["id"]]]}  # fmt: skip
        yield record, _group_key(pair, record)


def keyword_answer():
    """A pair's keyword answer as its record has it: its own, else its reference set's."""
    return Coalesce(NullIf(Trim("keyword_answer"), Value("")), F("reference_set__keyword_answer"), Value(""))


def answer_counts(pairs, categories):
    """``{(category, keyword): count}`` of closed-class answers, normalised, counted in SQL."""
    rows = (
        pairs.filter(family="webqa", question_category__in=categories)
        .annotate(keyword=Lower(Trim(keyword_answer())))
        .values("question_category", "keyword")
        .annotate(n=Count("id"))
    )
    return {(row["question_category"], row["keyword"]): row["n"] for row in rows}
