"""Hand-out benchmark: request-next-task + submit round trips against gunicorn + PostgreSQL.

    .venv/bin/python bench/handout.py [--clients 1 16 64] [--seconds 10]

Creates a fresh database (trailmark_bench), users with API tokens and a batch of tasks,
starts gunicorn with the production settings, then for each client count runs that
many concurrent clients, each looping "POST /assignments/ then POST …/submit/" over a
kept-alive connection. Prints cycles per second and cycle latency percentiles, and
checks afterwards that no task was handed out twice.
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
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DB_NAME = "trailmark_bench"
os.environ.update(
    {
        "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", f"postgres://trailmark@127.0.0.1:5432/{DB_NAME}"),
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
        "SECRET_KEY": "bench-secret-key-" + "x" * 40,
        "DEBUG": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "API_WRITE_RATE": "1000000/min",
        "LOG_LEVEL": "ERROR",
    }
)

import bootstrap  # noqa: E402,F401


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def prepare(users, tasks):
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "trailmark", "-d", "postgres", "-qc", f"DROP DATABASE IF EXISTS {DB_NAME}"],
        check=True,
    )
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "trailmark", "-d", "postgres", "-qc", f"CREATE DATABASE {DB_NAME}"],
        check=True,
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from accounts import services as accounts
    from hits import services

    keys = []
    for n in range(users):
        user = accounts.create_user(username=f"bench{n}", password="bench-password-123")
        keys.append(accounts.create_api_token(user=user, name="bench")[1])
    batch = services.create_batch(name="Bench", kind="demo_question", reward="0.10")
    payloads = [{"passage": f"Passage {i}", "question": f"Question {i}?"} for i in range(tasks)]
    services.add_tasks(batch=batch, payloads=payloads, assignments_wanted=1)
    services.open_batch(batch=batch)
    return keys, batch.pk


def start_server(port, workers, threads):
    env = {
        **os.environ,
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": str(workers),
        "GUNICORN_THREADS": str(threads),
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "config.wsgi"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("gunicorn did not start")


def client_loop(port, key, batch_id, stop_at, latencies, failures):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.connect()
    # http.client writes headers and body separately; without TCP_NODELAY the body
    # waits on Nagle's algorithm and the benchmark would measure the client's stall.
    connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    headers = {"Authorization": f"Token {key}", "Content-Type": "application/json"}
    request_body = json.dumps({"batch": batch_id})
    answer = json.dumps({"answer": {"answer": "seven", "confidence": "high"}})
    while time.monotonic() < stop_at:
        started = time.perf_counter()
        connection.request("POST", "/api/v1/assignments/", request_body, headers)
        response = connection.getresponse()
        body = response.read()
        if response.status not in (200, 201):
            failures.append((response.status, body[:200]))
            return
        assignment_id = json.loads(body)["id"]
        connection.request("POST", f"/api/v1/assignments/{assignment_id}/submit/", answer, headers)
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            failures.append((response.status, body[:200]))
            return
        latencies.append(time.perf_counter() - started)
    connection.close()


def run(port, keys, batch_id, clients, seconds):
    latencies, failures = [], []
    stop_at = time.monotonic() + seconds
    threads = [
        threading.Thread(target=client_loop, args=(port, keys[i], batch_id, stop_at, latencies, failures))
        for i in range(clients)
    ]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    if failures:
        print(f"  {len(failures)} clients failed, first: {failures[0]}")
    latencies.sort()
    ms = [value * 1000 for value in latencies]
    return {
        "clients": clients,
        "cycles": len(ms),
        "per_second": len(ms) / elapsed,
        "p50": statistics.median(ms),
        "p95": ms[int(len(ms) * 0.95) - 1],
        "p99": ms[int(len(ms) * 0.99) - 1],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--tasks", type=int, default=40000)
    parser.add_argument("--workers", type=int, default=int(os.environ.get("GUNICORN_WORKERS", "3")))
    parser.add_argument("--threads", type=int, default=int(os.environ.get("GUNICORN_THREADS", "4")))
    args = parser.parse_args()

    keys, batch_id = prepare(max(4, *args.clients), args.tasks)  # the warm-up runs 4 clients
    port = _free_port()
    server = start_server(port, args.workers, args.threads)
    try:
        run(port, keys, batch_id, 4, 2)  # warm-up: workers import, connections open
        print(f"gunicorn: {args.workers} workers × {args.threads} threads; PostgreSQL; {os.cpu_count()} cores")
        print(f"{'clients':>7} {'cycles':>7} {'cycles/s':>9} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
        for clients in args.clients:
            result = run(port, keys, batch_id, clients, args.seconds)
            print(
                f"{result['clients']:>7} {result['cycles']:>7} {result['per_second']:>9.1f} "
                f"{result['p50']:>8.1f} {result['p95']:>8.1f} {result['p99']:>8.1f}"
            )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)

    from django.db.models import Count

    from hits.models import Assignment

    doubled = Assignment.objects.values("task").annotate(n=Count("id")).filter(n__gt=1).count()
    print(f"tasks handed out more than once: {doubled}")


if __name__ == "__main__":
    main()
