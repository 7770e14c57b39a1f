"""A whole release as one zip archive, streamed: each file is read from storage (local
folder or S3) a chunk at a time and written into the archive as it goes out, so neither
the archive nor any one file is ever held in memory. The archive has no seekable output,
so ``zipfile`` writes each entry's sizes and CRC after its data (a data descriptor), and
ZIP64 records where a file or the archive passes 4 GiB."""

import zipfile

from django.core.files.storage import default_storage

from . import selectors

CHUNK = 1024 * 1024
# Images are PNG or JPEG already: deflating them again costs time and saves nothing.
STORED = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".zip", ".gz", ".parquet")


class _Sink:
    """A write-only, unseekable file for ``zipfile``: it keeps what was written until
    the archive's generator takes it."""

    def __init__(self):
        self.parts = []
        self.position = 0

    def write(self, data):
        self.parts.append(bytes(data))
        self.position += len(data)
        return len(data)

    def tell(self):
        return self.position

    def flush(self):
        pass

    def take(self):
        data, self.parts = b"".join(self.parts), []
        return data


def archive_name(release):
    return f"{release.name}-{release.version}.zip"


def stream_archive(*, release, files):
    """Yields the bytes of a zip holding ``files`` (``ReleaseFile`` rows of ``release``)
    under ``<name>-<version>/``."""
    sink = _Sink()
    folder = f"{release.name}-{release.version}"
    with zipfile.ZipFile(sink, mode="w", allowZip64=True) as archive:
        for release_file in files.iterator(chunk_size=500):
            entry = zipfile.ZipInfo(f"{folder}/{release_file.path}", date_time=_date_time(release))
            stored = release_file.path.lower().endswith(STORED)
            entry.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            large = release_file.size >= zipfile.ZIP64_LIMIT
            with (
                default_storage.open(selectors.storage_key(release, release_file), "rb") as source,
                archive.open(entry, mode="w", force_zip64=large) as target,
            ):
                while chunk := source.read(CHUNK):
                    target.write(chunk)
                    if sink.position and sum(map(len, sink.parts)) >= CHUNK:
                        yield sink.take()
            yield sink.take()
    yield sink.take()


def _date_time(release):
    when = release.published_at or release.created_at
    return (max(when.year, 1980), when.month, when.day, when.hour, when.minute, when.second)
