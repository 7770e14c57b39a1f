"""A release as one zip: streamed in pieces of about a megabyte however big its files,
and a valid archive holding each file byte for byte."""

import hashlib
import io
import os
import zipfile

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone

from releases.archive import CHUNK, archive_name, stream_archive
from releases.models import Release, ReleaseFile

pytestmark = pytest.mark.django_db


def test_a_big_file_goes_out_in_pieces_and_comes_back_whole(admin_user):
    published = Release.objects.create(name="big", major=1, minor=0, patch=0, state="published",
                                       storage_prefix="releases/big/1.0.0/build-1", published_at=timezone.now())  # fmt: skip
    contents = {"records/a.jsonl": os.urandom(5 * CHUNK + 123), "images/x.png": os.urandom(1000), "empty.txt": b""}
    for path, body in contents.items():
        default_storage.save(f"{published.storage_prefix}/{path}", ContentFile(body))
        ReleaseFile.objects.create(
            release=published, path=path, size=len(body), sha256=hashlib.sha256(body).hexdigest()
        )
    chunks = list(stream_archive(release=published, files=published.files.order_by("path")))
    assert max(len(chunk) for chunk in chunks) < 2 * CHUNK  # never the whole file at once
    assert archive_name(published) == "big-1.0.0.zip"
    with zipfile.ZipFile(io.BytesIO(b"".join(chunks))) as archive:
        assert archive.testzip() is None
        assert archive.getinfo("big-1.0.0/images/x.png").compress_type == zipfile.ZIP_STORED
        assert archive.getinfo("big-1.0.0/records/a.jsonl").compress_type == zipfile.ZIP_DEFLATED
        for path, body in contents.items():
            assert archive.read(f"big-1.0.0/{path}") == body
