"""Trace ingestion benchmark: one 16-step trace with ~1 MB screenshots, uploaded the way
the extension does it (create, then each step in order, then finish), end to end on
loopback against gunicorn + PostgreSQL.

    .venv/bin/python bench/trace_upload.py [--steps 16] [--runs 5]

Reuses bench/upload.py's database, media folder, screenshots and gunicorn start-up.
"""

import argparse
import http.client
import json
import os
import signal
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import upload as upload_bench  # noqa: E402  (sets the environment before Django loads)


def multipart(fields, file_field, file_name, data):
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{file_name}"\r\n'
        "Content-Type: image/png\r\n\r\n".encode()
    )
    parts.append(data + f"\r\n--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def upload_trace(port, key, shots):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Token {key}"}

    def call(method, path, body, content_type):
        connection.request(method, path, body, {**headers, "Content-Type": content_type})
        response = connection.getresponse()
        payload = response.read()
        if response.status not in (200, 201):
            raise RuntimeError(f"{path}: {response.status} {payload[:300]!r}")
        return json.loads(payload)

    began = time.perf_counter()
    trace = call(
        "POST",
        "/api/v1/traces/",
        json.dumps({"client_id": str(uuid.uuid4()), "category": "shopping"}),
        "application/json",
    )
    step_times = []
    for position, data in enumerate(shots):
        step = {
            "client_id": str(uuid.uuid4()), "position": position, "url": f"https://www.amazon.com/page/{position}",
            "title": f"Page {position}", "captured_at": "2026-11-29T14:00:00Z", "viewport": {"width": 1280, "height": 800},
            "action": {"type": "click", "target": {"tag": "a", "text": "Next", "bbox": [1, 2, 3, 4]}},
            "clickables": [{"tag": "a", "text": f"Link {n}", "bbox": [n, n, 50, 20]} for n in range(40)],
        }  # fmt: skip
        body, content_type = multipart({"step": json.dumps(step)}, "screenshot", "step.png", data)
        started = time.perf_counter()
        call("POST", f"/api/v1/traces/{trace['id']}/steps/", body, content_type)
        step_times.append(time.perf_counter() - started)
    call("POST", f"/api/v1/traces/{trace['id']}/finish/", json.dumps({"step_count": len(shots)}), "application/json")
    connection.close()
    return time.perf_counter() - began, step_times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()

    (key,) = upload_bench.prepare(1)
    from collection.catalogue import import_sites

    import_sites(text="category,name,url\nShopping,Amazon,https://www.amazon.com/\n")
    print(f"making {args.steps * (args.runs + 1)} distinct screenshots …", flush=True)
    shots = upload_bench.screenshots(args.steps * (args.runs + 1))
    size = statistics.mean(len(s) for s in shots) / upload_bench.MB
    port = upload_bench.free_port()
    server = upload_bench.start_gunicorn(port, args.workers, args.threads)
    try:
        upload_trace(port, key, shots[: args.steps])  # warm-up
        totals, steps = [], []
        for run in range(1, args.runs + 1):
            total, step_times = upload_trace(port, key, shots[run * args.steps : (run + 1) * args.steps])
            totals.append(total)
            steps.extend(step_times)
        steps.sort()
        print(f"gunicorn {args.workers}×{args.threads}, PostgreSQL, local storage; {os.cpu_count()} cores")
        print(f"{args.steps}-step trace, screenshots of {size:.2f} MB on average, {args.runs} runs")
        print(
            f"end to end: median {statistics.median(totals):.2f} s, best {min(totals):.2f} s, worst {max(totals):.2f} s"
        )
        print(
            f"per step:   p50 {statistics.median(steps) * 1000:.0f} ms, p95 {steps[int(len(steps) * 0.95) - 1] * 1000:.0f} ms"
        )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
