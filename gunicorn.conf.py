"""gunicorn settings for production (`gunicorn -c gunicorn.conf.py config.wsgi`).

Workers: gthread, 2 processes × 8 threads, chosen for the 2-core machines Trailmark runs
on by `bench/handout.py` (request a task + submit, 1, 16 and 64 clients; figures in
bench/README.md). A hand-out or a submission spends most of its time waiting on
PostgreSQL and Redis, not on the CPU (about 2 ms of gunicorn's CPU per request, its own
parsing included, since the lean path, hits/fastpath.py): one process per core keeps
both cores busy, and its threads fill the waits. In the first runs 2 × 8 and 4 × 4 came out best and close; 3 × 4, 5 × 2
and 5 sync workers served fewer cycles. Measured again with the lean path (load 5–7):
2 × 8, 2 × 4, 4 × 4 and 4 sync workers came within the noise of each other at 1 and 16
clients, and sync's p95 at 64 clients was the worst (1.1 s against 0.7–0.8 s). 2 × 8
holds half the memory of 4 × 4 (~200 MB per process); sync workers also drop the
kept-alive connections API clients reuse. Override with GUNICORN_WORKERS, GUNICORN_THREADS and
GUNICORN_WORKER_CLASS for a bigger machine (workers = cores is the rule to keep).
"""

import gc
import os

import bootstrap  # noqa: F401  (puts platform/ on the import path)

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gthread")
keepalive = 5
timeout = 60
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
# Each worker marks itself alive by touching a file whenever its loop wakes, i.e. on every
# request: on a disk's file system that is an inode write each time, in memory nothing.
worker_tmp_dir = os.environ.get("GUNICORN_WORKER_TMP_DIR") or ("/dev/shm" if os.access("/dev/shm", os.W_OK) else None)


def post_worker_init(worker):
    """Once a worker has loaded Django and the project (tens of thousands of objects that
    live as long as it does), the garbage collector stops scanning them: each collection
    then walks only what requests made. ~10% of a hand-out cycle's CPU in process."""
    gc.collect()
    gc.freeze()
