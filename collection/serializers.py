from django.urls import reverse
from rest_framework import serializers

from .models import Category, Evidence, QAPair, Screen, Site


class SiteSerializer(serializers.ModelSerializer):
    category = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = Site
        fields = ["id", "category", "name", "url", "host", "notes"]


class CategorySerializer(serializers.ModelSerializer):
    class Meta:
        model = Category
        fields = ["slug", "name", "description"]


class ScreenSerializer(serializers.ModelSerializer):
    category = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    review_state = serializers.CharField(source="asset.review_state", read_only=True)
    width = serializers.IntegerField(source="asset.width", read_only=True)
    height = serializers.IntegerField(source="asset.height", read_only=True)
    sha256 = serializers.CharField(source="asset.sha256", read_only=True)
    image_url = serializers.SerializerMethodField()
    thumbnail_url = serializers.SerializerMethodField()

    def get_image_url(self, screen) -> str:
        return reverse("assets:file", args=[screen.asset_id])

    def get_thumbnail_url(self, screen) -> str:
        return reverse("assets:thumbnail", args=[screen.asset_id])

    class Meta:
        model = Screen
        fields = [
            "id", "url", "title", "site", "category", "assignment", "asset", "sha256", "width", "height",
            "review_state", "image_url", "thumbnail_url", "captured_at",
        ]  # fmt: skip


class ScreenUploadSerializer(serializers.Serializer):
    file = serializers.FileField(
        allow_empty_file=True,
        help_text="A PNG, JPEG or WebP screenshot.",
        error_messages={"required": "Attach the screenshot as `file`."},
    )
    url = serializers.URLField(required=False, allow_blank=True, max_length=2000)
    title = serializers.CharField(required=False, allow_blank=True, max_length=500)
    assignment = serializers.IntegerField(required=False, min_value=1, help_text="The open assignment it is for.")
    viewport_width = serializers.IntegerField(required=False, min_value=1, max_value=20000)
    viewport_height = serializers.IntegerField(required=False, min_value=1, max_value=20000)


class EvidenceSerializer(serializers.ModelSerializer):
    class Meta:
        model = Evidence
        fields = ["position", "screen", "note"]


class QAPairSerializer(serializers.ModelSerializer):
    evidence = EvidenceSerializer(many=True, read_only=True)
    category = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = QAPair
        fields = [
            "id", "family", "split_kind", "question", "answer", "answer_type", "keyword_answer", "reasoning_types",
            "question_category", "category", "state", "author", "assignment", "evidence", "created_at",
        ]  # fmt: skip
