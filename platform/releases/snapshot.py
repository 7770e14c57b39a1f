"""Taking a release's snapshot: the QA pairs its definition selects, frozen as records.

The whole snapshot is read in one transaction (REPEATABLE READ on PostgreSQL), so pairs
accepted, evidence added or distractors mined while it runs cannot leak in, and it is all
or nothing. Each pair becomes a ``ReleaseItem`` holding everything the formats write, with
the content hash of every image it references; builds read only those rows afterwards.
Only assets a reviewer cleared are referenced: a pair whose evidence is not cleared is left
out (and counted), other uncleared screens and distractors are dropped from its record.

It is the slow part of a build, so it writes in bulk: each chunk's items go to the database
in one ``COPY`` on PostgreSQL (each record serialised once, for its hash and its row), its
assets in one upsert, and the WebQA images are numbered by one ``UPDATE``.
"""

import csv
import hashlib
import io
import json
import re
from collections import Counter, defaultdict
from urllib.parse import urlsplit

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, Value
from django.db.models.functions import Coalesce, Lower, NullIf, Trim
from django.utils import timezone

from assets.models import Asset
from corpus.models import Evidence, QAPair, ReferenceAnswer, ReferenceSet, Site, TraceStep
from mining.models import Distractor

from .environments import freeze, rebuild_sites
from .formats.answers import keyword_fits_domain
from .models import Release, ReleaseAsset, ReleaseItem
from .splits import SplitPlan
from .textscreen import screen_record

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
STEP_FIELDS += ["viewport_width", "viewport_height", "device_pixel_ratio", "scroll_x", "scroll_y"]
STEP_FIELDS += [f"screen__{field}" for field in SCREEN_FIELDS]
EVIDENCE_FIELDS = ["qa_pair_id", "position", "note", "fact", "url", "step__position"]
EVIDENCE_FIELDS += [f"screen__{f}" for f in SCREEN_FIELDS] + [f"image__{f}" for f in IMAGE_FIELDS]
EVIDENCE_FIELDS += [f"snippet__{f}" for f in SNIPPET_FIELDS]
DISTRACTOR_FIELDS = ["qa_pair_id", "kind", "rank", "method", "score"]
DISTRACTOR_FIELDS += [f"screen__{f}" for f in SCREEN_FIELDS] + [f"image__{f}" for f in IMAGE_FIELDS]
DISTRACTOR_FIELDS += [f"snippet__{f}" for f in SNIPPET_FIELDS]


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


def take_snapshot(*, release, progress):
    """Freezes the pairs ``release`` selects into its items and assets; returns counts."""
    outermost = not connection.in_atomic_block
    if "webvln" in release.families:
        rebuild_sites(selected_pairs(release))  # the sites' graphs as their traces are now
    with transaction.atomic():
        if connection.vendor == "postgresql" and outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
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
        done, last = 0, 0
        while chunk := list(
            pairs.filter(id__gt=last).order_by("id").values(*PAIR_FIELDS)[: settings.RELEASE_CHUNK_SIZE]
        ):
            last = chunk[-1]["id"]
            items, shipped = [], Shipped()
            disagreeing = _disagreeing_references([pair["id"] for pair in chunk])
            for pair, record_or_reason in _records(chunk, shipped, graphs):
                if isinstance(record_or_reason, str):
                    excluded[record_or_reason] += 1
                    continue
                record, changed = screen_record(record_or_reason, keep_query_hosts=keep_query_hosts, in_place=True)
                screened.update(changed)
                group = _group_key(pair, record)
                split = plan.split_of(record=record, group_key=group)
                if split is None or (split == "test" and pair["id"] in disagreeing):
                    excluded[plan.left_out.get(pair["id"], LOW_AGREEMENT)] += 1
                    continue
                if record["source"] == "generated":
                    generated[pair["candidate__run_id"]] += 1
                else:
                    authors.add(pair["author_id"])
                items.append((pair["id"], record["guid"], pair["family"], split, group[:300], record))
            _store_items(release, items)
            _store_assets(release, shipped.assets.values())
            licences |= shipped.licences
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


ITEM_COLUMNS = ("release_id", "qa_pair_id", "guid", "family", "split", "group_key", "content_hash", "record")


def _store_items(release, items):
    """One chunk's items, ``(pair id, guid, family, split, group key, record)`` each."""
    if connection.vendor != "postgresql":
        ReleaseItem.objects.bulk_create(
            ReleaseItem(release=release, qa_pair_id=pair_id, guid=guid, family=family, split=split,
                        group_key=group, content_hash=content_hash(record), record=record)
            for pair_id, guid, family, split, group, record in items
        )  # fmt: skip
        return
    # COPY in CSV form, every field quoted (so "" is an empty string, not NULL).
    buffer = io.StringIO()
    rows = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for pair_id, guid, family, split, group, record in items:
        text = record_text(record)
        digest = hashlib.sha256(text.encode()).hexdigest()
        rows.writerow((release.pk, pair_id, guid, family, split, group, digest, text))
    buffer.seek(0)
    table = connection.ops.quote_name(ReleaseItem._meta.db_table)
    with connection.cursor() as cursor:
        cursor.copy_expert(f"COPY {table} ({', '.join(ITEM_COLUMNS)}) FROM STDIN WITH (FORMAT csv)", buffer)


def _store_assets(release, assets):
    """One chunk's shipped assets: new ones inserted, and an asset a WebQA record uses
    marked as a WebQA image even when an earlier chunk inserted it unmarked."""
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


def _asset(row, prefix):
    if row.get(f"{prefix}asset__sha256") is None:
        return None
    return {
        "id": row[f"{prefix}asset__id"],
        "sha256": row[f"{prefix}asset__sha256"],
        "format": row[f"{prefix}asset__format"],
        "storage_key": row[f"{prefix}asset__storage_key"],
        "cleared": row[f"{prefix}asset__review_state"] == CLEARED,
        "width": row[f"{prefix}asset__width"],
        "height": row[f"{prefix}asset__height"],
    }


def _time(value):
    return value.isoformat() if value else None


def _screen(row, prefix):
    if row.get(f"{prefix}id") is None:
        return None
    asset = _asset(row, prefix)
    return {
        "id": row[f"{prefix}id"],
        "url": row[f"{prefix}url"],
        "title": row[f"{prefix}title"],
        "captured_at": _time(row[f"{prefix}captured_at"]),
        "site": row[f"{prefix}site__host"] or host_of(row[f"{prefix}url"]),
        "asset": asset,
    }


def _image(row, prefix):
    if row.get(f"{prefix}id") is None:
        return None
    return {
        "id": row[f"{prefix}id"],
        "title": row[f"{prefix}title"],
        "description": row[f"{prefix}description"],
        "url": row[f"{prefix}source_url"],
        "topic": row[f"{prefix}topic"],
        "licence": row[f"{prefix}licence"],
        "asset": _asset(row, prefix),
    }


def _snippet(row, prefix):
    if row.get(f"{prefix}id") is None:
        return None
    return {key: row[f"{prefix}{key}"] for key in SNIPPET_FIELDS}


def _cleared(source):
    return source is not None and source["asset"] is not None and source["asset"]["cleared"]


class Shipped:
    """The assets and licences a chunk's records reference, for the release's asset rows."""

    def __init__(self):
        self.assets = {}
        self.licences = set()

    def keep(self, source, *, webqa_image=False):
        """The source as a record keeps it (the asset's hash and format, not storage
        details), noting its asset as shipped."""
        asset = source["asset"]
        entry = self.assets.setdefault(
            asset["sha256"],
            {"sha256": asset["sha256"], "format": asset["format"], "storage_key": asset["storage_key"],
             "asset_id": asset["id"], "webqa_image": False},
        )  # fmt: skip
        entry["webqa_image"] = entry["webqa_image"] or webqa_image
        if source.get("licence"):
            self.licences.add(source["licence"])
        kept = {key: value for key, value in source.items() if key != "asset"}
        kept.update(sha256=asset["sha256"], format=asset["format"], width=asset["width"], height=asset["height"])
        return kept


def _records(chunk, shipped, graphs):
    """``(pair, record)`` for each pair of the chunk, or ``(pair, reason)`` when it is left out."""
    ids = [pair["id"] for pair in chunk]
    evidence, distractors, steps = defaultdict(list), defaultdict(list), defaultdict(list)
    for row in Evidence.objects.filter(qa_pair_id__in=ids).order_by("qa_pair_id", "position").values(*EVIDENCE_FIELDS):
        evidence[row["qa_pair_id"]].append(row)
    for row in (
        Distractor.objects.filter(qa_pair_id__in=ids).order_by("qa_pair_id", "kind", "rank").values(*DISTRACTOR_FIELDS)
    ):
        distractors[row["qa_pair_id"]].append(row)
    trace_ids = {pair["trace_id"] for pair in chunk if pair["trace_id"]}
    for row in TraceStep.objects.filter(trace_id__in=trace_ids).order_by("trace_id", "position").values(*STEP_FIELDS):
        steps[row["trace_id"]].append(row)
    references = _references(ids)
    for pair in chunk:
        kept = Shipped()
        rows = (evidence[pair["id"]], distractors[pair["id"]], steps.get(pair["trace_id"], []))
        record = _record(pair, *rows, references.get(pair["id"]), kept, graphs)
        if not isinstance(record, str):
            for sha, fields in kept.assets.items():
                entry = shipped.assets.setdefault(sha, fields)
                entry["webqa_image"] = entry["webqa_image"] or fields["webqa_image"]
            shipped.licences |= kept.licences
        yield pair, record


LOW_AGREEMENT = "test_references_disagree"


def _disagreeing_references(ids):
    """The pairs among ``ids`` whose reference answers agree less than
    ``REFERENCE_MIN_AGREEMENT`` (default 0.6; see ``ReferenceSet.agreement``): as test
    items they are left out, as WebQA's were. A set not complete yet has no agreement
    and keeps its pair."""
    least = getattr(settings, "REFERENCE_MIN_AGREEMENT", 0.6)
    rows = ReferenceSet.objects.filter(qa_pair_id__in=ids, agreement__lt=least)
    return set(rows.values_list("qa_pair_id", flat=True))


def _references(ids):
    """``{pair id: (keyword answer, [sentence, ...])}`` of the pairs' reference sets, the
    sentences in the order they were written."""
    found = {}
    rows = (
        ReferenceAnswer.objects.filter(reference_set__qa_pair_id__in=ids)
        .order_by("reference_set__qa_pair_id", "created_at", "id")
        .values_list("reference_set__qa_pair_id", "reference_set__keyword_answer", "answer")
    )
    for pair_id, keyword, answer in rows:
        found.setdefault(pair_id, (keyword, []))[1].append(answer)
    return found


def _record(pair, evidence_rows, distractor_rows, step_rows, references, kept, graphs):
    webqa = pair["family"] == "webqa"
    evidence = []
    for row in evidence_rows:
        screen, image, snippet = _screen(row, "screen__"), _image(row, "image__"), _snippet(row, "snippet__")
        if (screen is not None or image is not None) and not _cleared(screen or image):
            return "uncleared_evidence"
        if screen is not None:
            piece = {"type": "screen", "screen": kept.keep(screen), "step": row["step__position"]}
        elif image is not None:
            piece = {"type": "image", "image": kept.keep(image, webqa_image=webqa)}
        elif snippet is not None:
            piece = {"type": "snippet", "snippet": snippet}
        else:
            piece = {"type": "fact", "fact": row["fact"], "url": row["url"]}
        evidence.append({**piece, "note": row["note"]})
    if not evidence:
        return "no_evidence"
    negatives = {"image": [], "text": [], "screen": []}
    for row in distractor_rows:
        source = {"screen": _screen(row, "screen__"), "image": _image(row, "image__")}.get(row["kind"])
        if row["kind"] == "text":
            negatives["text"].append({**_snippet(row, "snippet__"), "method": row["method"]})
        elif _cleared(source):
            negatives[row["kind"]].append({**kept.keep(source, webqa_image=webqa), "method": row["method"]})
    steps = []
    for row in step_rows:
        screen = _screen(row, "screen__")
        steps.append(
            {
                "position": row["position"], "action": row["action"], "target": row["target"], "url": row["url"],
                "title": row["title"], "captured_at": _time(row["captured_at"]), "clickables": row["clickables"] or [],
                "viewport": [row["viewport_width"], row["viewport_height"]],
                "device_pixel_ratio": row["device_pixel_ratio"], "scroll": [row["scroll_x"], row["scroll_y"]],
                "screen": kept.keep(screen) if _cleared(screen) else None,
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
