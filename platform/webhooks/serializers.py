from rest_framework import serializers

from .models import EVENTS, Attempt, Delivery, Endpoint


class EndpointSerializer(serializers.ModelSerializer):
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=EVENTS), allow_empty=False, max_length=len(EVENTS),
        help_text="The events it receives.",
    )  # fmt: skip
    secret = serializers.CharField(
        read_only=True, help_text="Signs every delivery: keep it on the receiver to check the signature."
    )

    def validate_events(self, events):
        return sorted(set(events))

    class Meta:
        model = Endpoint
        fields = ["id", "url", "description", "events", "secret", "active", "queue_depth_limit",
                  "queue_age_limit_hours", "consecutive_failures", "disabled_at", "disabled_reason", "created_at"]  # fmt: skip
        read_only_fields = ["consecutive_failures", "disabled_at", "disabled_reason", "created_at"]
        extra_kwargs = {"queue_age_limit_hours": {"min_value": 0, "max_value": 24 * 365}}


class DeliveryAttemptSerializer(serializers.ModelSerializer):
    class Meta:
        model = Attempt
        fields = ["at", "status", "error", "milliseconds"]


class DeliverySerializer(serializers.ModelSerializer):
    attempt_log = DeliveryAttemptSerializer(many=True, read_only=True)

    class Meta:
        model = Delivery
        fields = ["id", "endpoint", "event", "event_id", "state", "attempts", "next_attempt_at", "last_status",
                  "last_error", "created_at", "delivered_at", "body", "attempt_log"]  # fmt: skip
        read_only_fields = fields
