from rest_framework import serializers

from .models import Distractor, MiningRun, ReasoningCheck


class MiningRunSerializer(serializers.ModelSerializer):
    progress = serializers.FloatField(read_only=True, help_text="Share of the run's QA pairs processed, 0–1.")
    chunks = serializers.SerializerMethodField(help_text="Chunks by state: queued, running, done, failed.")

    class Meta:
        model = MiningRun
        fields = [
            "id", "job", "scope", "batch", "qa_pair_ids", "chunk_size", "state", "total", "processed", "changed",
            "progress", "chunks", "message", "created_at", "started_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_chunks(self, run) -> dict:
        counts = dict.fromkeys(("queued", "running", "done", "failed"), 0)
        for chunk in run.chunks.all():
            counts[chunk.state] += 1
        return counts


class StartRunSerializer(serializers.Serializer):
    job = serializers.ChoiceField(choices=MiningRun.Job.choices)
    scope = serializers.ChoiceField(choices=MiningRun.Scope.choices, default=MiningRun.Scope.NEW)
    batch = serializers.IntegerField(required=False, help_text="For scope=batch.")
    qa_pairs = serializers.ListField(
        child=serializers.IntegerField(), required=False, max_length=100_000, help_text="For scope=qa_pairs."
    )
    chunk_size = serializers.IntegerField(required=False, min_value=1, max_value=10_000)

    def validate(self, data):
        if data["scope"] == MiningRun.Scope.BATCH and not data.get("batch"):
            raise serializers.ValidationError({"batch": ["Name the batch to run over."]})
        if data["scope"] == MiningRun.Scope.QA_PAIRS and not data.get("qa_pairs"):
            raise serializers.ValidationError({"qa_pairs": ["List the QA pairs to run over."]})
        return data


class DistractorSerializer(serializers.ModelSerializer):
    source = serializers.SerializerMethodField(help_text="The id of the snippet, image or screen.")

    class Meta:
        model = Distractor
        fields = ["id", "qa_pair", "kind", "source", "method", "score", "rank"]

    def get_source(self, distractor) -> int:
        return distractor.snippet_id or distractor.image_id or distractor.screen_id


class ReasoningCheckSerializer(serializers.ModelSerializer):
    message = serializers.CharField(read_only=True)

    class Meta:
        model = ReasoningCheck
        fields = [
            "id", "qa_pair", "state", "declared", "detected", "missing", "unsupported", "message", "note",
            "resolved_by", "resolved_at", "checked_at",
        ]  # fmt: skip
        read_only_fields = fields


class ResolveCheckSerializer(serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True, max_length=2000)


# The filters of the lists (query parameters): a value outside the choices is a 400 that
# names the choices, not an empty page (nor, with a NUL in it, a database error).


class RunFilterSerializer(serializers.Serializer):
    job = serializers.ChoiceField(choices=MiningRun.Job.choices, required=False)
    state = serializers.ChoiceField(choices=MiningRun.State.choices, required=False)


class DistractorFilterSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Distractor.Kind.choices, required=False)


class ReasoningCheckFilterSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=ReasoningCheck.State.choices, required=False)
