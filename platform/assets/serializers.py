from rest_framework import serializers

from .models import Asset


class UploadSerializer(serializers.Serializer):
    # Empty files get through to the service, which refuses them with its own code.
    file = serializers.FileField(allow_empty_file=True, help_text="A PNG, JPEG or WebP image.")
    idempotency_key = serializers.CharField(
        required=False,
        max_length=255,
        help_text="The same as the Idempotency-Key header, for clients that cannot set one.",
    )


class AssetSerializer(serializers.ModelSerializer):
    bytes = serializers.IntegerField(source="byte_size", read_only=True)
    url = serializers.HyperlinkedIdentityField(view_name="assets:file", lookup_url_kwarg="asset_id")
    thumbnail_url = serializers.HyperlinkedIdentityField(view_name="assets:thumbnail", lookup_url_kwarg="asset_id")

    class Meta:
        model = Asset
        fields = ["id", "sha256", "width", "height", "format", "bytes", "phash", "review_state", "url", "thumbnail_url"]
        read_only_fields = fields
