from rest_framework import serializers

from .. import registry
from .base import TaskKind


class DemoQuestionInput(serializers.Serializer):
    passage = serializers.CharField(max_length=4000)
    question = serializers.CharField(max_length=500)


class DemoQuestionSubmission(serializers.Serializer):
    answer = serializers.CharField(
        max_length=500, error_messages={"blank": "Write your answer.", "required": "Write your answer."}
    )
    confidence = serializers.ChoiceField(
        choices=["low", "medium", "high"],
        error_messages={"required": "Say how sure you are.", "invalid_choice": "Pick low, medium or high."},
    )


@registry.kind
class DemoQuestion(TaskKind):
    """Answer a question about a short passage: a small kind to try the platform with."""

    name = "demo_question"
    title = "Answer a question about a passage"
    summary = "Read a short passage and answer the question about it in a few words."
    template_name = "hits/kinds/demo_question.html"
    input_serializer = DemoQuestionInput
    submission_serializer = DemoQuestionSubmission
