"""Dashboard benchmark: server time and query count of the staff dashboards on a big database.

    .venv/bin/python bench/dashboards.py [--assignments 1000000] [--qa-pairs 100000] [--requests 5] [--keep | --drop]
    BENCH_DATABASE_URL=postgres://…/test_db .venv/bin/python bench/dashboards.py --smoke

Creates a fresh database (trailmark_bench_dash, dropped first if it exists), migrates it
and fills it in bulk with SQL (``INSERT … SELECT`` over ``generate_series``, never the ORM
row by row): 1,000 raters with profiles, one admin, 50 batches of every kind and state,
``assignments / 4`` tasks, the assignments over the last 30 days in every state, QA pairs
of every family, split and state with their evidence, traces of 5–30 steps, the screens
and assets (rows only, no files) they show, and review items in both queues. The
database's triggers log every counted row as it is loaded; the load ends with the fold
that Celery beat would have run by then (adding the log to the dashboards' tallies) and
``VACUUM ANALYZE``. Then it requests every dashboard page, and its ``?format=csv``
download, in-process with Django's test client logged in as the admin: one cold request
and ``--requests`` warm ones; each of the dataset page's CSV tables is a download of its
own. For each it prints the status, the cold time, the median and maximum warm time, the
SQL queries per request (beside those of the same request on a hundredth of the data,
loaded, measured and flushed first: the two must be equal) and the time spent in them.

It then makes a minute of work without folding it in (7,800 submissions by 64 workers
and 1,000 decisions spread over most workers, in SQL), requests every page again, so
that the figures include adding up changes the tallies do not hold yet, and times the
fold that follows.

Server time here is the time the test client takes to return the whole response (a
streamed CSV is read to its end), without a web server or network in front.

``--smoke`` is a quick check (under a minute) for the test suite: on the database named in
``BENCH_DATABASE_URL``, which it flushes before, between and after, it loads 2,000 and
then 20,000 assignments (500 and 5,000 QA pairs), requests everything at each size and
exits 1 only on gross regressions: a page that fails, a query count that grows with the
data, or a median 10× the figure recorded in ``SMOKE_RECORDED_MS``.

A page that is not there yet (404) is reported and skipped. The database is left in place
afterwards for a look with psql (``--keep`` says so explicitly); ``--drop`` drops it. The
next run drops and recreates it either way.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DB_NAME = "trailmark_bench_dash"
# Production settings serve static files through a manifest, so pages need collectstatic first.
STATIC_ROOT = Path(tempfile.mkdtemp(prefix="trailmark-bench-static-"))
os.environ.update(
    {
        "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", f"postgres://trailmark@127.0.0.1:5432/{DB_NAME}"),
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/12"),
        "SECRET_KEY": "bench-secret-key-" + "d" * 40,
        "DEBUG": "0",
        "ALLOWED_HOSTS": "testserver,127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "LOG_LEVEL": "CRITICAL",  # a failing page is reported in one line below, not as a traceback
        "STATIC_ROOT": str(STATIC_ROOT),
    }
)

import bootstrap  # noqa: E402,F401

PAGES = ["/dashboards/", "/dashboards/batches/", "/dashboards/queues/", "/dashboards/throughput/"]
PAGES += ["/dashboards/workers/", "/dashboards/workers/?sort=median", "/dashboards/dataset/"]
TARGET_MS = 300

RATERS = 1000  # the assignment generator relies on 131 being coprime with this
BATCHES = 50
BATCH_KINDS = ["single_screen_qa", "multi_screen_qa", "trace_qa", "demo_question"]
LOCALES = ["en-US", "en-GB", "en-IN", "de-DE", "fr-FR", "es-ES", "ja-JP", "pt-BR"]
REASONING_TYPES = [
    "[]",
    '["arithmetic"]',
    '["comparison"]',
    '["counting"]',
    '["filtering"]',
    '["arithmetic", "comparison"]',
    '["counting", "filtering"]',
    '["comparison", "filtering", "arithmetic"]',
]
QUESTION_CATEGORIES = ["YesNo", "choose", "number", "color", "shape", "Others", "text"]
STEP_ACTIONS = ["click", "type", "submit", "scroll", "back", "forward", "click"]
PASSWORD = "bench-password-123"
# The website categories a migration makes, made again after a flush.
CATEGORIES = ["restaurant", "shopping", "hotel", "transportation", "landmark", "news", "media-sharing",
              "education-information", "movies", "real-estate", "other"]  # fmt: skip


def psql(sql):
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "trailmark", "-d", "postgres", "-qc", sql], check=True)


def create_database():
    psql(f"DROP DATABASE IF EXISTS {DB_NAME}")
    psql(f"CREATE DATABASE {DB_NAME}")
    import django

    django.setup()
    from django.core.cache import cache
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    try:
        call_command("collectstatic", interactive=False, verbosity=0)
    except Exception as error:
        # Without a manifest every {% static %} raises; plain storage costs the pages no more.
        from django.conf import settings
        from django.test.utils import override_settings

        print(f"collectstatic failed, pages use plain static storage: {str(error).splitlines()[0]}")
        plain = {
            **settings.STORAGES,
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        }
        override_settings(STORAGES=plain).enable()
    # Redis database 12 is this benchmark's own; nothing cached for an older database may answer.
    cache.clear()


# --- Data -----------------------------------------------------------------------------------


class Loader:
    """Runs the bulk inserts on one cursor and times each of them."""

    def __init__(self, cursor, params, quiet=False):
        self.cursor = cursor
        self.params = params
        self.quiet = quiet

    def run(self, label, sql, **extra):
        started = time.perf_counter()
        self.cursor.execute(sql, {**self.params, **extra})
        if not self.quiet:
            print(f"  {label:<34} {self.cursor.rowcount:>10,} rows {time.perf_counter() - started:>7.1f} s", flush=True)

    def value(self, sql, **extra):
        self.cursor.execute(sql, {**self.params, **extra})
        return self.cursor.fetchone()[0]


USERS = """
INSERT INTO accounts_user (id, password, is_superuser, username, first_name, last_name, email, is_staff,
                           is_active, date_joined, role, last_login)
SELECT %(rater0)s + i, %(password)s, false, 'rater' || lpad(i::text, 4, '0'), 'Rater', i::text,
       'rater' || i || '@example.com', false, true, now() - interval '90 days' + (i %% 60) * interval '1 day',
       CASE WHEN i %% 50 = 0 THEN 'validator' WHEN i %% 97 = 0 THEN 'reviewer' ELSE 'rater' END,
       CASE WHEN i %% 4 <> 0 THEN now() - (i %% 30) * interval '1 day' END
FROM generate_series(1, %(raters)s - 1) i
"""

PROFILES = """
INSERT INTO accounts_raterprofile (locale, approved_count, rejected_count, blocked, blocked_reason, blocked_at, user_id,
                                   screened_by_provider)
SELECT (%(locales)s::text[])[1 + i %% cardinality(%(locales)s::text[])], 0, 0, i %% 89 = 0,
       CASE WHEN i %% 89 = 0 THEN 'Copied answers between tasks.' ELSE '' END,
       CASE WHEN i %% 89 = 0 THEN now() - interval '3 days' END, %(rater0)s + i, ''
FROM generate_series(1, %(raters)s - 1) i
"""

BATCHES_SQL = """
WITH b AS (
    SELECT b AS id, (%(kinds)s::text[])[1 + b %% 4] AS kind,
           CASE WHEN b %% 11 = 7 THEN 'draft' WHEN b %% 5 = 0 THEN 'closed' ELSE 'open' END AS state,
           date_trunc('hour', now()) - interval '30 days' + (b %% 5) * interval '1 day' AS opened
    FROM generate_series(1, %(batches)s) b
)
INSERT INTO hits_batch (id, name, kind, description, state, reward, assignment_minutes, spot_check_percent,
                        min_approval_rate, min_approved_count, allowed_locales, kind_settings, created_at,
                        opened_at, closed_at, created_by_id)
SELECT id, 'Bench ' || replace(kind, '_', ' ') || ' ' || lpad(id::text, 2, '0'), kind, 'Benchmark batch.', state,
       (5 + (id * 7) %% 46) / 100.0, CASE WHEN id %% 3 = 0 THEN 45 END, 10,
       CASE WHEN id %% 5 = 1 THEN 0.800 END, CASE WHEN id %% 5 = 1 THEN 20 ELSE 0 END,
       CASE WHEN id %% 6 = 0 THEN '["en-US", "en-GB"]'::jsonb ELSE '[]'::jsonb END,
       CASE WHEN kind = 'trace_qa' THEN '{"questions_by": "anyone"}'::jsonb ELSE '{}'::jsonb END,
       CASE WHEN state = 'draft' THEN now() - interval '1 day' ELSE opened - interval '2 days' END,
       CASE WHEN state <> 'draft' THEN opened END,
       CASE WHEN state = 'closed' THEN now() - (id %% 3 + 1) * interval '1 day' END,
       %(admin)s
FROM b
"""

# Batch sizes are skewed (power of a uniform draw) so that the batch table is not uniform.
TASKS = """
INSERT INTO hits_task (id, payload, assignments_wanted, slots_taken, created_at, batch_id, reserved_for_id)
SELECT t.id, jsonb_build_object('question', 'Question ' || t.id || '?', 'passage', 'Passage ' || t.id),
       CASE WHEN b.id %% 3 = 0 THEN 5 ELSE 3 END, 0, b.created_at, b.id, NULL
FROM (SELECT t AS id, 1 + floor(%(batches)s * power(random(), 1.4))::int AS batch_id
      FROM generate_series(1, %(tasks)s) t) t
JOIN hits_batch b ON b.id = t.batch_id
"""

OPEN_TASKS = """
CREATE TEMP TABLE bench_open_task AS
SELECT row_number() OVER (ORDER BY t.id) - 1 AS r, t.id AS task_id, t.batch_id, b.reward,
       b.opened_at, coalesce(b.closed_at, now()) AS until
FROM hits_task t JOIN hits_batch b ON b.id = t.batch_id
WHERE b.state <> 'draft'
"""

# Assignment n goes to task r = n mod T, as that task's k-th assignment (k = n div T), and to
# worker (7·task + 131·k) mod RATERS: distinct k give distinct workers, so (task, worker)
# stays unique. Times fall between the batch's opening (or closing) and an hour ago.
ASSIGNMENTS = """
INSERT INTO hits_assignment (id, state, assigned_at, expires_at, submitted_at, decided_at, ended_at,
                             active_seconds, draft, answer, spot_check, pay, bonus, bonus_reason, feedback,
                             decided_by_id, worker_id, batch_id, task_id)
SELECT s.n + 1, s.state, s.assigned_at, s.assigned_at + interval '30 minutes',
       CASE WHEN s.state IN ('submitted', 'approved', 'rejected')
            THEN s.assigned_at + s.active * interval '1.25 seconds' END,
       CASE WHEN s.state IN ('approved', 'rejected')
            THEN least(now(), s.assigned_at + s.active * interval '1.25 seconds' + s.wait * interval '1 hour') END,
       CASE WHEN s.state = 'returned' THEN s.assigned_at + s.active * interval '1 second'
            WHEN s.state = 'expired' THEN s.assigned_at + interval '30 minutes' END,
       CASE WHEN s.state <> 'expired' THEN s.active END,
       NULL,
       CASE WHEN s.state IN ('submitted', 'approved', 'rejected') THEN '{"answer": "seven"}'::jsonb END,
       s.u < 0.1,
       CASE WHEN s.state = 'approved' THEN s.reward ELSE 0 END,
       CASE WHEN s.state = 'approved' AND s.u > 0.97 THEN 0.10 ELSE 0 END,
       CASE WHEN s.state = 'approved' AND s.u > 0.97 THEN 'Careful, well-sourced answer.' ELSE '' END,
       CASE WHEN s.state = 'rejected' THEN 'The answer does not match the evidence.' ELSE '' END,
       CASE WHEN s.state IN ('approved', 'rejected') THEN %(admin)s END,
       s.worker_id, s.batch_id, s.task_id
FROM (
    SELECT g.n, o.task_id, o.batch_id, o.reward,
           %(rater0)s + (o.task_id * 7 + (g.n / %(open_tasks)s) * 131) %% %(raters)s AS worker_id,
           CASE WHEN g.p < 0.55 THEN 'approved' WHEN g.p < 0.67 THEN 'submitted' WHEN g.p < 0.75 THEN 'rejected'
                WHEN g.p < 0.87 THEN 'returned' ELSE 'expired' END AS state,
           o.opened_at + random() * (o.until - o.opened_at - interval '1 hour') AS assigned_at,
           20 + floor(power(random(), 2) * 900)::int AS active,
           random() * 48 AS wait,
           random() AS u
    FROM (SELECT n, random() AS p FROM generate_series(0, %(assignments)s - 1) n) g
    JOIN bench_open_task o ON o.r = g.n %% %(open_tasks)s
) s
"""

# A few workers are in the middle of a task: at most one per (worker, batch), in open batches.
OPEN_ASSIGNMENTS = """
UPDATE hits_assignment a
SET state = 'assigned', assigned_at = s.assigned_at, expires_at = s.assigned_at + interval '30 minutes',
    ended_at = NULL, active_seconds = 30
FROM (
    SELECT DISTINCT ON (a.worker_id, a.batch_id) a.id, now() - random() * interval '20 minutes' AS assigned_at
    FROM hits_assignment a JOIN hits_batch b ON b.id = a.batch_id AND b.state = 'open'
    WHERE a.state IN ('returned', 'expired') AND a.id %% 97 = 0
    ORDER BY a.worker_id, a.batch_id, a.id
    LIMIT %(open_assignments)s
) s
WHERE a.id = s.id
"""

SLOTS = """
UPDATE hits_task t SET slots_taken = s.slots, assignments_wanted = greatest(t.assignments_wanted, s.slots)
FROM (
    SELECT task_id, count(*) FILTER (WHERE state IN ('assigned', 'submitted', 'approved')) AS slots
    FROM hits_assignment GROUP BY task_id
) s
WHERE t.id = s.task_id AND s.slots > 0
"""

PROFILE_COUNTS = """
UPDATE accounts_raterprofile p SET approved_count = s.approved, rejected_count = s.rejected
FROM (
    SELECT worker_id, count(*) FILTER (WHERE state = 'approved') AS approved,
           count(*) FILTER (WHERE state = 'rejected') AS rejected
    FROM hits_assignment GROUP BY worker_id
) s
WHERE p.user_id = s.worker_id
"""

STEPS_PLAN = """
CREATE TEMP TABLE bench_step AS
SELECT row_number() OVER (ORDER BY tr, p) AS id, tr AS trace_id, p AS position
FROM generate_series(1, %(traces)s) tr CROSS JOIN LATERAL generate_series(0, 4 + (tr * 7919) %% 26) p
"""

# One asset per screen: ids 1…pool for the screens QA pairs cite, then one per trace step.
ASSETS = """
INSERT INTO assets_asset (id, sha256, format, width, height, byte_size, phash, storage_key, thumbnail_key,
                          review_state, created_at)
SELECT i, md5(i::text) || md5((i + 1)::text), 'png', 1280, 800 + (i %% 7) * 400, 150000 + (i * 7919) %% 900000,
       substr(md5('phash' || i), 1, 16), 'assets/bench/' || i || '.png', 'thumbnails/bench/' || i || '.webp',
       'cleared', now() - random() * interval '30 days'
FROM generate_series(1, %(assets)s) i
"""

POOL_SCREENS = """
INSERT INTO corpus_screen (id, url, title, viewport_width, viewport_height, captured_at, asset_id,
                               assignment_id, author_id, category_id, site_id)
SELECT a.id, 'https://shop' || (a.id %% 300) || '.example.com/page/' || a.id, 'Page ' || a.id, 1280, 800,
       a.created_at, a.id, NULL, %(rater0)s + (a.id * 13) %% %(raters)s,
       (%(categories)s::bigint[])[1 + a.id %% cardinality(%(categories)s::bigint[])], NULL
FROM assets_asset a WHERE a.id <= %(pool)s
"""

TRACES = """
INSERT INTO corpus_trace (id, client_id, state, started_at, finished_at, user_agent, created_at, author_id,
                              batch_id, category_id)
SELECT tr, md5('trace' || tr)::uuid, CASE WHEN tr %% 40 = 0 THEN 'uploading' ELSE 'finished' END, started,
       CASE WHEN tr %% 40 <> 0 THEN started + (5 + (tr * 7919) %% 26) * interval '40 seconds' END,
       'Mozilla/5.0 (X11; Linux x86_64) Trailmark bench', started, %(rater0)s + (tr * 17) %% %(raters)s,
       (%(trace_batches)s::bigint[])[1 + tr %% greatest(1, cardinality(%(trace_batches)s::bigint[]))],
       (%(categories)s::bigint[])[1 + tr %% cardinality(%(categories)s::bigint[])]
FROM (SELECT tr, now() - interval '1 hour' - random() * interval '29 days' AS started
      FROM generate_series(1, %(traces)s) tr) s
"""

STEP_SCREENS = """
INSERT INTO corpus_screen (id, url, title, viewport_width, viewport_height, captured_at, asset_id,
                               assignment_id, author_id, category_id, site_id)
SELECT %(pool)s + s.id, 'https://example.com/trace/' || s.trace_id || '/' || s.position, 'Step ' || s.position,
       1280, 800, t.started_at + s.position * interval '40 seconds', %(pool)s + s.id, NULL, t.author_id,
       t.category_id, NULL
FROM bench_step s JOIN corpus_trace t ON t.id = s.trace_id
"""

STEPS = """
INSERT INTO corpus_tracestep (id, client_id, position, url, title, captured_at, viewport_width,
                                  viewport_height, device_pixel_ratio, scroll_x, scroll_y, action, target,
                                  clickables, html_key, screen_id, trace_id, full_page)
SELECT s.id, md5('step' || s.id)::uuid, s.position, 'https://example.com/trace/' || s.trace_id || '/' || s.position,
       'Step ' || s.position, t.started_at + s.position * interval '40 seconds', 1280, 800, 1.0, 0,
       (s.position %% 5) * 400,
       CASE WHEN s.position = 0 THEN 'navigate'
            ELSE (%(actions)s::text[])[1 + s.id %% cardinality(%(actions)s::text[])] END,
       CASE WHEN s.position > 0 THEN '{"tag": "a", "text": "Next", "bbox": [10, 20, 80, 16]}'::jsonb END,
       '[]'::jsonb, '', %(pool)s + s.id, s.trace_id, false
FROM bench_step s JOIN corpus_trace t ON t.id = s.trace_id
"""

# The work QA pairs come from: submitted assignments, numbered within their batch kind.
WORK = """
CREATE TEMP TABLE bench_work AS
SELECT b.kind, row_number() OVER (PARTITION BY b.kind ORDER BY a.id) - 1 AS r, a.id, a.worker_id, a.submitted_at
FROM hits_assignment a JOIN hits_batch b ON b.id = a.batch_id
WHERE a.submitted_at IS NOT NULL AND b.kind <> 'demo_question'
"""

QA_PAIRS = """
WITH p AS (
    SELECT i, CASE WHEN i %% 20 < 10 THEN 'single_screen' WHEN i %% 20 < 17 THEN 'multi_screen'
                   ELSE 'trace' END AS split, random() AS u
    FROM generate_series(1, %(qa_pairs)s) i
), counts AS (
    SELECT kind, count(*) AS n FROM bench_work GROUP BY kind
)
INSERT INTO corpus_qapair (id, family, split_kind, question, answer, answer_type, keyword_answer,
                               reasoning_types, question_category, question_category_manual, state, created_at,
                               assignment_id, author_id, category_id, trace_id, state_reason)
SELECT p.i, CASE WHEN p.split <> 'trace' AND p.i %% 5 IN (1, 3) THEN 'webqa' ELSE 'webquest' END, p.split,
       'What is shown as item ' || p.i || ' on this page?', 'Answer ' || p.i,
       (ARRAY['text', 'integer', 'decimal'])[1 + p.i %% 3], 'answer ' || p.i %% 100,
       (%(reasoning)s::text[])[1 + p.i %% cardinality(%(reasoning)s::text[])]::jsonb,
       (%(question_categories)s::text[])[1 + (p.i * 3) %% cardinality(%(question_categories)s::text[])], false,
       CASE WHEN p.u < 0.60 THEN 'accepted' WHEN p.u < 0.85 THEN 'pending_validation'
            WHEN p.u < 0.95 THEN 'rejected' ELSE 'draft' END,
       coalesce(w.submitted_at, now() - random() * interval '30 days'), w.id,
       coalesce(w.worker_id, %(rater0)s + p.i %% %(raters)s),
       (%(categories)s::bigint[])[1 + p.i %% cardinality(%(categories)s::bigint[])],
       CASE WHEN p.split = 'trace' THEN 1 + p.i %% %(traces)s END,
       CASE WHEN p.u >= 0.85 AND p.u < 0.95 THEN 'Validators disagreed on the answer.' ELSE '' END
FROM p
LEFT JOIN counts c ON c.kind = p.split || '_qa'
LEFT JOIN bench_work w ON w.kind = c.kind AND w.r = (p.i * 7) %% c.n
"""

SINGLE_EVIDENCE = """
INSERT INTO corpus_evidence (position, note, fact, url, qa_pair_id, screen_id, step_id)
SELECT 0, '', '', '', q.id, 1 + q.id %% %(pool)s, NULL FROM corpus_qapair q WHERE q.split_kind = 'single_screen'
"""

MULTI_EVIDENCE = """
INSERT INTO corpus_evidence (position, note, fact, url, qa_pair_id, screen_id, step_id)
SELECT e, 'Screen ' || (e + 1) || ' gives part of the answer.', '', '', q.id, 1 + (q.id * 5 + e) %% %(pool)s, NULL
FROM corpus_qapair q CROSS JOIN LATERAL generate_series(0, 2 + q.id %% 3) e
WHERE q.split_kind = 'multi_screen'
"""

TRACE_EVIDENCE = """
INSERT INTO corpus_evidence (position, note, fact, url, qa_pair_id, screen_id, step_id)
SELECT s.position, '', '', '', q.id, %(pool)s + s.id, s.id
FROM corpus_qapair q JOIN bench_step s ON s.trace_id = q.trace_id AND s.position <= 1 + q.id %% 3
WHERE q.split_kind = 'trace'
"""

REVIEW_ITEMS = """
INSERT INTO moderation_reviewitem (queue, findings, pii_risk, safety_risk, risk, prescreened_at, claimed_until,
                                   decided_at, created_at, asset_id, claimed_by_id, text_findings, text_risk)
SELECT CASE WHEN s.safety > s.pii THEN 'safety' ELSE 'pii' END,
       jsonb_build_array(jsonb_build_object(
           'kind', (ARRAY['email', 'phone', 'face', 'card_number', 'nudity'])[1 + s.i %% 5],
           'score', round(greatest(s.pii, s.safety)::numeric, 2))),
       s.pii, s.safety, greatest(s.pii, s.safety), s.created + interval '5 seconds',
       CASE WHEN s.u >= 0.6 AND s.i %% 10 = 0 THEN now() + interval '10 minutes' END,
       CASE WHEN s.u < 0.6 THEN least(now(), s.created + random() * interval '2 days') END,
       s.created, s.asset_id,
       CASE WHEN s.u >= 0.6 AND s.i %% 10 = 0 THEN %(admin)s END, '[]'::jsonb, 0
FROM (SELECT i, 1 + (i - 1) * (%(assets)s / %(review_items)s) AS asset_id, random() AS pii,
             power(random(), 3) AS safety, random() AS u, now() - random() * interval '30 days' AS created
      FROM generate_series(1, %(review_items)s) i) s
"""

REVIEW_DECISIONS = """
INSERT INTO moderation_reviewdecision (asset_id, asset_sha256, decision, reviewer_id, reason, findings, boxes,
                                       replacement_id, created_at)
SELECT r.asset_id, a.sha256,
       CASE WHEN r.id %% 10 = 0 THEN 'rejected' WHEN r.id %% 10 = 1 THEN 'redacted' ELSE 'approved' END,
       %(admin)s, CASE WHEN r.id %% 10 = 0 THEN 'Shows a card number.' ELSE '' END, r.findings,
       CASE WHEN r.id %% 10 = 1 THEN '[[10, 10, 200, 40]]'::jsonb ELSE '[]'::jsonb END, NULL, r.decided_at
FROM moderation_reviewitem r JOIN assets_asset a ON a.id = r.asset_id
WHERE r.decided_at IS NOT NULL
"""

ASSET_REVIEW_STATES = """
UPDATE assets_asset a
SET review_state = CASE WHEN r.decided_at IS NULL THEN 'pending_review'
                        WHEN r.id %% 10 = 0 THEN 'rejected' ELSE 'cleared' END
FROM moderation_reviewitem r
WHERE r.asset_id = a.id AND (r.decided_at IS NULL OR r.id %% 10 = 0)
"""

EXPLICIT_ID_TABLES = [
    "accounts_user",
    "hits_batch",
    "hits_task",
    "hits_assignment",
    "assets_asset",
    "corpus_screen",
    "corpus_trace",
    "corpus_tracestep",
    "corpus_qapair",
]


def load(*, assignments, qa_pairs, quiet=False):
    """Fills the database; returns the admin user."""
    from django.db import connection, transaction

    from accounts import services as accounts
    from corpus.models import Category

    admin = accounts.create_user(username="bench-admin", password=PASSWORD, role="admin")
    rater0 = accounts.create_user(username="rater0000", password=PASSWORD)
    params = {
        "admin": admin.pk,
        "rater0": rater0.pk,
        "password": rater0.password,
        "raters": RATERS,
        "batches": BATCHES,
        "tasks": max(1, assignments // 4),
        "assignments": assignments,
        "open_assignments": max(20, assignments // 2000),
        "qa_pairs": qa_pairs,
        "pool": qa_pairs,
        "traces": max(20, qa_pairs // 50),
        "review_items": max(50, qa_pairs // 20),
        "kinds": BATCH_KINDS,
        "locales": LOCALES,
        "reasoning": REASONING_TYPES,
        "question_categories": QUESTION_CATEGORIES,
        "actions": STEP_ACTIONS,
        "categories": list(Category.objects.order_by("position").values_list("pk", flat=True)),
    }
    if not params["categories"]:  # a flushed database (the smoke run's) has lost what migrations put in
        Category.objects.bulk_create(
            Category(slug=slug, name=slug.replace("-", " ").title(), position=n) for n, slug in enumerate(CATEGORIES)
        )
        params["categories"] = list(Category.objects.order_by("position").values_list("pk", flat=True))

    with transaction.atomic(), connection.cursor() as cursor:
        db = Loader(cursor, params, quiet)
        db.value("SELECT setseed(0.42)")
        db.run("raters", USERS)
        db.run("rater profiles", PROFILES)
        db.run("batches", BATCHES_SQL)
        db.run("tasks", TASKS)
        db.run("open tasks (temporary)", OPEN_TASKS)
        cursor.execute("CREATE INDEX ON bench_open_task (r)")
        cursor.execute("ANALYZE bench_open_task")
        params["open_tasks"] = db.value("SELECT count(*) FROM bench_open_task")
        db.run("assignments", ASSIGNMENTS)
        db.run("assignments in progress", OPEN_ASSIGNMENTS)
        db.run("task slots", SLOTS)
        db.run("profile counts", PROFILE_COUNTS)

        db.run("trace steps plan (temporary)", STEPS_PLAN)
        params["assets"] = params["pool"] + db.value("SELECT count(*) FROM bench_step")
        cursor.execute("SELECT id FROM hits_batch WHERE kind = 'trace_qa' ORDER BY id")
        params["trace_batches"] = [row[0] for row in cursor.fetchall()]
        db.run("assets", ASSETS)
        db.run("screens cited by QA pairs", POOL_SCREENS)
        db.run("traces", TRACES)
        db.run("screens of trace steps", STEP_SCREENS)
        db.run("trace steps", STEPS)

        db.run("submitted work (temporary)", WORK)
        cursor.execute("CREATE INDEX ON bench_work (kind, r)")
        cursor.execute("ANALYZE bench_work")
        db.run("QA pairs", QA_PAIRS)
        db.run("evidence, single screen", SINGLE_EVIDENCE)
        db.run("evidence, multi screen", MULTI_EVIDENCE)
        db.run("evidence, trace", TRACE_EVIDENCE)

        db.run("review items", REVIEW_ITEMS)
        db.run("review decisions", REVIEW_DECISIONS)
        db.run("asset review states", ASSET_REVIEW_STATES)

        for table in EXPLICIT_ID_TABLES:
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        cursor.execute("DROP TABLE bench_open_task, bench_step, bench_work")

    from dashboards import services as dashboards

    started = time.perf_counter()
    folded = dashboards.fold_changes()  # what Celery beat would have done by now
    if not quiet:
        print(f"  {'dashboard tallies (fold)':<34} {folded:>10,} rows {time.perf_counter() - started:>7.1f} s")
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")  # outside the transaction: what autovacuum would have done by now
    if not quiet:
        print(f"  {'VACUUM ANALYZE':<34} {'':>15} {time.perf_counter() - started:>7.1f} s")
    return admin


def counts():
    from django.db import connection

    tables = {
        "assignments": "hits_assignment",
        "QA pairs": "corpus_qapair",
        "tasks": "hits_task",
        "users": "accounts_user",
        "traces": "corpus_trace",
        "steps": "corpus_tracestep",
        "review items": "moderation_reviewitem",
        "batches": "hits_batch",
        "evidence": "corpus_evidence",
        "screens": "corpus_screen",
        "assets": "assets_asset",
    }
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(f"(SELECT count(*) FROM {table})" for table in tables.values()))
        return dict(zip(tables, cursor.fetchone(), strict=True))


# --- Requests -------------------------------------------------------------------------------


def timed_get(client, url):
    """One request, read to its end: (ms, status, bytes, queries, SQL ms)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        started = time.perf_counter()
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        elapsed = (time.perf_counter() - started) * 1000
    sql_ms = sum(float(query["time"]) for query in captured.captured_queries) * 1000
    return elapsed, response.status_code, len(body), len(captured.captured_queries), sql_ms


def measure(client, url, warm):
    try:
        cold_ms, status, size, cold_queries, _ = timed_get(client, url)
    except Exception as error:  # a page being written may still break; report it and go on
        frame = [f for f in traceback.extract_tb(error.__traceback__) if ".venv" not in f.filename][-1:]
        where = f" at {Path(frame[0].filename).relative_to(ROOT)}:{frame[0].lineno}" if frame else ""
        return {"url": url, "error": f"{type(error).__name__}: {error}{where}"}
    if status != 200:
        return {"url": url, "status": status, "cold": cold_ms}
    runs = [timed_get(client, url) for _ in range(warm)]
    times = [run[0] for run in runs]
    return {
        "url": url,
        "status": status,
        "cold": cold_ms,
        "median": statistics.median(times),
        "max": max(times),
        "queries": sorted({run[3] for run in runs} | {cold_queries}),
        "sql": statistics.median(run[4] for run in runs),
        "bytes": size,
    }


def report(result, small=None, recorded=None):
    url = result["label"]
    if "error" in result:
        print(f"{url:<58} raised {result['error'][:200]}")
        return
    if result["status"] != 200:
        note = " (page not there yet)" if result["status"] == 404 else ""
        print(f"{url:<58} {result['status']:>6} {result['cold']:>8.1f}{note}")
        return
    queries = "/".join(str(n) for n in result["queries"])
    before = "/".join(str(n) for n in small) if small else "-"
    verdict = "ok" if result["max"] < TARGET_MS else "OVER"
    if small and small != result["queries"]:
        verdict += " GROWS"
    if recorded:
        verdict = f"×{result['median'] / recorded:.1f}"
    print(
        f"{url:<58} {result['status']:>6} {result['cold']:>8.1f} {result['median']:>8.1f} {result['max']:>8.1f} "
        f"{before:>8} {queries:>8} {result['sql']:>8.1f} {result['bytes']:>10,} {verdict:>6}"
    )


# Every table that can be downloaded as CSV: each page's, and each of the dataset page's.
DATASET_TABLES = ["family", "split_kind", "category", "state", "question_category", "reasoning_type",
                  "screens_per_trace", "screens_per_example"]  # fmt: skip


def urls():
    """(label, url) of every page and CSV table; the label names the busiest worker's page
    the same way whatever their id, so that runs at two sizes can be compared."""
    from django.db.models import Count

    from hits.models import Assignment

    pages = [(url, url) for url in PAGES]
    busiest = Assignment.objects.values("worker").annotate(n=Count("id")).order_by("-n").first()
    if busiest:
        pages.append(("/dashboards/workers/<busiest>/", f"/dashboards/workers/{busiest['worker']}/"))
    found = []
    for label, url in pages:
        found.append((label, url))
        if url == "/dashboards/dataset/":
            found += [(f"{label}?format=csv&table={t}", f"{url}?format=csv&table={t}") for t in DATASET_TABLES]
        elif url != "/dashboards/":  # the overview has no table of its own to download
            joiner = "&" if "?" in url else "?"
            found.append((f"{label}{joiner}format=csv", f"{url}{joiner}format=csv"))
    return found


def run_pages(admin, warm, small=None, recorded=None, quiet=False):
    """Requests every page and CSV table; prints and returns ``{label: result}``. ``small``
    holds the query counts measured on less data, to show beside this run's."""
    from django.test import Client

    client = Client()
    client.force_login(admin)
    results = {}
    if not quiet:
        print(
            f"{'url':<58} {'status':>6} {'cold ms':>8} {'median':>8} {'max ms':>8} {'q small':>8} {'queries':>8} "
            f"{'sql ms':>8} {'bytes':>10}"
        )
    for label, url in urls():
        result = {"label": label, **measure(client, url, warm)}
        results[label] = result
        if not quiet:
            report(result, (small or {}).get(label), (recorded or {}).get(label))
    if not quiet:
        print(
            f"(median and max over {warm} warm requests; sql ms = median time in SQL; q small = queries per request "
            f"on the smaller data; target < {TARGET_MS} ms)"
        )
    return results


def query_counts(results):
    return {label: result.get("queries") for label, result in results.items()}


def flush():
    """Empties every table (and puts back what ``post_migrate`` makes), for the next size."""
    from django.core.cache import cache
    from django.core.management import call_command

    call_command("flush", interactive=False, verbosity=0)
    cache.clear()


# A minute of work between two folds, in SQL: 64 workers submit 7,800 times (the hand-out
# target's 130 cycles a second) and a reviewer decides 1,000 submissions of workers all
# over the table, so that most workers have changes the tallies do not hold yet.
MINUTE_OF_WORK = [
    """
UPDATE hits_assignment a
SET state = 'submitted', submitted_at = now() - random() * interval '60 seconds', ended_at = NULL,
    active_seconds = 20 + floor(random() * 300)::int, answer = '{"answer": "seven"}'::jsonb
FROM (SELECT id FROM hits_assignment WHERE state IN ('returned', 'expired') AND worker_id %% 1000 < 64
      ORDER BY id LIMIT 7800) s
WHERE a.id = s.id
""",
    """
UPDATE hits_assignment a
SET state = 'approved', decided_at = now(), decided_by_id = %(admin)s, pay = 0.20
FROM (SELECT id FROM hits_assignment WHERE state = 'submitted' AND submitted_at < now() - interval '1 hour'
      ORDER BY md5(id::text) LIMIT 1000) s
WHERE a.id = s.id
""",
]


def unfolded_minute(admin):
    """Changes the assignments as a minute of work would, without folding them in."""
    from django.db import connection
    from django.db.models import Q

    from dashboards.models import AssignmentChange, WorkerTotal

    started = time.perf_counter()
    with connection.cursor() as cursor:
        for sql in MINUTE_OF_WORK:
            cursor.execute(sql, {"admin": admin.pk})
    changes = AssignmentChange.objects.count()
    workers = AssignmentChange.objects.values("worker_id").distinct().count()
    looked_up = WorkerTotal.objects.filter(Q(times_changed__gt=0) | Q(submissions_changed__gt=0)).count()
    print(f"a minute of work: {changes:,} changes not folded in, of {workers:,} workers")
    print(f"  ({looked_up:,} of them with a median or latest submission to look up)")
    print(f"  ({time.perf_counter() - started:.1f} s to make)")


def fold():
    from dashboards import services as dashboards

    started = time.perf_counter()
    folded = dashboards.fold_changes()
    print(f"folded {folded:,} changes into the tallies in {time.perf_counter() - started:.2f} s")


# --smoke: two small sizes on the database it is given (a test database: it is flushed).
SMOKE_SIZES = ((2_000, 500), (20_000, 5_000))
# Median warm ms of each page at the smoke's larger size, on the 2-core development machine
# (measured with load average ~3). A page 10× slower than this is a gross regression.
SMOKE_RECORDED_MS = {
    "/dashboards/": 38,
    "/dashboards/batches/": 73,
    "/dashboards/batches/?format=csv": 27,
    "/dashboards/queues/": 24,
    "/dashboards/queues/?format=csv": 34,
    "/dashboards/throughput/": 48,
    "/dashboards/throughput/?format=csv": 72,
    "/dashboards/workers/": 54,
    "/dashboards/workers/?format=csv": 90,
    "/dashboards/workers/?sort=median": 73,
    "/dashboards/workers/?sort=median&format=csv": 93,
    "/dashboards/dataset/": 66,
    **{f"/dashboards/dataset/?format=csv&table={table}": 50 for table in DATASET_TABLES},
    "/dashboards/workers/<busiest>/": 33,
    "/dashboards/workers/<busiest>/?format=csv": 12,
}
SMOKE_SLOWDOWN = 10


def use_given_database():
    """Sets Django up on the database in ``BENCH_DATABASE_URL``, as it is (migrated)."""
    import django

    django.setup()
    from django.conf import settings
    from django.test.utils import override_settings

    plain = {**settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    override_settings(STORAGES=plain).enable()


def smoke(requests):
    """Small and quick: fails only on gross regressions. Returns the failures."""
    if "BENCH_DATABASE_URL" not in os.environ:
        raise SystemExit("--smoke flushes the database it runs on: name it in BENCH_DATABASE_URL (a test database)")
    use_given_database()
    started = time.perf_counter()
    measured = []
    for assignments, qa_pairs in SMOKE_SIZES:
        flush()
        admin = load(assignments=assignments, qa_pairs=qa_pairs, quiet=True)
        print(f"{assignments:,} assignments and {qa_pairs:,} QA pairs:")
        measured.append(run_pages(admin, requests, small=query_counts(measured[-1]) if measured else None,
                                  recorded=SMOKE_RECORDED_MS))  # fmt: skip
    flush()
    small, large = measured
    failures = []
    for label, result in large.items():
        if "error" in result or result["status"] != 200:
            failures.append(f"{label}: {result.get('error') or result['status']}")
            continue
        if small[label].get("queries") != result["queries"]:
            failures.append(
                f"{label}: {small[label].get('queries')} queries on the smaller data, {result['queries']} on the larger"
            )
        recorded = SMOKE_RECORDED_MS.get(label)
        if recorded and result["median"] > SMOKE_SLOWDOWN * recorded:
            failures.append(
                f"{label}: {result['median']:.0f} ms, more than {SMOKE_SLOWDOWN}× the {recorded} ms recorded"
            )
    print(f"\nsmoke run in {time.perf_counter() - started:.0f} s: " + ("passed" if not failures else "FAILED"))
    for failure in failures:
        print(f"  {failure}")
    return failures


def pages_again(requests):
    """The pages on the database an earlier run left, brought up to date first."""
    use_given_database()
    from django.core.management import call_command

    from accounts.models import User
    from dashboards import services as dashboards

    call_command("migrate", verbosity=0)  # a changed tally is rebuilt here
    started = time.perf_counter()
    folded = dashboards.fold_changes()
    print(f"folded {folded:,} changes in {time.perf_counter() - started:.1f} s")
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")  # what autovacuum would have done after such a fold
    print("  " + ", ".join(f"{n:,} {name}" for name, n in counts().items()))
    run_pages(User.objects.get(username="bench-admin"), requests)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assignments", type=int, default=1_000_000)
    parser.add_argument("--qa-pairs", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=5, help="warm requests per page after the cold one")
    keeping = parser.add_mutually_exclusive_group()
    keeping.add_argument("--keep", action="store_true", help="leave the database afterwards (the default)")
    keeping.add_argument("--drop", action="store_true", help="drop the database afterwards")
    keeping.add_argument(
        "--smoke",
        action="store_true",
        help="a quick check (< 60 s) on the database in BENCH_DATABASE_URL, which it flushes: fails (exit 1) "
        "only if a page breaks, its query count grows with the data or it is 10× slower than recorded",
    )
    parser.add_argument(
        "--pages-only",
        action="store_true",
        help="request the pages again on the database an earlier run left (migrated and folded first)",
    )
    args = parser.parse_args()
    if args.smoke:
        try:
            failures = smoke(min(args.requests, 2))
        finally:
            shutil.rmtree(STATIC_ROOT, ignore_errors=True)
        sys.exit(1 if failures else 0)
    if args.pages_only:
        try:
            pages_again(args.requests)
        finally:
            shutil.rmtree(STATIC_ROOT, ignore_errors=True)
        return

    try:
        create_database()
        small = (max(1_000, args.assignments // 100), max(500, args.qa_pairs // 100))
        print(f"query counts on {small[0]:,} assignments and {small[1]:,} QA pairs first", flush=True)
        admin = load(assignments=small[0], qa_pairs=small[1], quiet=True)
        small_counts = query_counts(run_pages(admin, 1, quiet=True))
        flush()
        print(f"loading {args.assignments:,} assignments and {args.qa_pairs:,} QA pairs into {DB_NAME}")
        started = time.perf_counter()
        admin = load(assignments=args.assignments, qa_pairs=args.qa_pairs)
        load_seconds = time.perf_counter() - started

        print()
        print(f"PostgreSQL {DB_NAME}, {os.cpu_count()} cores; loaded in {load_seconds:.1f} s:")
        print("  " + ", ".join(f"{n:,} {name}" for name, n in counts().items()))
        print()
        run_pages(admin, args.requests, small=small_counts)
        print()
        unfolded_minute(admin)
        run_pages(admin, args.requests, small=small_counts)
        fold()
    finally:
        shutil.rmtree(STATIC_ROOT, ignore_errors=True)

    if args.drop:
        from django.db import connections

        connections.close_all()
        psql(f"DROP DATABASE {DB_NAME}")
        print(f"dropped {DB_NAME}")
    else:
        print(f"left {DB_NAME} in place (psql -h 127.0.0.1 -U trailmark {DB_NAME})")


if __name__ == "__main__":
    main()
