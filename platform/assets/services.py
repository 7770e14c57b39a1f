"""Every write to assets: storing an uploaded image once, and removing its bytes.

Bytes are content-addressed: an asset's file is ``assets/ab/cd/<sha256>.<ext>`` and its
thumbnail ``thumbs/ab/cd/<sha256>.webp`` in Django's default storage (a local folder,
or S3 through django-storages), so one image is one blob however often it arrives.
"""

from django.core.files.base import ContentFile, File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

from . import images, signals
from .models import Asset, AssetUpload

EXTENSIONS = {Asset.Format.PNG: "png", Asset.Format.JPEG: "jpg", Asset.Format.WEBP: "webp"}


def storage_key(*, sha256, format):
    return f"assets/{sha256[:2]}/{sha256[2:4]}/{sha256}.{EXTENSIONS[format]}"


def thumbnail_key(*, sha256):
    return f"thumbs/{sha256[:2]}/{sha256[2:4]}/{sha256}.webp"


def store_image(*, file, uploaded_by, source_url=""):
    """Checks ``file`` (a Django ``File``, e.g. an ``UploadedFile``), strips its metadata
    and stores it, unless the same image is already stored. Returns ``(asset, created)``.

    Raises an ``assets.errors.ImageRefused`` subclass, with nothing stored, for a file
    that is empty, too large, not a still PNG/JPEG/WebP, damaged, or too many pixels.
    The upload is recorded for ``uploaded_by`` either way, which lets them see it.
    ``source_url`` is the page the image shows or comes from, sent with ``asset_stored``.

    An image that is already stored is returned as it is, in whatever review state it
    has: uploading a rejected image again does not make it pending.
    """
    with images.cleaned(file) as image:
        try:
            asset, created = _store(image, uploaded_by)
        except IntegrityError:
            # A concurrent upload of the same image committed its row first (its insert
            # made ours wait, then fail); that row is the asset, and its bytes are stored.
            asset, created = _store(image, uploaded_by)
    if created:
        signals.asset_stored.send(sender=Asset, asset=asset, source_url=source_url)
    return asset, created


def _store(image, uploaded_by):
    written = []
    try:
        with transaction.atomic():
            asset = Asset.objects.filter(sha256=image.sha256).first()
            created = asset is None
            if created:
                # The row goes in first: while this transaction is open, a concurrent
                # upload of the same image waits on the unique sha256 (PostgreSQL's index,
                # SQLite's write lock), so only one upload writes the keys, and nobody sees
                # the row before its bytes are complete.
                asset = Asset.objects.create(
                    sha256=image.sha256,
                    format=image.format,
                    width=image.width,
                    height=image.height,
                    byte_size=image.byte_size,
                    phash=image.phash,
                    storage_key=storage_key(sha256=image.sha256, format=image.format),
                    thumbnail_key=thumbnail_key(sha256=image.sha256),
                )
                _write(asset.storage_key, File(image.file, name=asset.storage_key), asset.content_type, written)
                _write(asset.thumbnail_key, ContentFile(image.thumbnail), Asset.THUMBNAIL_CONTENT_TYPE, written)
            AssetUpload.objects.get_or_create(asset=asset, uploaded_by=uploaded_by)
    except BaseException:
        for key in written:
            default_storage.delete(key)
        raise
    return asset, created


def _write(key, content, content_type, written):
    # Only the upload that created the row writes its keys, so anything already there
    # was left by an attempt whose transaction failed: replace it.
    default_storage.delete(key)
    content.content_type = content_type  # S3 stores it as the object's Content-Type
    written.append(key)
    saved = default_storage.save(key, content)
    if saved != key:
        written.append(saved)
        raise RuntimeError(f"Storage saved {key!r} as {saved!r}; content-addressed keys must be kept as they are.")


def delete_asset_bytes(*, asset):
    """Removes the asset's file and thumbnail from storage (e.g. to purge rejected
    content). The row stays; deleting it, or marking it, is the caller's decision."""
    default_storage.delete(asset.storage_key)
    default_storage.delete(asset.thumbnail_key)
