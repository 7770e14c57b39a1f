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


class TasksInSerializer(serializers.Serializer):
    payloads = serializers.ListField(child=serializers.JSONField(), min_length=1, max_length=10000)
    assignments_wanted = serializers.IntegerField(min_value=1, max_value=50, required=False)


class AssignmentSerializer(serializers.ModelSerializer):
    kind = serializers.CharField(source="batch.kind", read_only=True)
    task = serializers.SerializerMethodField()

    def get_task(self, assignment) -> dict:
        return {"id": assignment.task_id, "payload": assignment.task.payload}

    class Meta:
        model = Assignment
        fields = [
            "id",
            "batch",
            "kind",
            "task",
            "worker",
            "state",
            "assigned_at",
            "expires_at",
            "submitted_at",
            "decided_at",
            "active_seconds",
            "answer",
            "pay",
            "bonus",
            "bonus_reason",
            "feedback",
        ]
        read_only_fields = fields


class RequestTaskSerializer(serializers.Serializer):
    batch = serializers.IntegerField(min_value=1, help_text="The batch to take a task from.")


class SubmitSerializer(serializers.Serializer):
    answer = serializers.DictField(help_text="The kind's submission fields.")
    active_seconds = serializers.IntegerField(min_value=0, required=False, help_text="Seconds the task was in view.")


class FeedbackSerializer(serializers.Serializer):
    feedback = serializers.CharField(required=False, allow_blank=True, max_length=4000)


class RejectSerializer(serializers.Serializer):
    feedback = serializers.CharField(max_length=4000, help_text="Why; the worker reads this.")


class BonusSerializer(serializers.Serializer):
    amount = serializers.DecimalField(max_digits=8, decimal_places=2, min_value=Decimal("0.01"))
    reason = serializers.CharField(max_length=2000)


class BlockSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)
