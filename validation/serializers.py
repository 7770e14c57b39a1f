from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .models import QualificationAttempt, QualificationItem


class ItemSerializer(serializers.ModelSerializer):
    """A test item as the worker sees it: never the author's verdict."""

    class Meta:
        model = QualificationItem
        fields = ["id", "position", "question", "answer", "figures"]


class TestStatusSerializer(serializers.Serializer):
    slug = serializers.CharField(source="test.slug")
    title = serializers.CharField(source="test.title")
    family = serializers.CharField(source="test.family")
    qualification = serializers.CharField(source="test.qualification.slug")
    qualified = serializers.BooleanField()
    may_attempt = serializers.BooleanField()
    status = serializers.CharField(source="message")
    rules = serializers.DictField(source="test.rules", child=serializers.CharField())


class TestDetailSerializer(TestStatusSerializer):
    items = ItemSerializer(source="test.items", many=True)


class AttemptInSerializer(serializers.Serializer):
    answers = serializers.DictField(
        child=serializers.DictField(),
        help_text='Per item id: {"flag": "ok" or a rule key, "explanation": "what is wrong"}.',
    )


class AttemptSerializer(serializers.ModelSerializer):
    test = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = QualificationAttempt
        fields = ["id", "test", "number", "correct", "total", "score", "outcome", "submitted_at"]


class ReferenceSetsInSerializer(serializers.Serializer):
    qa_pairs = serializers.ListField(
        child=serializers.IntegerField(min_value=1), allow_empty=False, max_length=500, required=False,
        help_text="Pairs to choose; those the draft release would not put in test are skipped. "
        "Leave it out to choose from that test split.",
    )  # fmt: skip
    release = serializers.IntegerField(
        min_value=1, required=False,
        help_text="The unpublished release definition whose test split decides; by default the newest with WebQA.",
    )  # fmt: skip
    limit = serializers.IntegerField(
        min_value=1, max_value=500, default=100, help_text="Without qa_pairs: how many of the test split to choose."
    )


class SkippedPairSerializer(serializers.Serializer):
    qa_pair = serializers.IntegerField()
    reason = serializers.CharField()


class ReferenceSetsOutSerializer(serializers.Serializer):
    release = serializers.IntegerField(help_text="The draft release whose test split was asked.")
    created = serializers.IntegerField()
    qa_pairs = serializers.ListField(child=serializers.IntegerField(), help_text="The pairs now collecting answers.")
    skipped = SkippedPairSerializer(many=True)


class DisqualificationEntrySerializer(serializers.Serializer):
    kind = serializers.CharField()
    reason = serializers.CharField()
    active = serializers.BooleanField()


class QualificationChangeEntrySerializer(serializers.Serializer):
    qualification = serializers.SlugField()
    action = serializers.CharField()
    reason = serializers.CharField()
    at = serializers.DateTimeField()


class QualityQuerySerializer(serializers.Serializer):
    worker = serializers.IntegerField(
        required=False, min_value=1, help_text="Another worker's id (reviewers and admins); yours by default."
    )


class QualitySerializer(serializers.Serializer):
    worker = serializers.IntegerField(source="profile.user_id")
    approval_rate = serializers.FloatField(source="profile.approval_rate", allow_null=True)
    approved_count = serializers.IntegerField(source="profile.approved_count")
    rejected_count = serializers.IntegerField(source="profile.rejected_count")
    agreement_rate = serializers.FloatField(source="quality.agreement_rate", allow_null=True)
    judgements_decided = serializers.IntegerField(source="quality.judgements_decided")
    pairs_accepted = serializers.IntegerField(source="quality.pairs_accepted")
    pairs_rejected = serializers.IntegerField(source="quality.pairs_rejected")
    disqualifications = serializers.SerializerMethodField()
    qualification_history = serializers.SerializerMethodField()

    @extend_schema_field(DisqualificationEntrySerializer(many=True))
    def get_disqualifications(self, standing):
        return [
            {"kind": row["record"].kind, "reason": row["record"].reason, "active": row["record"].lifted_at is None}
            for row in standing.disqualifications
        ]

    @extend_schema_field(QualificationChangeEntrySerializer(many=True))
    def get_qualification_history(self, standing):
        return [
            {"qualification": c.qualification.slug, "action": c.action, "reason": c.reason, "at": c.created_at}
            for c in standing.qualification_history
        ]
