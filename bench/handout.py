"""Hand-out benchmark: request-next-task + submit round trips against gunicorn + PostgreSQL.

    .venv/bin/python bench/handout.py [--clients 1 16 64] [--seconds 10] [--runs 3]
    .venv/bin/python bench/handout.py --smoke          # under a minute; exits 1 on a gross regression

Creates a fresh database (trailmark_bench; ``--database-url`` names another, and
``--keep-database`` uses it as it is, migrated), users with API tokens and two batches:
``demo_question`` (a passage and a question; a two-field answer) and ``six_image_qa``
(six cleared pool images; three QA pairs with their image evidence, written to the corpus
on submission). Starts gunicorn with the production settings (gunicorn.conf.py), then for
each kind and client count runs that many concurrent clients, each looping "POST
/assignments/ then POST …/submit/" over a kept-alive connection. Prints cycles per second,
cycle latency percentiles, the CPU per cycle of gunicorn's processes ("server ms") and
of the clients themselves ("client ms": they share the cores with the server), and every
failed request by HTTP status, and checks afterwards that no task was handed out beyond
the assignments it wants.

The write throttle is raised for the run (``API_WRITE_RATE``): at the production rate of
120 writes a minute a client would be refused after a few seconds.

Queries per cycle are counted in this process through Django's test client (the same
views and middleware, no gunicorn) before the server starts.
"""

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATABASE_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://trailmark@127.0.0.1:5432/trailmark_bench")
THROTTLE = "1000000/min"
os.environ.update(
    {
        "DATABASE_URL": DATABASE_URL,
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
        "SECRET_KEY": "bench-secret-key-" + "x" * 40,
        "DEBUG": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "API_WRITE_RATE": THROTTLE,
        "LOG_LEVEL": "ERROR",
        "MEDIA_ROOT": os.environ.get("MEDIA_ROOT") or tempfile.mkdtemp(prefix="trailmark-bench-media-"),
    }
)

import bootstrap  # noqa: E402,F401

KINDS = ("demo_question", "six_image_qa")

# Figures the smoke run compares against (see bench/README.md for when and how they were
# taken). The smoke run fails on more queries per cycle than these, on any task handed out
# beyond its wanted assignments, or on cycles ten times slower than these. Change them
# with the code that changes them.
RECORDED_QUERIES_PER_CYCLE = {"demo_question": 4, "six_image_qa": 36}
RECORDED_CYCLES_PER_SECOND = {"demo_question": 15.0, "six_image_qa": 3.0}  # 1 client, a very busy machine
SLOWDOWN_LIMIT = 10


def _database_name():
    return urlsplit(DATABASE_URL).path.lstrip("/")


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _psql(statement):
    parts = urlsplit(DATABASE_URL)
    subprocess.run(
        ["psql", "-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432), "-U", parts.username or "trailmark",
         "-d", "postgres", "-qc", statement],
        check=True,
    )  # fmt: skip


def prepare(*, users, tasks, keep_database):
    """Users with API tokens and an open batch of each kind; returns ``(keys, batches)``,
    ``batches`` mapping each kind to its batch id and what a client needs to answer."""
    if not keep_database:
        _psql(f"DROP DATABASE IF EXISTS {_database_name()}")
        _psql(f"CREATE DATABASE {_database_name()}")
    import django

    django.setup()
    from django.core.management import call_command

    if not keep_database:
        call_command("migrate", verbosity=0)
    from accounts import services as accounts
    from hits import services
    from tests.pools import image_group, pool_images

    stamp = f"{time.time_ns():x}"  # names of their own in a database kept from before
    keys = []
    for n in range(users):
        user = accounts.create_user(username=f"bench-{stamp}-{n}", password="bench-password-123")
        keys.append(accounts.create_api_token(user=user, name="bench")[1])

    def open_batch(kind, payloads):
        batch = services.create_batch(name=f"Bench {kind} {stamp}", kind=kind, reward="0.10")
        for start in range(0, len(payloads), 10000):
            services.add_tasks(batch=batch, payloads=payloads[start : start + 10000], assignments_wanted=1)
        return services.open_batch(batch=batch).pk

    demo = [{"passage": f"Passage {i}", "question": f"Question {i}?"} for i in range(tasks)]
    groups = [image_group(pool_images(6, topic=f"bench {stamp} {g}")) for g in range(4)]
    images = {group.pk: [image.pk for image in group.images()] for group in groups}
    heavy = [{"group": groups[i % len(groups)].pk} for i in range(tasks // 4)]
    batches = {
        "demo_question": {"id": open_batch("demo_question", demo)},
        "six_image_qa": {"id": open_batch("six_image_qa", heavy), "images": images},
    }
    # Vacuumed and analysed now, as autovacuum would have done long before on a server in
    # use: otherwise it does so during the first runs, on the cores the runs measure.
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    return keys, batches


def answer_for(kind, batch, assignment, n):
    """A good submission for ``assignment`` (the hand-out's response)."""
    if kind == "demo_question":
        return {"answer": {"answer": "seven", "confidence": "high"}}
    images = batch["images"][assignment["task"]["payload"]["group"]]
    pairs = [
        {
            "images": chosen,
            "question": f"Is the lantern room of lighthouse {n}-{i} painted the same colour as its door?",
            "answer": f"Yes, lighthouse {n}-{i} has a red lantern room and a red door.",
            "keyword_answer": "yes",
        }
        for i, chosen in enumerate([images[0:2], images[2:3], images[3:4]])
    ]
    checklist = ["not_simple_fact", "not_text_searchable", "not_image_bound", "meaningful_alone"]
    return {"answer": {"pairs": pairs, "checklist": checklist}}


def count_queries(kind, batch, key, cycles=3):
    """Queries per hand-out + submit cycle through the whole Django stack, in process."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Token {key}")

    def cycle(n):
        handed = client.post("/api/v1/assignments/", {"batch": batch["id"]}, content_type="application/json")
        assert handed.status_code in (200, 201), handed.content
        assignment = handed.json()
        body = answer_for(kind, batch, assignment, f"q{n}")
        done = client.post(f"/api/v1/assignments/{assignment['id']}/submit/", body, content_type="application/json")
        assert done.status_code == 200, done.content

    cycle(0)  # the token's first use is read from the database and cached
    with CaptureQueriesContext(connection) as queries:
        for n in range(1, cycles + 1):
            cycle(n)
    return len(queries.captured_queries) / cycles


def start_server(port, workers, threads, worker_class):
    env = {
        **os.environ,
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        **({"GUNICORN_WORKERS": str(workers)} if workers else {}),
        **({"GUNICORN_THREADS": str(threads)} if threads else {}),
        **({"GUNICORN_WORKER_CLASS": worker_class} if worker_class else {}),
    }
    # Without a control socket: the default one is shared by every gunicorn of the machine.
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "--no-control-socket", "config.wsgi"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            if server.poll() is not None:
                raise RuntimeError("gunicorn exited at start") from None
            time.sleep(0.2)
    raise RuntimeError("gunicorn did not start")


def stop_server(server):
    """Quick shutdown (SIGQUIT to the master: nothing is left to finish), and the whole
    process group killed if it has not gone in 15 s."""
    server.send_signal(signal.SIGQUIT)
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=15)


class HttpClient:
    """A kept-alive HTTP/1.1 connection that sends a request as one write and reads the
    answer by its ``Content-Length``: the least a client can do, so that the benchmark's
    own CPU (which shares the machine's cores with gunicorn and PostgreSQL, and is on the
    path of every cycle) is not what it measures. ``http.client`` parses each answer's
    headers with the ``email`` package: ~0.8 ms of CPU a cycle against ~0.2 ms here.
    Anything but a ``Content-Length`` answer is an error (raised as ``http.client``'s)."""

    def __init__(self, port, key):
        self.port = port
        self.head = f"Host: 127.0.0.1:{port}\r\nAuthorization: Token {key}\r\nContent-Type: application/json\r\n"
        self.sock, self.buffer = None, b""

    def connect(self):
        self.close()
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def close(self):
        if self.sock is not None:
            self.sock.close()
        self.sock, self.buffer = None, b""

    def post(self, path, body):
        """``(status, body)`` of ``POST path`` with the JSON text ``body``."""
        if self.sock is None:
            self.connect()
        data = body.encode()
        self.sock.sendall(f"POST {path} HTTP/1.1\r\n{self.head}Content-Length: {len(data)}\r\n\r\n".encode() + data)
        while (end := self.buffer.find(b"\r\n\r\n")) < 0:
            self._receive()
        head, self.buffer = self.buffer[:end], self.buffer[end + 4 :]
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        length, closing = None, False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection" and value.strip().lower() == b"close":
                closing = True
        if length is None:
            raise http.client.HTTPException(f"an answer without Content-Length: {head[:200]!r}")
        while len(self.buffer) < length:
            self._receive()
        answer, self.buffer = self.buffer[:length], self.buffer[length:]
        if closing:
            self.close()
        return status, answer

    def _receive(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise http.client.RemoteDisconnected("the server closed the connection")
        self.buffer += chunk


def client_loop(port, key, kind, batch, stop_at, latencies, failures, client_no, cpu):
    """One client: hand-out then submit until ``stop_at``. A refused request is counted
    by its status and the client goes on (a refused hand-out after a pause). Adds the
    thread's CPU seconds to ``cpu``."""
    began = time.thread_time()
    client = HttpClient(port, key)
    request_body = json.dumps({"batch": batch["id"]})
    n = 0
    while time.monotonic() < stop_at:
        started = time.perf_counter()
        try:
            status, body = client.post("/api/v1/assignments/", request_body)
            if status not in (200, 201):
                failures[("hand-out", status)] += 1
                time.sleep(0.05)
                continue
            assignment = json.loads(body)
            n += 1
            answer = json.dumps(answer_for(kind, batch, assignment, f"{client_no}-{n}-{time.time_ns()}"))
            status, _ = client.post(f"/api/v1/assignments/{assignment['id']}/submit/", answer)
        except (OSError, http.client.HTTPException) as error:
            failures[("connection", type(error).__name__)] += 1
            client.close()
            continue
        if status != 200:
            failures[("submit", status)] += 1
            continue
        latencies.append(time.perf_counter() - started)
    client.close()
    cpu.append(time.thread_time() - began)


def _cpu_seconds(pid):
    """CPU seconds (user + system) of process ``pid`` and its children now alive."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return float("nan")  # not Linux: no figure
    for process in [str(pid), *children]:
        try:
            fields = Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def run(port, keys, kind, batch, clients, seconds, server_pid=None):
    latencies, failures, cpu = [], Counter(), []
    server_cpu = _cpu_seconds(server_pid) if server_pid else float("nan")
    stop_at = time.monotonic() + seconds
    threads = [
        threading.Thread(
            target=client_loop, args=(port, keys[i], kind, batch, stop_at, latencies, failures, i, cpu), daemon=True
        )
        for i in range(clients)
    ]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    server_cpu = _cpu_seconds(server_pid) - server_cpu if server_pid else float("nan")
    ms = sorted(value * 1000 for value in latencies)

    def percentile(share):
        return ms[max(0, int(len(ms) * share) - 1)] if ms else float("nan")

    return {
        "kind": kind,
        "clients": clients,
        "cycles": len(ms),
        "per_second": len(ms) / elapsed,
        "p50": statistics.median(ms) if ms else float("nan"),
        "p95": percentile(0.95),
        "p99": percentile(0.99),
        "failures": failures,
        "client_cpu_ms": 1000 * sum(cpu) / len(ms) if ms else float("nan"),
        "server_cpu_ms": 1000 * server_cpu / len(ms) if ms else float("nan"),
        "load": os.getloadavg()[0],
    }


def over_wanted(batch_ids):
    """Tasks of ``batch_ids`` holding more live assignments than they want (or one worker
    twice): a duplicate hand-out."""
    from django.db.models import Count, F, Q

    from hits.models import Assignment, Task

    live = Q(assignments__state__in=Assignment.SLOT_STATES)
    beyond = (
        Task.objects.filter(batch_id__in=batch_ids)
        .annotate(live=Count("assignments", filter=live))
        .filter(live__gt=F("assignments_wanted"))
        .count()
    )
    twice = (
        Assignment.objects.filter(batch_id__in=batch_ids)
        .values("task", "worker")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .count()
    )
    return beyond + twice


def _row(result):
    failed = ", ".join(f"{what} {status}: {n}" for (what, status), n in sorted(result["failures"].items(), key=str))
    return (
        f"{result['kind']:>13} {result['clients']:>7} {result['cycles']:>7} {result['per_second']:>9.1f} "
        f"{result['p50']:>8.1f} {result['p95']:>8.1f} {result['p99']:>8.1f} {result['server_cpu_ms']:>10.2f} "
        f"{result['client_cpu_ms']:>10.2f} "
        f"{result['load']:>6.2f}  {failed or '-'}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--runs", type=int, default=1, help="runs of each figure; the median is reported")
    parser.add_argument("--tasks", type=int, default=40000)
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: gunicorn.conf.py's)")
    parser.add_argument("--threads", type=int, help="threads per worker (default: gunicorn.conf.py's)")
    parser.add_argument("--worker-class", help="gunicorn worker class (default: gunicorn.conf.py's)")
    parser.add_argument("--database-url", help="the database to use instead of trailmark_bench")
    parser.add_argument("--keep-database", action="store_true", help="use the database as it is (migrated)")
    parser.add_argument(
        "--smoke", action="store_true", help="a short run (under a minute) that fails only on gross regressions"
    )
    args = parser.parse_args()
    if args.database_url:
        global DATABASE_URL
        DATABASE_URL = os.environ["DATABASE_URL"] = args.database_url
    if args.smoke:
        args.clients, args.seconds, args.runs, args.tasks = [1, 4], 2, 1, 1000
        args.workers = args.workers or 2

    began = time.monotonic()
    keys, batches = prepare(users=max(4, *args.clients), tasks=args.tasks, keep_database=args.keep_database)
    print(f"write throttle raised to {THROTTLE} for the run (API_WRITE_RATE); production allows 120/min")
    problems = []
    for kind in args.kinds:
        queries = count_queries(kind, batches[kind], keys[-1])
        limit = RECORDED_QUERIES_PER_CYCLE[kind]
        print(f"{kind}: {queries:.1f} queries per cycle (recorded: {limit})")
        if queries > limit:
            problems.append(f"{kind} takes {queries:.1f} queries per cycle; recorded {limit}")

    port = _free_port()
    server = start_server(port, args.workers, args.threads, args.worker_class)
    results = []
    try:
        for kind in args.kinds:
            run(port, keys, kind, batches[kind], 4, 0.5 if args.smoke else 2)  # warm-up: imports, connections
        print(f"gunicorn.conf.py{' with ' + vars(args)['worker_class'] if args.worker_class else ''}; "
              f"workers {args.workers or 'default'}, threads {args.threads or 'default'}; PostgreSQL; "
              f"{os.cpu_count()} cores")  # fmt: skip
        print(f"{'kind':>13} {'clients':>7} {'cycles':>7} {'cycles/s':>9} {'p50 ms':>8} {'p95 ms':>8} "
              f"{'p99 ms':>8} {'server ms':>10} {'client ms':>10} {'load':>6}  failed requests")  # fmt: skip
        for kind in args.kinds:
            for clients in args.clients:
                runs = [
                    run(port, keys, kind, batches[kind], clients, args.seconds, server_pid=server.pid)
                    for _ in range(args.runs)
                ]
                for result in runs if args.runs > 1 else []:
                    print("  run: " + _row(result))
                median = sorted(runs, key=lambda result: result["per_second"])[len(runs) // 2]
                results.append(median)
                print(_row(median) + (f"  (median of {args.runs})" if args.runs > 1 else ""))
    finally:
        stop_server(server)

    doubled = over_wanted([batch["id"] for batch in batches.values()])
    print(f"tasks handed out beyond their wanted assignments: {doubled}")
    if doubled:
        problems.append(f"{doubled} tasks handed out beyond their wanted assignments")
    for result in results:
        floor = RECORDED_CYCLES_PER_SECOND[result["kind"]] / SLOWDOWN_LIMIT
        if result["clients"] == 1 and result["per_second"] < floor:
            problems.append(
                f"{result['kind']}: {result['per_second']:.1f} cycles/s with 1 client, under a tenth of the recorded "
                f"{RECORDED_CYCLES_PER_SECOND[result['kind']]}"
            )
    print(f"took {time.monotonic() - began:.0f} s")
    if problems:
        print("REGRESSION: " + "; ".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
