"""Puts the project's source folders on the import path.

``platform/`` is a source folder, not a package: a ``platform/__init__.py`` would
shadow the standard library's ``platform`` module, which ``uuid``, Celery and pytest
import. Every entry point imports this module first (``manage.py``, the gunicorn
config, the Celery command line); pytest reads the same list from
``SOURCE_DIRS`` through ``pythonpath`` in ``pyproject.toml``, which a test keeps in step.
"""

import os
import sys
from pathlib import Path

ROOT_DIR = Path(__file__).resolve().parent
SOURCE_DIRS = (".", "platform")

for folder in reversed(SOURCE_DIRS):
    path = str((ROOT_DIR / folder).resolve())
    if path not in sys.path:
        sys.path.insert(0, path)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def __getattr__(name):
    # `celery -A bootstrap:celery_app worker` finds the Celery app through here, so the
    # command line needs no path of its own.
    if name == "celery_app":
        from config.celery import app

        return app
    raise AttributeError(name)
