"""Every write to assets: storing an uploaded image once, removing its bytes, and
answering a repeated upload request with what the first one made.

Bytes are content-addressed: an asset's file is ``assets/ab/cd/<sha256>.<ext>`` and its
thumbnail ``thumbs/ab/cd/<sha256>.webp`` in Django's default storage (a local folder,
or S3 through django-storages), so one image is one blob however often it arrives.
"""

from django.contrib.contenttypes.models import ContentType
from django.core.files.base import ContentFile, File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.utils import timezone

from . import images, signals
from .errors import IdempotencyKeyReused
from .models import Asset, AssetUpload, IdempotencyKey, UploadDigest

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
    has: uploading a rejected image again does not make it pending. A file whose exact
    bytes were sent before is recognised by their SHA-256 and not decoded at all.
    """
    images.check_size(file.size)
    digest = images.upload_sha256(file)
    known = Asset.objects.filter(upload_digests__sha256=digest).first()
    if known is not None:
        AssetUpload.objects.get_or_create(asset=known, uploaded_by=uploaded_by)
        return known, False
    with images.cleaned(file) as image:
        try:
            asset, created = _store(image, uploaded_by, digest)
        except IntegrityError:
            # A concurrent upload of the same image committed its row first (its insert
            # made ours wait, then fail); that row is the asset, and its bytes are stored.
            asset, created = _store(image, uploaded_by, digest)
    if created:
        signals.asset_stored.send(sender=Asset, asset=asset, source_url=source_url)
    return asset, created


def _store(image, uploaded_by, digest):
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
            UploadDigest.objects.get_or_create(sha256=digest, defaults={"asset": asset})
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


def once_per_key(*, user, key, model, make):
    """Runs ``make()``, which makes and returns one ``model`` instance, once for each
    ``key`` that ``user`` sends within ``IdempotencyKey.LIFETIME``. Returns ``(object,
    replayed)``: the new object, or the one the key's first request made.

    The key's row is inserted first, in the transaction that ``make()`` then runs in: a
    second request with the same key, arriving while the first is still at work, waits
    on the row's unique index and then answers with the first one's object. Nothing is
    kept when ``make()`` raises, so the client may send the key again. Without a key,
    ``make()`` simply runs.
    """
    if not key:
        return make(), False
    content_type = ContentType.objects.get_for_model(model)
    expired = IdempotencyKey.objects.filter(user=user, created_at__lt=timezone.now() - IdempotencyKey.LIFETIME)
    # The user's other stale keys go in a statement of their own (when no transaction is
    # open), so that two of their uploads never wait on each other's clean-up.
    expired.exclude(key=key).delete()
    with transaction.atomic():
        expired.filter(key=key).delete()
        record, earlier = _claim_key(user, key, content_type)
        if earlier is not None:
            return earlier, True
        made = make()
        record.object_id = made.pk
        record.save(update_fields=["object_id"])
        return made, False


def _claim_key(user, key, content_type, attempts=3):
    """``(row, None)`` with the new row for ``key``, or ``(None, object)`` with the object
    an earlier request with the key made."""
    for _attempt in range(attempts):
        try:
            with transaction.atomic():
                return IdempotencyKey.objects.create(user=user, key=key, content_type=content_type), None
        except IntegrityError:
            earlier = IdempotencyKey.objects.filter(user=user, key=key).first()
        if earlier is None:
            continue  # it expired and was deleted in between: claim it again
        if earlier.content_type_id != content_type.pk:
            raise IdempotencyKeyReused(
                "This Idempotency-Key was already used in the last 24 hours for another kind of upload "
                f"({earlier.content_type.name}); send a new key with each new upload."
            )
        made = content_type.model_class()._default_manager.filter(pk=earlier.object_id).first()
        if made is not None:
            return None, made
        earlier.delete()  # what it made was deleted since: the key starts over
    raise IntegrityError(f"Could not claim the idempotency key {key!r} after {attempts} attempts.")
