"""Writing a release's files to Django's default storage (local folder or S3), one file
at a time: each is spooled to a temporary file on disk while its SHA-256 is computed, then
handed to storage, which streams it (S3 in multipart chunks). Nothing is held in memory
but a small buffer of each open file's last writes.

Stored files (screenshots, pool images) are copied in with their hash checked on the way;
in a local folder a release's copy is a hard link to the stored file when both are on one
file system (stored files never change: a changed image is a new file under a new hash).
"""

import hashlib
import os
import shutil
import tempfile

from django.core.files import File
from django.core.files.storage import default_storage

CHUNK = 1024 * 1024
# Writes are gathered up to this size before they reach the hash and the spool file:
# a release file is written one record (a short line) at a time.
BUFFER = 256 * 1024


class OutputFile:
    """A binary file being written; ``write`` takes bytes or text (UTF-8)."""

    def __init__(self, path):
        self.path = path
        self.handle = tempfile.TemporaryFile()  # noqa: SIM115 (closed by ReleaseFiles.close)
        self.digest = hashlib.sha256()
        self.size = 0
        self.pending, self.pending_size = [], 0

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.pending.append(data)
        self.pending_size += len(data)
        self.size += len(data)
        if self.pending_size >= BUFFER:
            self.flush()

    def flush(self):
        if self.pending:
            data = b"".join(self.pending)
            self.handle.write(data)
            self.digest.update(data)
            self.pending, self.pending_size = [], 0

    def tell(self):
        return self.size


class CopiedFile:
    """A stored file copied (or linked) into the release: its path, size and hash."""

    def __init__(self, path, size, sha256):
        self.path, self.size, self.sha256 = path, size, sha256


class ReleaseFiles:
    """The files of one build, under ``prefix`` in storage; remembers each file's size and
    hash for the manifest."""

    def __init__(self, prefix):
        self.prefix = prefix.rstrip("/")
        self.written = {}

    def open(self, path):
        return OutputFile(path)

    def close(self, output):
        output.flush()
        output.handle.seek(0)
        self._save(output.path, output.handle)
        output.handle.close()
        self.written[output.path] = {"path": output.path, "size": output.size, "sha256": output.digest.hexdigest()}

    def write_bytes(self, path, data):
        output = self.open(path)
        output.write(data)
        self.close(output)
        return output

    def copy_from_storage(self, path, key, *, expected_sha256=None):
        """Copies a stored file into the release, checking its hash on the way."""
        source, target = _local_path(key), _local_path(f"{self.prefix}/{path}")
        if source is not None and target is not None:
            return self._link(path, key, source, target, expected_sha256)
        output = self.open(path)
        with default_storage.open(key, "rb") as source:
            while chunk := source.read(CHUNK):
                output.write(chunk)
        output.flush()
        if expected_sha256 and output.digest.hexdigest() != expected_sha256:
            output.handle.close()
            raise ValueError(f"The stored file {key} does not match its hash {expected_sha256}.")
        self.close(output)
        return output

    def _link(self, path, key, source, target, expected_sha256):
        digest, size = hashlib.sha256(), 0
        with open(source, "rb") as handle:
            while chunk := handle.read(CHUNK):
                digest.update(chunk)
                size += len(chunk)
        sha = digest.hexdigest()
        if expected_sha256 and sha != expected_sha256:
            raise ValueError(f"The stored file {key} does not match its hash {expected_sha256}.")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        try:
            os.link(source, target)
        except FileExistsError:
            raise RuntimeError(f"Release file {self.prefix}/{path} already existed in storage.") from None
        except OSError:  # another file system, or links not allowed: a copy
            with open(source, "rb") as handle, open(target, "xb") as copy:
                shutil.copyfileobj(handle, copy, CHUNK)
        self.written[path] = {"path": path, "size": size, "sha256": sha}
        return CopiedFile(path, size, sha)

    def _save(self, path, handle):
        key = f"{self.prefix}/{path}"
        saved = default_storage.save(key, File(handle, name=path))
        if saved != key:  # storage renamed it: this prefix was written before
            raise RuntimeError(f"Release file {key} already existed in storage (saved as {saved}).")

    def files(self):
        return [self.written[path] for path in sorted(self.written)]


def _local_path(key):
    """Where ``key`` is on this machine's disk, when storage is a local folder; else None."""
    try:
        return default_storage.path(key)
    except NotImplementedError:
        return None


def delete_prefix(prefix):
    """Deletes every stored file under ``prefix`` (a failed or superseded build's files)."""
    prefix = prefix.rstrip("/")
    try:
        directories, files = default_storage.listdir(prefix)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in files:
        default_storage.delete(f"{prefix}/{name}")
    for name in directories:
        delete_prefix(f"{prefix}/{name}")
