from decimal import Decimal

from rest_framework import serializers

from . import registry
from .models import Assignment, Batch


class BatchSerializer(serializers.ModelSerializer):
    required_qualifications = serializers.SlugRelatedField(slug_field="slug", many=True, read_only=True)

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

    def validate_kind(self, value):
        try:
            registry.get(value)
        except registry.UnknownKind:
            known = ", ".join(name for name, _ in registry.choices())
            raise serializers.ValidationError(f"Unknown task kind “{value}”. Known kinds: {known}.") from None
        return value

    def validate_allowed_locales(self, value):
        if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
            raise serializers.ValidationError('Give a list of locale tags, e.g. ["en-US"].')
        return value


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

    def get_takes_traces(self, row) -> bool:
        return bool(row["kind"] and row["kind"].takes_traces)


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


class RequestTaskSerializer(serializers.Serializer):
    batch = serializers.IntegerField(min_value=1, help_text="The batch to take a task from.")


class SubmitSerializer(serializers.Serializer):
    answer = serializers.DictField(help_text="The kind's submission fields.")
    active_seconds = serializers.IntegerField(min_value=0, required=False, help_text="Seconds the task was in view.")


class DraftSerializer(serializers.Serializer):
    draft = serializers.JSONField(help_text="Anything the task page needs to restore the work in progress.")


class FeedbackSerializer(serializers.Serializer):
    feedback = serializers.CharField(required=False, allow_blank=True, max_length=4000)


class RejectSerializer(serializers.Serializer):
    feedback = serializers.CharField(max_length=4000, help_text="Why; the worker reads this.")


class BonusSerializer(serializers.Serializer):
    amount = serializers.DecimalField(max_digits=8, decimal_places=2, min_value=Decimal("0.01"))
    reason = serializers.CharField(max_length=2000)


class BlockSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)
