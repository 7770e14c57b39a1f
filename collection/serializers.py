import re
import unicodedata

from django.urls import reverse
from rest_framework import serializers

from corpus.models import Category, Evidence, ImageSource, QAPair, Screen, Site, Snippet, Trace, TraceStep

from .models import PoolImport


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
    category = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
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
        fields = ["position", "screen", "image", "snippet", "fact", "url", "note"]


class QAPairSerializer(serializers.ModelSerializer):
    evidence = EvidenceSerializer(many=True, read_only=True)
    category = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)

    class Meta:
        model = QAPair
        fields = [
            "id", "family", "split_kind", "question", "answer", "answer_type", "keyword_answer", "reasoning_types",
            "question_category", "category", "image_group", "state", "state_reason", "author", "assignment", "evidence",
            "created_at",
        ]  # fmt: skip


class TraceStartSerializer(serializers.Serializer):
    client_id = serializers.UUIDField()
    category = serializers.SlugRelatedField(slug_field="slug", queryset=Category.objects.all())
    batch = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    started_at = serializers.DateTimeField(required=False, allow_null=True)
    user_agent = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class BoxField(serializers.ListField):
    child = serializers.FloatField()
    min_length = max_length = 4


class TargetSerializer(serializers.Serializer):
    tag = serializers.CharField(max_length=40, allow_blank=True, required=False, default="")
    text = serializers.CharField(max_length=2000, allow_blank=True, required=False, default="")
    label = serializers.CharField(max_length=2000, allow_blank=True, required=False, default="")
    alt = serializers.CharField(max_length=2000, allow_blank=True, required=False, default="")
    role = serializers.CharField(max_length=60, allow_blank=True, required=False, default="")
    href = serializers.CharField(max_length=4000, allow_blank=True, required=False, allow_null=True, default="")
    bbox = BoxField(required=False, allow_null=True)
    selector = serializers.CharField(max_length=4000, allow_blank=True, required=False, default="")


class ActionSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=TraceStep.Action.choices)
    target = TargetSerializer(required=False, allow_null=True, default=None)


class SizeSerializer(serializers.Serializer):
    width = serializers.IntegerField(min_value=1, max_value=20000)
    height = serializers.IntegerField(min_value=1, max_value=20000)


class ScrollSerializer(serializers.Serializer):
    x = serializers.IntegerField(default=0)
    y = serializers.IntegerField(default=0)


class StepInSerializer(serializers.Serializer):
    """The ``step`` part of a step upload (see docs/trace-api.md)."""

    client_id = serializers.UUIDField()
    position = serializers.IntegerField(min_value=0, max_value=100000)
    url = serializers.URLField(max_length=2000)
    title = serializers.CharField(max_length=500, allow_blank=True, required=False, default="")
    captured_at = serializers.DateTimeField()
    viewport = SizeSerializer()
    device_pixel_ratio = serializers.FloatField(min_value=0.1, max_value=10, default=1)
    scroll = ScrollSerializer(required=False, default=dict)
    action = ActionSerializer()
    clickables = TargetSerializer(many=True, required=False, default=list, max_length=2000)
    html = serializers.CharField(required=False, allow_blank=True, max_length=5_000_000, trim_whitespace=False)
    full_page = serializers.BooleanField(
        required=False,
        default=False,
        help_text="The screenshot shows the whole page, and every box is relative to the page's top left corner "
        "(not the viewport's).",
    )


class TraceStepSerializer(serializers.ModelSerializer):
    thumbnail_url = serializers.SerializerMethodField()

    def get_thumbnail_url(self, step) -> str:
        return reverse("assets:thumbnail", args=[step.screen.asset_id])

    class Meta:
        model = TraceStep
        fields = [
            "id", "client_id", "position", "screen", "url", "title", "captured_at", "viewport_width", "viewport_height",
            "device_pixel_ratio", "scroll_x", "scroll_y", "action", "target", "clickables", "full_page", "thumbnail_url",
        ]  # fmt: skip


class TraceSerializer(serializers.ModelSerializer):
    category = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    steps = TraceStepSerializer(many=True, read_only=True)

    class Meta:
        model = Trace
        fields = ["id", "client_id", "category", "batch", "state", "started_at", "finished_at", "created_at", "steps"]


class FinishSerializer(serializers.Serializer):
    step_count = serializers.IntegerField(min_value=0)


class PoolImportSerializer(serializers.ModelSerializer):
    class Meta:
        model = PoolImport
        fields = [
            "id", "kind", "source", "state", "total", "processed", "created_count", "existing_count", "error_count",
            "errors", "message", "created_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields


# What file systems and S3 accept: a file or folder name of at most 255 bytes and a whole
# path well under 4096 (the import folder comes in front), a bucket named as AWS defines.
SOURCE_MAX_BYTES = 1000
NAME_MAX_BYTES = 255
S3_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


class PoolImportStartSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=PoolImport.Kind.choices)
    source = serializers.CharField(
        max_length=1000,
        help_text="A manifest (or its folder) under the server's import folder, or s3://bucket/prefix; at most 1000 "
        "bytes in UTF-8.",
    )

    def validate_source(self, value):
        if any(unicodedata.category(character) == "Cc" for character in value):
            raise serializers.ValidationError("The source cannot contain control characters (line breaks, tabs…).")
        if len(value.encode()) > SOURCE_MAX_BYTES:
            raise serializers.ValidationError(f"The source is at most {SOURCE_MAX_BYTES} bytes long (in UTF-8).")
        if value.startswith("s3://"):
            bucket = value.removeprefix("s3://").partition("/")[0]
            if not S3_BUCKET.fullmatch(bucket):
                raise serializers.ValidationError(
                    "An S3 source is s3://bucket/prefix, the bucket named with 3–63 lowercase letters, digits, "
                    "dots and hyphens."
                )
        elif any(len(part.encode()) > NAME_MAX_BYTES for part in value.split("/")):
            raise serializers.ValidationError(
                f"A folder or file name is at most {NAME_MAX_BYTES} bytes long; one in this source is longer."
            )
        return value


class ImageSourceSerializer(serializers.ModelSerializer):
    review_state = serializers.CharField(source="asset.review_state", read_only=True)

    class Meta:
        model = ImageSource
        fields = ["id", "asset", "title", "description", "source_url", "topic", "licence", "review_state", "created_at"]


class SnippetSerializer(serializers.ModelSerializer):
    class Meta:
        model = Snippet
        fields = ["id", "title", "text", "url", "topic", "created_at"]
