"""Release build benchmark: wall time (per stage) and peak memory of building a release of
10k, 50k and 100k QA pairs, with every format and every image.

    .venv/bin/python bench/release.py [--sizes 10000,50000,100000] [--runs 3] [--scale 0.1]
                                      [--image-kb 1024 | --no-images] [--chunk 1000]
    .venv/bin/python bench/release.py --smoke     # a 1k-pair release; fails on gross regressions

Creates a fresh database (trailmark_bench_release, or the one BENCH_DATABASE_URL names,
dropped first if it exists) and a temporary media folder, stores a pool of small PNG files
(pool images and, with ``--no-images``, shared screens; all cleared), and fills the tables
in bulk with SQL: WebQuest single- and multi-screen pairs (70%) and WebQA image (20%, with
5 image and 5 text distractors each) and text pairs (10%), all accepted. Every screen of a
WebQuest pair is its own screenshot: a PNG of ``--image-kb`` (1 MB by default) of noise,
distinct bytes, written once per screen, so the build copies (and hashes) images at full
size; ``--no-images`` points the screens at a shared pool of tiny PNGs instead, so the
figure without images can be read alone (the images stage is also reported on its own).

For each size, in increasing order, it adds pairs up to the size and builds a release of
all of them ``--runs`` times (the median is reported), each in a fresh child process (so
each peak RSS is that build's own): snapshot, records, WebQA files, images, manifest,
publish. It prints the time of each stage, the total, the total without images, the CPU
time of the build's process and of its PostgreSQL backend (what the build itself cost on a
shared machine), the child's peak RSS and the load average (``os.getloadavg``) when it
finished; memory is flat
when the largest build's peak stays within 20% of the smallest's. After each build it also
times the JSON Lines records alone (the build writes them in the same pass as WebQA's
files), read from the snapshot and stored under a scratch prefix.

``--scale 0.1`` multiplies every size (for a quick run). Images need disk: about
``--image-kb`` per screen (0.9 per pair); the script refuses to start when that would
leave less than 20 GB free. The release's copies are hard links where the file system
allows, so they take no more.

``--smoke`` (under a minute, for the test suite) builds one 1k-pair release (256 KB
screenshots unless ``--image-kb`` says otherwise) on the database named in
``BENCH_DATABASE_URL`` (a test database, migrated: it is flushed before and after), checks
it and compares it with ``SMOKE_RECORDED``: it exits non-zero only when a stage fails, the
release is not what it should be, or the build is grossly slower (10×) or bigger (3× the
peak RSS) than recorded.
"""

import argparse
import hashlib
import io
import json
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATABASE_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://trailmark@127.0.0.1:5432/trailmark_bench_release")
DB_NAME = urlsplit(DATABASE_URL).path.lstrip("/")
os.environ.update(
    {
        "DATABASE_URL": DATABASE_URL,
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

# The smoke run's build on the development machine (2 cores, shared, load average 9.6),
# with 256 KB screenshots: a smoke run fails only when it is grossly worse than these.
SMOKE_RECORDED = {"seconds": 4.0, "peak_rss_mb": 211}
SMOKE_SLOWER = 10  # times the recorded time
SMOKE_BIGGER = 3  # times the recorded peak RSS
# Screens of the pairs' own screenshots (and their assets) are numbered from here: 3 per pair.
OWN_SCREENS = 10_000_000
FREE_DISK_KEPT = 20 * 1024**3

COLORS = ["white", "red", "blue", "green", "yellow", "black", "pink", "orange", "purple", "brown"]
SHAPES = ["round", "square", "oval", "triangle", "rectangle", "star"]


def server(sql):
    """Runs ``sql`` on the bench database's server (connected to its ``postgres`` database)."""
    import psycopg2

    parts = urlsplit(DATABASE_URL)
    connection = psycopg2.connect(host=parts.hostname, port=parts.port or 5432, user=parts.username,
                                  password=parts.password, dbname="postgres")  # fmt: skip
    connection.autocommit = True
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
    finally:
        connection.close()


def drop_database():
    server(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')


def setup(args):
    """A database to fill: a new one, migrated; for ``--smoke``, the one given, flushed."""
    if not args.smoke:
        drop_database()
        server(f'CREATE DATABASE "{DB_NAME}"')
    shutil.rmtree(os.environ["MEDIA_ROOT"], ignore_errors=True)
    import django

    django.setup()
    from django.core.management import call_command

    if args.smoke:
        flush()
    else:
        call_command("migrate", verbosity=0)
    from accounts import services as accounts

    accounts.create_user(username="bench-admin", password="bench-password-123", role="admin")
    store_pool(args.screens + args.images)
    from django.db import connection

    with connection.cursor() as cursor:
        run(cursor, "screens", SCREENS, pool=args.screens)
        run(cursor, "pool images", IMAGES, pool=args.screens, images=args.images)
        run(cursor, "snippets", SNIPPETS, snippets=args.snippets)


def flush():
    """Empties every table of the database (the smoke run's, a test database)."""
    from django.core.management import call_command

    call_command("flush", interactive=False, verbosity=0)


def store_pool(count):
    """Real PNG files in storage (written straight into the media folder), with their asset
    rows (cleared)."""
    from PIL import Image

    from assets.models import Asset

    started = time.perf_counter()
    media = Path(os.environ["MEDIA_ROOT"])
    rows = []
    for n in range(1, count + 1):
        image = Image.new("RGB", (320, 200), (n % 256, (n // 256) % 256, 120))
        buffer = io.BytesIO()
        image.save(buffer, "PNG", compress_level=1)
        data = buffer.getvalue()
        sha = hashlib.sha256(data).hexdigest()
        key = f"assets/{sha[:2]}/{sha}.png"
        (media / key).parent.mkdir(parents=True, exist_ok=True)
        (media / key).write_bytes(data)
        rows.append(
            Asset(id=n, sha256=sha, format="png", width=320, height=200, byte_size=len(data), phash="0" * 16,
                  storage_key=key, thumbnail_key=key, review_state="cleared")
        )  # fmt: skip
    Asset.objects.bulk_create(rows, batch_size=1000)
    print(f"  {'assets (files + rows)':<28} {count:>10,} rows {time.perf_counter() - started:>7.1f} s", flush=True)


def screen_positions(start, stop):
    """``(pair id, evidence position)`` of every screen of the pairs ``start``–``stop``
    (as ``PAIRS`` and ``EVIDENCE`` make them: one screen, or three for a multi-screen pair)."""
    for pair in range(start, stop + 1):
        if pair % 10 < 6:
            yield pair, 0
        elif pair % 10 == 6:
            yield from ((pair, position) for position in range(3))


class Noise:
    """PNGs of noise, each with distinct bytes, made cheaply from one block of random bytes."""

    WIDTH = 1280

    def __init__(self, kilobytes):
        self.row = 1 + 3 * self.WIDTH  # a filter byte and RGB pixels
        self.height = max(1, kilobytes * 1024 // self.row)
        self.block = os.urandom(8 * 1024 * 1024)

    def png(self, number):
        step = self.row - 1
        start = (number * 7919 * step) % (len(self.block) - self.height * step)
        rows = b"".join(b"\0" + self.block[start + n * step : start + (n + 1) * step] for n in range(self.height))
        header = struct.pack(">IIBBBBB", self.WIDTH, self.height, 8, 2, 0, 0, 0)
        return b"".join([b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", header), _chunk(b"tEXt", b"Comment\0%d" % number),
                         _chunk(b"IDAT", zlib.compress(rows, 0)), _chunk(b"IEND", b"")])  # fmt: skip


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def store_own_screens(start, stop, kilobytes):
    """A screenshot of its own (``kilobytes`` of PNG noise) for every screen of the pairs
    ``start``–``stop``: files written straight into the media folder, then their asset and
    screen rows."""
    from django.db import connection

    from assets.models import Asset

    positions = list(screen_positions(start, stop))
    needed = len(positions) * kilobytes * 1024
    media = Path(os.environ["MEDIA_ROOT"])
    media.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(media).free
    if needed > free - FREE_DISK_KEPT:
        raise SystemExit(
            f"{len(positions):,} screenshots of {kilobytes} KB need {needed / 1024**3:.1f} GB and only "
            f"{free / 1024**3:.1f} GB is free (20 GB is kept free): use a smaller --image-kb or --no-images."
        )
    started = time.perf_counter()
    noise, rows = Noise(kilobytes), []
    for pair, position in positions:
        number = OWN_SCREENS + pair * 3 + position
        data = noise.png(number)
        sha = hashlib.sha256(data).hexdigest()
        key = f"assets/{sha[:2]}/{sha}.png"
        (media / key).parent.mkdir(parents=True, exist_ok=True)
        (media / key).write_bytes(data)
        rows.append(Asset(id=number, sha256=sha, format="png", width=Noise.WIDTH, height=noise.height,
                          byte_size=len(data), phash="0" * 16, storage_key=key, thumbnail_key=key,
                          review_state="cleared"))  # fmt: skip
        if len(rows) == 2000:
            Asset.objects.bulk_create(rows)
            rows = []
    Asset.objects.bulk_create(rows)
    seconds = time.perf_counter() - started
    print(f"  {'own screenshots (files)':<28} {len(positions):>10,} rows {seconds:>7.1f} s", flush=True)
    with connection.cursor() as cursor:
        run(cursor, "own screens", OWN_SCREEN_ROWS, low=OWN_SCREENS + start * 3, high=OWN_SCREENS + stop * 3 + 2)


OWN_SCREEN_ROWS = """
INSERT INTO corpus_screen (id, url, title, viewport_width, viewport_height, captured_at, asset_id, author_id)
SELECT a.id, 'https://shop' || (a.id %% 50) || '.example.com/item/' || a.id, 'Item ' || a.id, 1280, 800, now(), a.id,
       (SELECT id FROM accounts_user ORDER BY id LIMIT 1)
FROM assets_asset a WHERE a.id BETWEEN %(low)s AND %(high)s
"""


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
       CASE WHEN q.split_kind NOT IN ('single_screen', 'multi_screen') THEN NULL
            WHEN %(own)s > 0 THEN %(own)s + q.id * 3 + e ELSE 1 + (q.id * 3 + e) %% %(pool)s END,
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

    params = {"start": start, "stop": stop, "pool": args.screens, "images": args.images, "snippets": args.snippets,
              "own": 0 if args.no_images else OWN_SCREENS}  # fmt: skip
    if not args.no_images:
        store_own_screens(start, stop, args.image_kb)
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

    started, cpu_started, db_started = time.perf_counter(), cpu_seconds(), database_cpu_seconds()
    counts, _ = take_snapshot(release=release, progress=progress)
    Release.objects.filter(pk=release.pk).update(counts=counts)
    release.refresh_from_db()
    prefix = f"releases/{release.name}/{release.version}/build-1"
    built = build.write_release(release=release, prefix=prefix, progress=progress)
    progress(stage="publish")
    build._publish(release_id=release.pk, attempt=1, prefix=prefix, built=built)
    progress(stage="done")
    total, cpu = time.perf_counter() - started, cpu_seconds() - cpu_started
    db_cpu = database_cpu_seconds() - db_started if db_started is not None else None
    load = os.getloadavg()
    records_alone = time_records_alone(release)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    images = Release.objects.get(pk=release.pk).files.filter(path__startswith="images/").count()
    print(json.dumps({"size": size, "items": built["counts"]["items"], "files": built["file_count"], "images": images,
                      "bytes": built["manifest"]["total_size"], "seconds": total, "cpu": cpu, "db_cpu": db_cpu, "stages": stages,
                      "records_alone": records_alone, "peak_rss_mb": peak_mb, "load": load}))  # fmt: skip


def cpu_seconds():
    """CPU time of this process (user + system): on a shared machine, the part of a wall
    time that was this build's own work (PostgreSQL's share is not in it)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def database_cpu_seconds():
    """CPU time of the PostgreSQL backend serving this process, read from /proc when the
    server runs on this machine (as here); None elsewhere."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def time_records_alone(release):
    """The JSON Lines records on their own (the build writes them in one pass with WebQA's
    files): read from the snapshot, written and stored under a scratch prefix."""
    from releases import build
    from releases.formats.records import RecordsWriter
    from releases.heap import fewer_collections
    from releases.storage import ReleaseFiles, delete_prefix

    prefix = f"releases/{release.name}/{release.version}/records-alone"
    started = time.perf_counter()
    records = RecordsWriter(ReleaseFiles(prefix))
    with fewer_collections():  # as write_release runs it
        build.write_items(release=release, writers=[records], progress=build.no_progress)
    records.finish()
    seconds = time.perf_counter() - started
    delete_prefix(prefix)
    return seconds


def build(size, args):
    """One build of ``size`` pairs in a fresh child process: its figures, or None if it failed."""
    child = subprocess.run(
        [sys.executable, __file__, "--build-only", str(size), "--chunk", str(args.chunk)],
        capture_output=True, text=True, env=os.environ, check=False,
    )  # fmt: skip
    if child.returncode:
        print(child.stdout, child.stderr)
        return None
    result = json.loads(child.stdout.strip().splitlines()[-1])
    stages = ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in result["stages"].items())
    print(f"Built {result['items']:,} pairs: {result['seconds']:.1f} s ({without_images(result):.1f} s without "
          f"images; CPU {result['cpu']:.1f} s in the build's process, {database_cpu(result)} in its "
          f"database backend), peak RSS {result['peak_rss_mb']:.0f} MB, {result['files']:,} files, {result['bytes'] / 1e6:,.0f} MB "
          f"({stages}; records alone {result['records_alone']:.1f} s); load average "
          f"{' '.join(f'{n:.2f}' for n in result['load'])}", flush=True)  # fmt: skip
    return result


def database_cpu(result):
    return "?" if result.get("db_cpu") is None else f"{result['db_cpu']:.1f} s"


def without_images(result):
    return result["seconds"] - result["stages"].get("images", 0)


def median_of(results):
    """The run with the median total (the middle one of an odd number of runs)."""
    ordered = sorted(results, key=lambda result: result["seconds"])
    return {**ordered[(len(ordered) - 1) // 2], "runs": [result["seconds"] for result in results]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000,100000")
    parser.add_argument("--scale", type=float, default=1.0, help="Multiply every size, e.g. 0.1 for a quick run.")
    parser.add_argument("--runs", type=int, default=1, help="Builds of each size; the median is reported.")
    parser.add_argument("--chunk", type=int, default=1000, help="RELEASE_CHUNK_SIZE for the builds.")
    parser.add_argument("--image-kb", type=int, help="Size of each pair's screenshot (default 1024; 256 with --smoke).")
    parser.add_argument("--no-images", action="store_true", help="Screens share a pool of tiny PNGs instead.")
    parser.add_argument("--smoke", action="store_true", help="One 1k-pair build, checked against SMOKE_RECORDED.")
    parser.add_argument("--screens", type=int, help="Shared screens, with --no-images (default 1000).")
    parser.add_argument("--images", type=int, help="Pool images (default 2000; 300 with --smoke).")
    parser.add_argument("--snippets", type=int, help="Pool snippets (default 20000; 3000 with --smoke).")
    parser.add_argument("--build-only", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        build_in_this_process(args.build_only, args.chunk)
        return
    defaults = {"image_kb": 256, "screens": 100, "images": 300, "snippets": 3000} if args.smoke else {}
    defaults = {"image_kb": 1024, "screens": 1000, "images": 2000, "snippets": 20000, **defaults}
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.smoke:
        raise SystemExit(smoke(args))
    sizes = sorted(int(int(size) * args.scale) for size in args.sizes.split(","))
    print(f"Setting up {DB_NAME} (media in {os.environ['MEDIA_ROOT']})")
    setup(args)
    results, have = [], 0
    for size in sizes:
        print(f"\nAdding pairs {have + 1:,}–{size:,}")
        add_pairs(args, have + 1, size)
        have = size
        runs = [build(size, args) for _run in range(args.runs)]
        if None in runs:
            raise SystemExit(f"A build of {size} pairs failed.")
        results.append(median_of(runs))
    print(f"\nMedian of {args.runs} run(s); screenshots: "
          f"{'a shared pool of tiny PNGs' if args.no_images else f'{args.image_kb} KB each, one per screen'}.")  # fmt: skip
    print("\n| QA pairs | build (s) | without images (s) | build CPU (s) | database CPU (s) | snapshot (s) "
          "| records + WebQA (s) | images (s) | image files | records alone (s) | peak RSS (MB) | load average |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for result in results:
        stages = result["stages"]
        print(f"| {result['items']:,} | {result['seconds']:.1f} | {without_images(result):.1f} | {result['cpu']:.1f} | "
              f"{database_cpu(result).removesuffix(' s')} | "
              f"{stages.get('snapshot', 0):.1f} | {stages.get('records', 0):.1f} | {stages.get('images', 0):.1f} | "
              f"{result['images']:,} | {result['records_alone']:.1f} | {result['peak_rss_mb']:.0f} | "
              f"{' '.join(f'{n:.2f}' for n in result['load'])} |")  # fmt: skip
    if len(results) > 1:
        growth = results[-1]["peak_rss_mb"] / results[0]["peak_rss_mb"] - 1
        print(
            f"\nPeak RSS grew {growth:+.0%} from {results[0]['items']:,} to {results[-1]['items']:,} pairs (target: ≤ +20%)."
        )


def smoke(args):
    """A 1k-pair release, built and checked; 0 when it passed, else a message."""
    if "BENCH_DATABASE_URL" not in os.environ:
        return "--smoke flushes the database it runs on: name it in BENCH_DATABASE_URL (a test database, migrated)."
    size = 1000
    print(f"Smoke run: {size:,} pairs, {args.image_kb} KB screenshots, in {DB_NAME}")
    started = time.perf_counter()
    try:
        setup(args)
        add_pairs(args, 1, size)
        result = build(size, args)
    finally:
        flush()
        shutil.rmtree(os.environ["MEDIA_ROOT"], ignore_errors=True)
    print(f"Smoke run in {time.perf_counter() - started:.0f} s.")
    if result is None:
        return "Smoke run failed: the build failed."
    problems = []
    if result["items"] != size:
        problems.append(f"the release has {result['items']:,} pairs, not {size:,}")
    screens = sum(1 for _ in screen_positions(1, size))
    if not args.no_images and result["images"] < screens:
        problems.append(f"the release has {result['images']:,} image files, fewer than its {screens:,} screens")
    slowest = SMOKE_RECORDED["seconds"] * SMOKE_SLOWER
    if result["seconds"] > slowest:
        problems.append(f"the build took {result['seconds']:.1f} s, over {SMOKE_SLOWER}× the recorded "
                        f"{SMOKE_RECORDED['seconds']:.1f} s")  # fmt: skip
    biggest = SMOKE_RECORDED["peak_rss_mb"] * SMOKE_BIGGER
    if result["peak_rss_mb"] > biggest:
        problems.append(f"its peak RSS was {result['peak_rss_mb']:.0f} MB, over {SMOKE_BIGGER}× the recorded "
                        f"{SMOKE_RECORDED['peak_rss_mb']} MB")  # fmt: skip
    if problems:
        return "Smoke run failed: " + "; ".join(problems) + "."
    print("Smoke run passed.")
    return 0


if __name__ == "__main__":
    main()
