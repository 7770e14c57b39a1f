"""Writing a release's files to Django's default storage (local folder or S3), one file
at a time: each is spooled to a temporary file on disk while its SHA-256 is computed, then
handed to storage, which streams it (S3 in multipart chunks). Nothing is held in memory."""

import hashlib
import tempfile

from django.core.files import File
from django.core.files.storage import default_storage

CHUNK = 1024 * 1024


class OutputFile:
    """A binary file being written; ``write`` takes bytes or text (UTF-8)."""

    def __init__(self, path):
        self.path = path
        self.handle = tempfile.TemporaryFile()  # noqa: SIM115 (closed by ReleaseFiles.close)
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.handle.write(data)
        self.digest.update(data)
        self.size += len(data)

    def tell(self):
        return self.size


class ReleaseFiles:
    """The files of one build, under ``prefix`` in storage; remembers each file's size and
    hash for the manifest."""

    def __init__(self, prefix):
        self.prefix = prefix.rstrip("/")
        self.written = {}

    def open(self, path):
        return OutputFile(path)

    def close(self, output):
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
        output = self.open(path)
        with default_storage.open(key, "rb") as source:
            while chunk := source.read(CHUNK):
                output.write(chunk)
        if expected_sha256 and output.digest.hexdigest() != expected_sha256:
            output.handle.close()
            raise ValueError(f"The stored file {key} does not match its hash {expected_sha256}.")
        self.close(output)
        return output

    def _save(self, path, handle):
        key = f"{self.prefix}/{path}"
        saved = default_storage.save(key, File(handle, name=path))
        if saved != key:  # storage renamed it: this prefix was written before
            raise RuntimeError(f"Release file {key} already existed in storage (saved as {saved}).")

    def files(self):
        return [self.written[path] for path in sorted(self.written)]


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
