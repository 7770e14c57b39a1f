"""Release build benchmark: wall time and peak memory of building a release of 10k, 50k
and 100k QA pairs.

    .venv/bin/python bench/release.py [--sizes 10000,50000,100000] [--scale 0.1] [--chunk 1000]

Creates a fresh database (trailmark_bench_release, dropped first if it exists) and a
temporary media folder, stores a pool of real PNG files (screens and pool images, all
cleared), and fills the tables in bulk with SQL: WebQuest single- and multi-screen pairs
(70%) and WebQA image (20%, with 5 image and 5 text distractors each) and text pairs
(10%) over that pool, all accepted. For each size, in increasing order, it adds pairs up
to the size and builds a release of all of them in a fresh child process (so each peak
RSS is that build's own): snapshot, records, WebQA files, image copies, manifest,
publish. It prints the time of each stage, the total, and the child's peak RSS; memory is
flat when the largest build's peak stays within 20% of the smallest's. After each build it
also times the JSON Lines records alone (the build writes them in the same pass as
WebQA's files), read from the snapshot and stored under a scratch prefix.

``--scale 0.1`` multiplies every size (for a quick run). Images come from a pool of
``--screens`` + ``--images`` files, so the build copies that many files, not one per pair.
"""

import argparse
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DB_NAME = "trailmark_bench_release"
os.environ.update(
    {
        "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", f"postgres://trailmark@127.0.0.1:5432/{DB_NAME}"),
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13"),
        "SECRET_KEY": "bench-secret-key-" + "r" * 40,
        "DEBUG": "0",  # DEBUG keeps every query in memory
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "LOG_LEVEL": "CRITICAL",
    }
)
os.environ.setdefault("MEDIA_ROOT", str(Path(tempfile.gettempdir()) / "trailmark-bench-release-media"))

import bootstrap  # noqa: E402,F401

COLORS = ["white", "red", "blue", "green", "yellow", "black", "pink", "orange", "purple", "brown"]
SHAPES = ["round", "square", "oval", "triangle", "rectangle", "star"]


def psql(sql):
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "trailmark", "-d", "postgres", "-qc", sql], check=True)


def setup(args):
    psql(f"DROP DATABASE IF EXISTS {DB_NAME}")
    psql(f"CREATE DATABASE {DB_NAME}")
    shutil.rmtree(os.environ["MEDIA_ROOT"], ignore_errors=True)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from accounts import services as accounts

    accounts.create_user(username="bench-admin", password="bench-password-123", role="admin")
    store_pool(args.screens + args.images)
    from django.db import connection

    with connection.cursor() as cursor:
        run(cursor, "screens", SCREENS, pool=args.screens)
        run(cursor, "pool images", IMAGES, pool=args.screens, images=args.images)
        run(cursor, "snippets", SNIPPETS, snippets=args.snippets)


def store_pool(count):
    """Real PNG files in storage, with their asset rows (cleared)."""
    import hashlib

    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage
    from PIL import Image

    from assets.models import Asset

    started = time.perf_counter()
    rows = []
    for n in range(1, count + 1):
        image = Image.new("RGB", (320, 200), (n % 256, (n // 256) % 256, 120))
        buffer = io.BytesIO()
        image.save(buffer, "PNG")
        data = buffer.getvalue()
        sha = hashlib.sha256(data).hexdigest()
        key = default_storage.save(f"assets/{sha[:2]}/{sha}.png", ContentFile(data))
        rows.append(
            Asset(id=n, sha256=sha, format="png", width=320, height=200, byte_size=len(data), phash="0" * 16,
                  storage_key=key, thumbnail_key=key, review_state="cleared")
        )  # fmt: skip
    Asset.objects.bulk_create(rows, batch_size=1000)
    print(f"  {'assets (files + rows)':<28} {count:>10,} rows {time.perf_counter() - started:>7.1f} s", flush=True)


def run(cursor, label, sql, **params):
    started = time.perf_counter()
    cursor.execute(sql, params)
    print(f"  {label:<28} {cursor.rowcount:>10,} rows {time.perf_counter() - started:>7.1f} s", flush=True)


SCREENS = """
INSERT INTO corpus_screen (id, url, title, viewport_width, viewport_height, captured_at, asset_id, author_id)
SELECT a, 'https://shop' || (a %% 50) || '.example.com/item/' || a, 'Item ' || a, 1280, 800, now(), a,
       (SELECT id FROM accounts_user ORDER BY id LIMIT 1)
FROM generate_series(1, %(pool)s) a
"""

IMAGES = """
INSERT INTO corpus_imagesource (id, asset_id, title, description, source_url, topic, licence, created_at)
SELECT i, %(pool)s + i, 'Picture ' || i, 'A picture of thing ' || i || ' with a description.',
       'https://commons.example.org/wiki/File:' || i || '.png', 'topic ' || (i %% 40), 'CC BY-SA 4.0', now()
FROM generate_series(1, %(images)s) i
"""

SNIPPETS = """
INSERT INTO corpus_snippet (id, digest, title, text, url, topic, created_at)
SELECT s, md5(s::text) || md5((s + 1)::text), 'Snippet ' || s,
       'Sentence one about subject ' || s || '. Sentence two gives a number, ' || (s * 7) %% 1000 || '.',
       'https://wiki.example.org/' || s, '', now()
FROM generate_series(1, %(snippets)s) s
"""

PAIRS = """
INSERT INTO corpus_qapair (id, family, split_kind, question, answer, answer_type, keyword_answer, reasoning_types,
                               question_category, question_category_manual, state, state_reason, created_at,
                               author_id, category_id)
SELECT i, CASE WHEN i %% 10 < 7 THEN 'webquest' ELSE 'webqa' END,
       CASE WHEN i %% 10 < 6 THEN 'single_screen' WHEN i %% 10 = 6 THEN 'multi_screen'
            WHEN i %% 10 < 9 THEN 'image' ELSE 'text' END,
       'What is the total price of item ' || i || ' and its delivery?', 'The answer to question ' || i || ' is here.',
       (ARRAY['text', 'integer', 'decimal'])[1 + i %% 3],
       CASE WHEN i %% 10 IN (7, 8) THEN
            CASE (i / 10) %% 5 WHEN 0 THEN (%(colors)s::text[])[1 + (i / 50) %% 10]
                               WHEN 1 THEN (%(shapes)s::text[])[1 + (i / 50) %% 6]
                               WHEN 2 THEN ((i / 50) %% 12)::text WHEN 3 THEN 'yes' ELSE 'thing ' || i END
            ELSE 'keyword ' || i END,
       '["arithmetic", "comparison"]'::jsonb,
       CASE WHEN i %% 10 IN (7, 8) THEN (ARRAY['color', 'shape', 'number', 'YesNo', 'Others'])[1 + (i / 10) %% 5]
            WHEN i %% 10 = 9 THEN 'text' ELSE '' END,
       false, 'accepted', '', now(), (SELECT id FROM accounts_user ORDER BY id LIMIT 1),
       (SELECT id FROM corpus_category ORDER BY id LIMIT 1)
FROM generate_series(%(start)s, %(stop)s) i
"""

EVIDENCE = """
INSERT INTO corpus_evidence (position, note, fact, url, qa_pair_id, screen_id, image_id, snippet_id)
SELECT e, 'part ' || e, '', '', q.id,
       CASE WHEN q.split_kind IN ('single_screen', 'multi_screen') THEN 1 + (q.id * 3 + e) %% %(pool)s END,
       CASE WHEN q.split_kind = 'image' THEN 1 + (q.id * 7 + e) %% %(images)s END,
       CASE WHEN q.split_kind = 'text' THEN 1 + (q.id * 11 + e) %% %(snippets)s END
FROM corpus_qapair q
CROSS JOIN LATERAL generate_series(0, CASE q.split_kind WHEN 'single_screen' THEN 0 WHEN 'multi_screen' THEN 2
                                                        WHEN 'image' THEN q.id %% 2 ELSE 1 END) e
WHERE q.id BETWEEN %(start)s AND %(stop)s
"""

DISTRACTORS = """
INSERT INTO mining_distractor (qa_pair_id, kind, image_id, snippet_id, method, score, rank, created_at)
SELECT q.id, k.kind,
       CASE WHEN k.kind = 'image' THEN 1 + (q.id * 7 + 2 + r) %% %(images)s END,
       CASE WHEN k.kind = 'text' THEN 1 + (q.id * 13 + 5 + r) %% %(snippets)s END,
       'bench', 1.0 / r, r, now()
FROM corpus_qapair q CROSS JOIN (VALUES ('image'), ('text')) k(kind) CROSS JOIN generate_series(1, 5) r
WHERE q.family = 'webqa' AND q.id BETWEEN %(start)s AND %(stop)s
"""


def add_pairs(args, start, stop):
    from django.db import connection

    params = {"start": start, "stop": stop, "pool": args.screens, "images": args.images, "snippets": args.snippets}
    with connection.cursor() as cursor:
        run(cursor, "QA pairs", PAIRS, colors=COLORS, shapes=SHAPES, **params)
        run(cursor, "evidence", EVIDENCE, **params)
        run(cursor, "distractors", DISTRACTORS, **params)
        cursor.execute("ANALYZE")


def build_in_this_process(size, chunk):
    """The child: builds one release of every pair and prints its figures as JSON."""
    os.environ["RELEASE_CHUNK_SIZE"] = str(chunk)
    import django

    django.setup()
    from accounts.models import User
    from releases import build, services
    from releases.models import Release
    from releases.snapshot import take_snapshot

    Release.objects.filter(name=f"bench-{size}").delete()  # a repeated run builds afresh
    build.delete_prefix(f"releases/bench-{size}")
    release = services.create_release(
        name=f"bench-{size}", version="1.0.0", families=["webquest", "webqa"], created_by=User.objects.first()
    )
    Release.objects.filter(pk=release.pk).update(state="building", attempt=1)
    stages = {}
    current = {"stage": None, "at": time.perf_counter()}

    def progress(*, stage, done=0, total=None, persist=True):
        if stage != current["stage"]:
            now = time.perf_counter()
            if current["stage"]:
                stages[current["stage"]] = stages.get(current["stage"], 0) + now - current["at"]
            current.update(stage=stage, at=now)

    started = time.perf_counter()
    counts, _ = take_snapshot(release=release, progress=progress)
    Release.objects.filter(pk=release.pk).update(counts=counts)
    release.refresh_from_db()
    prefix = f"releases/{release.name}/{release.version}/build-1"
    built = build.write_release(release=release, prefix=prefix, progress=progress)
    progress(stage="publish")
    build._publish(release_id=release.pk, attempt=1, prefix=prefix, built=built)
    progress(stage="done")
    total = time.perf_counter() - started
    records_alone = time_records_alone(release)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"size": size, "items": built["counts"]["items"], "files": built["file_count"],
                      "bytes": built["manifest"]["total_size"], "seconds": total, "stages": stages,
                      "records_alone": records_alone, "peak_rss_mb": peak_mb}))  # fmt: skip


def time_records_alone(release):
    """The JSON Lines records on their own (the build writes them in one pass with WebQA's
    files): read from the snapshot, written and stored under a scratch prefix."""
    from releases import build
    from releases.formats.records import RecordsWriter
    from releases.storage import ReleaseFiles, delete_prefix

    prefix = f"releases/{release.name}/{release.version}/records-alone"
    started = time.perf_counter()
    records = RecordsWriter(ReleaseFiles(prefix))
    build.write_items(release=release, writers=[records], progress=build.no_progress)
    records.finish()
    seconds = time.perf_counter() - started
    delete_prefix(prefix)
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000,100000")
    parser.add_argument("--scale", type=float, default=1.0, help="Multiply every size, e.g. 0.1 for a quick run.")
    parser.add_argument("--chunk", type=int, default=1000, help="RELEASE_CHUNK_SIZE for the builds.")
    parser.add_argument("--screens", type=int, default=1000)
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--snippets", type=int, default=20000)
    parser.add_argument("--build-only", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        build_in_this_process(args.build_only, args.chunk)
        return
    sizes = sorted(int(int(size) * args.scale) for size in args.sizes.split(","))
    print(f"Setting up {DB_NAME} (media in {os.environ['MEDIA_ROOT']})")
    setup(args)
    results, have = [], 0
    for size in sizes:
        print(f"\nAdding pairs {have + 1:,}–{size:,}")
        add_pairs(args, have + 1, size)
        have = size
        child = subprocess.run(
            [sys.executable, __file__, "--build-only", str(size), "--chunk", str(args.chunk)],
            capture_output=True, text=True, env=os.environ, check=False,
        )  # fmt: skip
        if child.returncode:
            print(child.stdout, child.stderr)
            raise SystemExit(f"The build of {size} pairs failed.")
        result = json.loads(child.stdout.strip().splitlines()[-1])
        results.append(result)
        stages = ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in result["stages"].items())
        print(f"Built {result['items']:,} pairs: {result['seconds']:.1f} s, peak RSS {result['peak_rss_mb']:.0f} MB, "
              f"{result['files']:,} files, {result['bytes'] / 1e6:.0f} MB ({stages}; "
              f"records alone {result['records_alone']:.1f} s)")  # fmt: skip
    print(
        "\n| QA pairs | build (s) | snapshot (s) | records + WebQA (s) | images (s) | records alone (s) | peak RSS (MB) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for result in results:
        stages = result["stages"]
        print(f"| {result['items']:,} | {result['seconds']:.1f} | {stages.get('snapshot', 0):.1f} | "
              f"{stages.get('records', 0):.1f} | {stages.get('images', 0):.1f} | {result['records_alone']:.1f} | "
              f"{result['peak_rss_mb']:.0f} |")  # fmt: skip
    if len(results) > 1:
        growth = results[-1]["peak_rss_mb"] / results[0]["peak_rss_mb"] - 1
        print(
            f"\nPeak RSS grew {growth:+.0%} from {results[0]['items']:,} to {results[-1]['items']:,} pairs (target: ≤ +20%)."
        )


if __name__ == "__main__":
    main()
