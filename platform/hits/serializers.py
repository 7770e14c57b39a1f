from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from . import registry
from .models import Assignment, Batch

# A language tag as profiles hold them: a language, then region or script subtags (en-US).
LOCALE_TAG = r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$"


class BatchSerializer(serializers.ModelSerializer):
    required_qualifications = serializers.SlugRelatedField(slug_field="slug", many=True, read_only=True)
    allowed_locales = serializers.ListField(
        child=serializers.RegexField(
            LOCALE_TAG, max_length=35, error_messages={"invalid": "Not a locale tag, e.g. en-US."}
        ),
        required=False,
        help_text='e.g. ["en-US", "en-GB"]; empty for any.',
    )

    class Meta:
        model = Batch
        fields = [
            "id",
            "name",
            "kind",
            "description",
            "state",
            "reward",
            "assignment_minutes",
            "spot_check_percent",
            "required_qualifications",
            "min_approval_rate",
            "min_approved_count",
            "allowed_locales",
            "created_at",
            "opened_at",
            "closed_at",
        ]
        read_only_fields = ["state", "created_at", "opened_at", "closed_at"]
        # The database refuses a negative reward too (batch_reward_not_negative).
        extra_kwargs = {"reward": {"min_value": Decimal("0.00")}}

    def validate_kind(self, value):
        try:
            registry.get(value)
        except registry.UnknownKind:
            known = ", ".join(name for name, _ in registry.choices())
            raise serializers.ValidationError(f"Unknown task kind “{value}”. Known kinds: {known}.") from None
        return value


# How the browser extension captures each step of a trace recorded for a batch: "" the
# visible viewport; "stitch" the whole page, scrolled and captured viewport by viewport;
# "debugger" the whole page in one shot through chrome.debugger (stitched when the rater
# has not granted that permission). Set in the batch's kind_settings as
# {"capture": {"full_page": "stitch"}}.
FULL_PAGE_MODES = {"": "viewport", "stitch": "stitch", "debugger": "debugger"}


def full_page_mode(kind_settings):
    """The batch's full-page capture mode; anything unknown is the viewport ("")."""
    capture = kind_settings.get("capture") if isinstance(kind_settings, dict) else None
    mode = capture.get("full_page") if isinstance(capture, dict) else None
    return mode if isinstance(mode, str) and mode in FULL_PAGE_MODES else ""


class CaptureSettingSerializer(serializers.Serializer):
    full_page = serializers.ChoiceField(
        choices=list(FULL_PAGE_MODES.items()),
        help_text='"" captures the viewport; "stitch" the whole page, viewport by viewport; "debugger" the whole '
        "page in one shot with chrome.debugger where the rater granted it (stitched otherwise).",
    )


class AvailableBatchSerializer(serializers.Serializer):
    """An open batch as one worker sees it."""

    id = serializers.IntegerField(source="batch.id")
    name = serializers.CharField(source="batch.name")
    kind = serializers.CharField(source="batch.kind")
    description = serializers.CharField(source="batch.description")
    reward = serializers.DecimalField(source="batch.reward", max_digits=8, decimal_places=2)
    tasks_available = serializers.IntegerField(source="available")
    eligible = serializers.BooleanField(source="eligibility.eligible")
    reason = serializers.CharField(
        source="eligibility.reason", help_text="Why you cannot take this work, if you cannot."
    )
    takes_traces = serializers.SerializerMethodField(
        help_text="Whether the batch's tasks are traces recorded with the browser extension."
    )

    capture = serializers.SerializerMethodField(
        help_text="How the browser extension captures a trace's steps for this batch (the batch's "
        "`kind_settings.capture`): the viewport, or the whole page with boxes relative to its top left corner."
    )

    def get_takes_traces(self, row) -> bool:
        return bool(row["kind"] and row["kind"].takes_traces)

    @extend_schema_field(CaptureSettingSerializer)
    def get_capture(self, row):
        return {"full_page": full_page_mode(row["batch"].kind_settings)}


class TasksInSerializer(serializers.Serializer):
    payloads = serializers.ListField(child=serializers.JSONField(), min_length=1, max_length=10000)
    assignments_wanted = serializers.IntegerField(min_value=1, max_value=50, required=False)


class TaskOutSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    payload = serializers.JSONField()


class AssignmentSerializer(serializers.Serializer):
    # Declared field by field rather than as a ModelSerializer: this is on the hand-out
    # path, and a ModelSerializer rebuilds its fields from the model on every use.
    id = serializers.IntegerField()
    batch = serializers.IntegerField(source="batch_id")
    kind = serializers.CharField(source="batch.kind")
    task = TaskOutSerializer()
    worker = serializers.IntegerField(source="worker_id")
    state = serializers.ChoiceField(choices=Assignment.State.choices)
    assigned_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    submitted_at = serializers.DateTimeField(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)
    active_seconds = serializers.IntegerField(allow_null=True)
    draft = serializers.JSONField(allow_null=True)
    answer = serializers.JSONField(allow_null=True)
    pay = serializers.DecimalField(max_digits=8, decimal_places=2)
    bonus = serializers.DecimalField(max_digits=8, decimal_places=2)
    bonus_reason = serializers.CharField()
    feedback = serializers.CharField()


def assignment_data(assignment):
    """``AssignmentSerializer(assignment).data``, built directly: hand-out and submission
    answer with it on every cycle, where the serializer's field machinery cost more than
    the rest of the response (a test keeps the two equal)."""
    task = assignment.task
    return {
        "id": assignment.pk,
        "batch": assignment.batch_id,
        "kind": assignment.batch.kind,
        "task": {"id": task.pk, "payload": task.payload},
        "worker": assignment.worker_id,
        "state": assignment.state,
        "assigned_at": _datetime(assignment.assigned_at),
        "expires_at": _datetime(assignment.expires_at),
        "submitted_at": _datetime(assignment.submitted_at),
        "decided_at": _datetime(assignment.decided_at),
        "active_seconds": assignment.active_seconds,
        "draft": assignment.draft,
        "answer": assignment.answer,
        "pay": _money(assignment.pay),
        "bonus": _money(assignment.bonus),
        "bonus_reason": assignment.bonus_reason,
        "feedback": assignment.feedback,
    }


_DATETIME = serializers.DateTimeField()
CENTS = Decimal("0.01")


def _datetime(value):
    return None if value is None else _DATETIME.to_representation(value)


def _money(value):
    return str(Decimal(value).quantize(CENTS))


class AssignmentFilterSerializer(serializers.Serializer):
    """The filters of the assignments list (query parameters)."""

    batch = serializers.IntegerField(required=False, min_value=1, help_text="Only this batch's assignments.")
    worker = serializers.IntegerField(
        required=False, min_value=1, help_text="Only this worker's (reviewers and admins)."
    )
    state = serializers.ChoiceField(choices=Assignment.State.choices, required=False)


class RequestTaskSerializer(serializers.Serializer):
    batch = serializers.IntegerField(min_value=1, help_text="The batch to take a task from.")


class SubmitSerializer(serializers.Serializer):
    answer = serializers.DictField(help_text="The kind's submission fields.")
    active_seconds = serializers.IntegerField(min_value=0, required=False, help_text="Seconds the task was in view.")


def storable(value):
    """Whether PostgreSQL can store ``value`` as JSON: no NUL character and no lone
    surrogate in any of its strings or keys (``jsonb`` refuses both)."""
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return False
        return "\x00" not in value
    if isinstance(value, dict):
        return all(storable(key) and storable(item) for key, item in value.items())
    if isinstance(value, list):
        return all(storable(item) for item in value)
    return True


class DraftSerializer(serializers.Serializer):
    draft = serializers.JSONField(help_text="Anything the task page needs to restore the work in progress.")

    def validate_draft(self, value):
        if not storable(value):
            raise serializers.ValidationError("The draft cannot hold NUL characters or unpaired surrogates.")
        return value


class FeedbackSerializer(serializers.Serializer):
    feedback = serializers.CharField(required=False, allow_blank=True, max_length=4000)


class RejectSerializer(serializers.Serializer):
    feedback = serializers.CharField(max_length=4000, help_text="Why; the worker reads this.")


class BonusSerializer(serializers.Serializer):
    amount = serializers.DecimalField(max_digits=8, decimal_places=2, min_value=Decimal("0.01"))
    reason = serializers.CharField(max_length=2000)


class BlockSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)
