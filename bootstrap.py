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

# First on the path, even when already on it further back (the virtual environment's
# .pth file puts them there for tools like lint-imports): a script's own folder, which
# Python puts first, must not shadow an app (bench/mining.py and the mining app).
for folder in reversed(SOURCE_DIRS):
    path = str((ROOT_DIR / folder).resolve())
    while path in sys.path:
        sys.path.remove(path)
    sys.path.insert(0, path)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def __getattr__(name):
    # `celery -A bootstrap:celery_app worker` finds the Celery app through here, so the
    # command line needs no path of its own.
    if name == "celery_app":
        from config.celery import app

        return app
    raise AttributeError(name)
