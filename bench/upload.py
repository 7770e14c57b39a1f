"""Image upload benchmark: POST /api/v1/assets/ against gunicorn + PostgreSQL.

    .venv/bin/python bench/upload.py [--clients 1 8] [--uploads 24] [--workers 3] [--threads 4]
                                     [--hostile 8] [--hostile-seconds 15] [--heavy 8]

Creates a fresh database (trailmark_bench_upload), users with API tokens and a temporary
media folder, starts gunicorn with the production settings, and then:

1. for each client count, that many concurrent clients each upload ``--uploads``
   different ~1 MB PNG screenshots (noise makes every one distinct, so none dedupes)
   over a kept-alive connection; prints uploads per second, MB/s and latency percentiles;
2. uploads two PNGs near the limits (a 20 MB 2600×2600 photo-like square, and a
   1280×30000 full-page capture) one at a time and reports the peak resident memory
   (VmHWM) of the gunicorn worker that handled each, reset just before it, next to the
   size of one decoded copy of the image;
3. worst cases under load: ``--hostile`` clients at once keep sending, for
   ``--hostile-seconds``, files made to cost a decoder the most (a 95 KB PNG of
   1×49,000,000 pixels and a 7000×7100 RGBA PNG, alternately; both must be refused), then ``--heavy`` clients at
   once each send one distinct 1280×30000 page (146 MB decoded, accepted, so the decode
   slots are what bound the memory). Meanwhile one client keeps asking for the light
   ``GET /api/v1/me/``; prints each phase's peak worker RSS, the light request's p50/p95
   against an idle baseline, and the load average. Targets: peak under 1 GB, p95 under 1 s.
"""

import argparse
import http.client
import io
import itertools
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DB_NAME = "trailmark_bench_upload"
MEDIA_ROOT = Path(tempfile.mkdtemp(prefix="trailmark-bench-media-"))
# gunicorn's own log (a refused upload is a logged warning, and this bench sends thousands).
SERVER_LOG = MEDIA_ROOT.with_name(MEDIA_ROOT.name + "-gunicorn.log")
os.environ.update(
    {
        "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", f"postgres://trailmark@127.0.0.1:5432/{DB_NAME}"),
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13"),
        "SECRET_KEY": "bench-secret-key-" + "y" * 40,
        "DEBUG": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "API_WRITE_RATE": "1000000/min",
        "LOG_LEVEL": "ERROR",
        "MEDIA_ROOT": str(MEDIA_ROOT),
        "S3_BUCKET": "",
    }
)

import bootstrap  # noqa: E402,F401  (puts platform/ on the import path)
from assets.tests.samples import handmade_png, rgba_square_png, strip_png  # noqa: E402

MB = 1024 * 1024
PEAK_TARGET_MB = 1024
LIGHT_P95_TARGET_MS = 1000


# --- Test images ------------------------------------------------------------------------


def page(width, height, noise_rows):
    """A white 'page' with a header bar and a band of ``noise_rows`` rows of colour noise
    (incompressible, so it sets the PNG's size and makes every image distinct)."""
    image = Image.new("RGB", (width, height), "white")
    image.paste((30, 80, 150), (0, 0, width, min(height, 72)))
    noise = Image.frombytes("RGB", (width, noise_rows), os.urandom(width * noise_rows * 3))
    image.paste(noise, (0, min(height - noise_rows, 120)))
    return image


def png(image):
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def screenshots(count):
    """``count`` distinct 1280×800 PNGs of about 1 MB."""
    return [png(page(1280, 800, 270)) for _ in range(count)]


def full_pages(count, width=1280, height=30000):
    """``count`` distinct full-page captures, written row by row (Pillow would hold each
    whole): white, with 200 rows of noise that make each one different."""
    white = b"\x00" + b"\xff" * (width * 3)
    return [
        handmade_png(width, height, row=white, rows={y: b"\x00" + os.urandom(width * 3) for y in range(200, 400)})
        for _ in range(count)
    ]


# --- Server ---------------------------------------------------------------------------------


def prepare(users):
    for sql in (f"DROP DATABASE IF EXISTS {DB_NAME}", f"CREATE DATABASE {DB_NAME}"):
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "trailmark", "-d", "postgres", "-qc", sql], check=True)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from accounts import services as accounts

    return [
        accounts.create_api_token(
            user=accounts.create_user(username=f"uploader{n}", password="bench-password-123"), name="bench"
        )[1]
        for n in range(users)
    ]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_gunicorn(port, workers, threads):
    env = {
        **os.environ,
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": str(workers),
        "GUNICORN_THREADS": str(threads),
    }
    command = [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "config.wsgi"]
    with open(SERVER_LOG, "w") as log:
        server = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True, stdout=log, stderr=log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if len(worker_pids(server.pid)) == workers:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return server
            except OSError:
                pass
        time.sleep(0.2)
    os.killpg(server.pid, signal.SIGTERM)
    raise RuntimeError("gunicorn did not start:\n" + SERVER_LOG.read_text()[-3000:])


def worker_pids(master_pid):
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                # the parent pid is the second field after the parenthesised command name
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == master_pid:
                    pids.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return sorted(pids)


def memory_kb(pid, field):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def reset_peak(pid):
    # Writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+).
    Path(f"/proc/{pid}/clear_refs").write_text("5")


# --- Clients --------------------------------------------------------------------------------


class Uploader:
    """One client: a kept-alive connection and an API token."""

    def __init__(self, port, key):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.connection.connect()
        # Headers and body go out in separate writes; without TCP_NODELAY the body
        # would wait on Nagle's algorithm and the figures would measure that stall.
        self.connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.key = key

    def upload(self, data, accept=(200, 201)):
        boundary = uuid.uuid4().hex
        body = b"".join(
            [
                f"--{boundary}\r\n".encode(),
                b'Content-Disposition: form-data; name="file"; filename="screen.png"\r\n',
                b"Content-Type: image/png\r\n\r\n",
                data,
                f"\r\n--{boundary}--\r\n".encode(),
            ]
        )
        headers = {
            "Authorization": f"Token {self.key}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        }
        self.connection.request("POST", "/api/v1/assets/", body, headers)
        response = self.connection.getresponse()
        answer = response.read()
        if response.status not in accept:
            raise RuntimeError(f"upload failed: {response.status} {answer[:300]!r}")
        return response.status, json.loads(answer)

    def get(self, path):
        self.connection.request("GET", path, headers={"Authorization": f"Token {self.key}"})
        response = self.connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"GET {path} failed: {response.status}")

    def close(self):
        self.connection.close()


def run(port, keys, images_per_client):
    latencies, failures, sent = [], [], []
    clients = [Uploader(port, key) for key in keys]
    start = threading.Barrier(len(clients) + 1)

    def loop(client, images):
        start.wait()
        for data in images:
            began = time.perf_counter()
            try:
                status, _body = client.upload(data)
            except RuntimeError as error:
                failures.append(str(error))
                return
            latencies.append(time.perf_counter() - began)
            sent.append(len(data))
            if status != 201:
                failures.append(f"expected a new asset, got {status}")
        client.close()

    threads = [
        threading.Thread(target=loop, args=(client, images))
        for client, images in zip(clients, images_per_client, strict=True)
    ]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.monotonic()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    ms = sorted(value * 1000 for value in latencies)
    return {
        "clients": len(clients),
        "uploads": len(ms),
        "per_second": len(ms) / elapsed,
        "mb_per_second": sum(sent) / MB / elapsed,
        "p50": statistics.median(ms),
        "p95": ms[max(0, round(len(ms) * 0.95) - 1)],
        "max": ms[-1],
        "failures": failures,
    }


def warm(port, keys, master_pid, images):
    """Uploads until every worker has served one: a worker imports the app, and numpy and
    scipy for the perceptual hash, on its first upload, which would skew the first figures."""
    workers = worker_pids(master_pid)
    booted = {pid: memory_kb(pid, "VmRSS") for pid in workers}
    for start in range(0, len(images), len(keys)):
        batch = images[start : start + len(keys)]
        run(port, keys[: len(batch)], [[data] for data in batch])
        if all(memory_kb(pid, "VmRSS") > booted[pid] + 20 * 1024 for pid in workers):
            return
    print("  (not every worker served a warm-up upload; its first figures include imports)")


def peak_memory(port, key, master_pid, data):
    workers = worker_pids(master_pid)
    before = {pid: memory_kb(pid, "VmRSS") for pid in workers}
    for pid in workers:
        reset_peak(pid)
    client = Uploader(port, key)
    began = time.perf_counter()
    status, body = client.upload(data)
    seconds = time.perf_counter() - began
    client.close()
    peaks = {pid: memory_kb(pid, "VmHWM") for pid in workers}
    busiest = max(workers, key=lambda pid: peaks[pid] - before[pid])
    return {
        "status": status,
        "seconds": seconds,
        "body": body,
        "rss_before_mb": before[busiest] / 1024,
        "peak_mb": peaks[busiest] / 1024,
        "all_peaks_mb": [round(peaks[pid] / 1024) for pid in workers],
    }


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[max(0, round(len(ordered) * fraction) - 1)]


class LightClient(threading.Thread):
    """Asks for ``GET /api/v1/me/`` every ``pause`` seconds until stopped; keeps each
    answer's latency in ms."""

    def __init__(self, port, key, pause=0.05):
        super().__init__(daemon=True)
        self.client, self.pause = Uploader(port, key), pause
        self.latencies, self.failures, self.stop = [], [], threading.Event()

    def run(self):
        while not self.stop.is_set():
            began = time.perf_counter()
            try:
                self.client.get("/api/v1/me/")
            except (RuntimeError, OSError, http.client.HTTPException) as error:
                self.failures.append(str(error))
            self.latencies.append((time.perf_counter() - began) * 1000)
            self.stop.wait(self.pause)
        self.client.close()

    def figures(self):
        return {
            "count": len(self.latencies),
            "p50": statistics.median(self.latencies),
            "p95": percentile(self.latencies, 0.95),
            "max": max(self.latencies),
        }


def idle_latency(port, key, seconds=3):
    light = LightClient(port, key)
    light.start()
    time.sleep(seconds)
    light.stop.set()
    light.join()
    return light.figures()


def under_load(port, keys, light_key, master_pid, files_per_client, accept, seconds=None):
    """Sends every client's files at once (over and over for ``seconds``, if given) while
    ``LightClient`` measures; returns the statuses, the light figures, each worker's peak
    RSS (reset just before) and the load average at the end."""
    workers = worker_pids(master_pid)
    for pid in workers:
        reset_peak(pid)
    statuses, failures = [], []
    clients = [Uploader(port, key) for key in keys]
    start = threading.Barrier(len(clients) + 1)

    def loop(client, files):
        start.wait()
        deadline = time.monotonic() + seconds if seconds else None
        for data in itertools.cycle(files) if deadline else files:
            if deadline and time.monotonic() > deadline:
                break
            try:
                statuses.append(client.upload(data, accept=accept)[0])
            except (RuntimeError, OSError, http.client.HTTPException) as error:
                failures.append(str(error))
                break
        client.close()

    threads = [threading.Thread(target=loop, args=pair) for pair in zip(clients, files_per_client, strict=True)]
    light = LightClient(port, light_key)
    light.start()
    time.sleep(0.5)  # the light client's first figures are from before the load
    for thread in threads:
        thread.start()
    began = time.monotonic()
    start.wait()
    for thread in threads:
        thread.join()
    seconds = time.monotonic() - began
    time.sleep(0.2)
    light.stop.set()
    light.join()
    return {
        "statuses": {status: statuses.count(status) for status in sorted(set(statuses))},
        "failures": failures + light.failures,
        "seconds": seconds,
        "light": light.figures(),
        "peaks_mb": {pid: memory_kb(pid, "VmHWM") / 1024 for pid in workers},
        "loadavg": Path("/proc/loadavg").read_text().strip(),
    }


def report_load(name, result):
    light, peak = result["light"], max(result["peaks_mb"].values())
    verdict = "ok" if peak < PEAK_TARGET_MB and light["p95"] < LIGHT_P95_TARGET_MS else "OVER TARGET"
    print(
        f"  {name}: {sum(result['statuses'].values())} uploads in {result['seconds']:.1f} s, HTTP {result['statuses']}"
    )
    print(
        f"    peak worker RSS {peak:.0f} MB (all: {sorted(round(v) for v in result['peaks_mb'].values())} MB); "
        f"GET /api/v1/me/ ×{light['count']}: p50 {light['p50']:.0f} ms, p95 {light['p95']:.0f} ms, "
        f"max {light['max']:.0f} ms → {verdict}"
    )
    print(f"    load average (1, 5, 15 min; running/total; last pid): {result['loadavg']}")
    if result["failures"]:
        print(f"    {len(result['failures'])} failures, first: {result['failures'][0]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--uploads", type=int, default=24, help="uploads per client for each client count")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("GUNICORN_WORKERS", "3")))
    parser.add_argument("--threads", type=int, default=int(os.environ.get("GUNICORN_THREADS", "4")))
    parser.add_argument("--hostile", type=int, default=8, help="clients sending worst-case files at once")
    parser.add_argument("--hostile-seconds", type=float, default=15, help="how long they keep sending")
    parser.add_argument("--heavy", type=int, default=8, help="clients sending one 1280×30000 page each at once")
    args = parser.parse_args()

    keys = prepare(max(*args.clients, args.hostile, args.heavy) + 1)
    light_key = keys.pop()
    print("generating test images…", flush=True)
    warm_up = screenshots(len(keys) * 5)
    rounds = {clients: [screenshots(args.uploads) for _ in range(clients)] for clients in args.clients}
    sizes = [len(data) for per_client in rounds.values() for images in per_client for data in images]
    square = png(page(2600, 2600, 2600))
    full_page = png(page(1280, 30000, 4200))
    strip, rgba_square = strip_png(), rgba_square_png()
    hostile = [[strip, rgba_square] if n % 2 else [rgba_square, strip] for n in range(args.hostile)]
    heavy = [[data] for data in full_pages(args.heavy)]

    port = free_port()
    server = start_gunicorn(port, args.workers, args.threads)
    try:
        warm(port, keys, server.pid, warm_up)
        print(
            f"gunicorn: {args.workers} workers × {args.threads} threads; PostgreSQL; local file storage; "
            f"{os.cpu_count()} cores"
        )
        print(f"screenshots: 1280×800 PNG, {statistics.mean(sizes) / MB:.2f} MB on average, all distinct")
        print(f"{'clients':>7} {'uploads':>7} {'uploads/s':>9} {'MB/s':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
        for clients in args.clients:
            result = run(port, keys[:clients], rounds[clients])
            print(
                f"{result['clients']:>7} {result['uploads']:>7} {result['per_second']:>9.1f} "
                f"{result['mb_per_second']:>6.1f} {result['p50']:>8.0f} {result['p95']:>8.0f} {result['max']:>8.0f}"
            )
            if result["failures"]:
                print(f"  {len(result['failures'])} failures, first: {result['failures'][0]}")

        print("\npeak resident memory of the worker that handled one 20 MB upload (VmHWM, reset just before):")
        for name, data, image_size in (
            ("2600×2600 photo", square, (2600, 2600)),
            ("1280×30000 page", full_page, (1280, 30000)),
        ):
            decoded_mb = image_size[0] * image_size[1] * 4 / MB  # Pillow keeps RGB in 4 bytes a pixel
            result = peak_memory(port, keys[0], server.pid, data)
            print(
                f"  {name}: {len(data) / MB:.1f} MB PNG, {decoded_mb:.0f} MB decoded; HTTP {result['status']} in "
                f"{result['seconds']:.1f} s; worker RSS {result['rss_before_mb']:.0f} MB before, peak "
                f"{result['peak_mb']:.0f} MB (+{result['peak_mb'] - result['rss_before_mb']:.0f} MB); "
                f"all workers' peaks: {result['all_peaks_mb']} MB"
            )

        print(f"\nunder load, while one client asks for GET /api/v1/me/ every 50 ms ({os.cpu_count()} cores):")
        idle = idle_latency(port, light_key)
        print(f"  idle: GET /api/v1/me/ ×{idle['count']}: p50 {idle['p50']:.0f} ms, p95 {idle['p95']:.0f} ms")
        print(
            f"  worst-case files: {len(strip) / 1024:.0f} KB PNG of 1×49,000,000 pixels and "
            f"{len(rgba_square) / 1024:.0f} KB PNG of 7000×7100 RGBA, alternately"
        )
        report_load(
            f"{args.hostile} clients sending worst-case files for {args.hostile_seconds:g} s",
            under_load(
                port, keys[: args.hostile], light_key, server.pid, hostile, accept=(400,), seconds=args.hostile_seconds
            ),
        )
        report_load(
            f"{args.heavy} clients × one distinct 1280×30000 page (146 MB decoded)",
            under_load(port, keys[: args.heavy], light_key, server.pid, heavy, accept=(200, 201, 503)),
        )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)

    from assets.models import Asset

    stored = sum(1 for path in MEDIA_ROOT.rglob("*") if path.is_file())
    print(f"\nassets: {Asset.objects.count()} rows, {stored} files stored (an image and a thumbnail each)")
    shutil.rmtree(MEDIA_ROOT, ignore_errors=True)
    SERVER_LOG.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
