from datetime import timedelta

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django.utils import timezone


class ImageFormat(models.TextChoices):
    PNG = "png", "PNG"
    JPEG = "jpeg", "JPEG"
    WEBP = "webp", "WebP"


class ReviewState(models.TextChoices):
    """Where an asset stands in the PII and safety review; only cleared assets leave."""

    PENDING_REVIEW = "pending_review", "Pending review"
    CLEARED = "cleared", "Cleared"
    REJECTED = "rejected", "Rejected"


class Asset(models.Model):
    """One stored image, kept once however many times it is uploaded.

    ``sha256`` is the digest of the stored bytes: the pixels re-encoded without their
    metadata (``assets.images``). Two uploads whose pixels are the same, whatever their
    EXIF said, are therefore one asset. The bytes live in Django's default storage under
    ``storage_key`` and ``thumbnail_key``, never at a public URL: they are served by
    ``assets.views`` to the users ``assets.selectors.can_view`` allows.
    """

    Format = ImageFormat
    ReviewState = ReviewState

    sha256 = models.CharField(max_length=64, help_text="SHA-256 of the stored (metadata-free) bytes, in hex.")
    format = models.CharField(max_length=8, choices=Format.choices)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    byte_size = models.PositiveBigIntegerField(help_text="Size of the stored file in bytes.")
    phash = models.CharField(max_length=16, help_text="64-bit perceptual hash in hex, for near-duplicate search.")
    storage_key = models.CharField(max_length=255)
    thumbnail_key = models.CharField(max_length=255)
    review_state = models.CharField(
        max_length=16, choices=ReviewState.choices, default=ReviewState.PENDING_REVIEW, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    uploaders = models.ManyToManyField(settings.AUTH_USER_MODEL, through="AssetUpload", related_name="assets")

    CONTENT_TYPES = {Format.PNG: "image/png", Format.JPEG: "image/jpeg", Format.WEBP: "image/webp"}
    THUMBNAIL_CONTENT_TYPE = "image/webp"

    @property
    def content_type(self):
        return self.CONTENT_TYPES[self.format]

    def __str__(self):
        return f"{self.get_format_display()} {self.width}×{self.height} {self.sha256[:12]}"

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["sha256"], name="asset_sha256_unique"),
            models.CheckConstraint(condition=Q(review_state__in=ReviewState.values), name="asset_review_state_known"),
            models.CheckConstraint(condition=Q(format__in=ImageFormat.values), name="asset_format_known"),
            models.CheckConstraint(
                condition=Q(width__gt=0, height__gt=0, byte_size__gt=0), name="asset_dimensions_positive"
            ),
        ]


class AssetUpload(models.Model):
    """Who uploaded an asset. Every uploader of the same bytes gets a row (once each),
    and having a row is what lets a rater see the asset; the first row is the first upload."""

    asset = models.ForeignKey(Asset, on_delete=models.CASCADE, related_name="uploads")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="asset_uploads")
    uploaded_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.asset} by {self.uploaded_by}"

    class Meta:
        constraints = [models.UniqueConstraint(fields=["asset", "uploaded_by"], name="one_upload_per_uploader")]


class UploadDigest(models.Model):
    """The SHA-256 of a file exactly as it was sent, and the asset it became.

    ``Asset.sha256`` is known only after the upload is decoded and cleaned; this digest
    is known after one cheap pass over the bytes, so the same file sent again (a retry,
    a second rater with the same download) is answered without decoding it. Files that
    differ only in their metadata are one asset with several digests.
    """

    sha256 = models.CharField(max_length=64, help_text="SHA-256 of the uploaded file as sent, in hex.")
    asset = models.ForeignKey(Asset, on_delete=models.CASCADE, related_name="upload_digests")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.sha256[:12]} → {self.asset}"

    class Meta:
        constraints = [models.UniqueConstraint(fields=["sha256"], name="upload_digest_sha256_unique")]


class IdempotencyKey(models.Model):
    """A client's ``Idempotency-Key`` for one upload request, and what that request made.

    The same key from the same user within ``LIFETIME`` gets the
    first request's object back instead of a second one. The row is written in the
    transaction that makes the object, so it never points at something that was rolled
    back; ``object_id`` is empty only inside that transaction.
    """

    LIFETIME = timedelta(hours=24)

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="idempotency_keys")
    key = models.CharField(max_length=255)
    created_at = models.DateTimeField(default=timezone.now)
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.PositiveBigIntegerField(null=True, blank=True)

    def __str__(self):
        return f"{self.key} by {self.user} → {self.content_type.model} {self.object_id}"

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique_per_user")]
