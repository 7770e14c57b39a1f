"""Building releases in the test process and reading what they wrote."""

import json

from django.core.files.storage import default_storage

from releases import build, services
from releases.models import Release


def build_now(release):
    """Starts the build and runs it here (the queued task's on-commit never fires in a
    test transaction); returns the release as it ended."""
    release = services.start_build(release=release)
    build.run_build(release_id=release.pk, attempt=release.attempt)
    return Release.objects.get(pk=release.pk)


def release(admin, *, name="trail", version="1.0.0", **fields):
    fields.setdefault("families", ["webquest", "webqa", "webvln"])
    return services.create_release(name=name, version=version, created_by=admin, **fields)


def read(release, path):
    with default_storage.open(f"{release.storage_prefix}/{path}", "rb") as handle:
        return handle.read()


def read_json(release, path):
    return json.loads(read(release, path))


def paths(release):
    return set(release.files.values_list("path", flat=True))
