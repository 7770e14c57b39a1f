"""gunicorn settings for production (`gunicorn -c gunicorn.conf.py config.wsgi`)."""

import os

import bootstrap  # noqa: F401  (puts platform/ on the import path)

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "3"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gthread")
keepalive = 5
timeout = 60
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
