import re

from django.db import transaction
from rest_framework import serializers

from corpus.models import QAPair
from corpus.selectors import evidence_of
from hits import registry
from hits.kinds.base import TaskKind
from hits.models import Task

from ..errors import OwnPair
from ..services import locked_set, record_answer

SENTENCE = re.compile(r"^\S+(\s+\S+){2,}[.!?]$")


class ReferencesInput(serializers.Serializer):
    qa_pair = serializers.PrimaryKeyRelatedField(queryset=QAPair.objects.filter(state=QAPair.State.ACCEPTED))

    def to_internal_value(self, data):
        return {"qa_pair": super().to_internal_value(data)["qa_pair"].pk}


class ReferenceSubmission(serializers.Serializer):
    answer = serializers.CharField(
        max_length=1000, error_messages={"blank": "Write the answer.", "required": "Write the answer."}
    )
    keyword_answer = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")

    def validate_answer(self, value):
        value = " ".join(value.split())
        if not SENTENCE.match(value):
            raise serializers.ValidationError(
                "Write the answer as a complete sentence of at least three words, ending with a full stop."
            )
        return value

    def validate(self, data):
        # The set's row stays locked to the end of the submission, so exactly one
        # writer is asked for the keyword answer and gives it.
        reference_set = locked_set(task_id=self.context["assignment"].task_id)
        if not reference_set.keyword_answer and not data["keyword_answer"].strip():
            raise serializers.ValidationError(
                {"keyword_answer": ["Also give the keyword answer: the answer in as few words as possible."]}
            )
        if reference_set.keyword_answer:
            data["keyword_answer"] = ""
        return data


@registry.kind
class References(TaskKind):
    """Answer a test candidate's question in a full sentence, independently of its author."""

    name = "references"
    title = "Write a reference answer"
    # The batch opened for this work when none is open (``validation.batches``).
    auto_batch_title = "Write reference answers"
    reward_setting = "REFERENCES_REWARD"
    summary = "Answer a question from its sources in one full sentence, for the test set."
    template_name = "validation/kinds/references.html"
    default_assignments_wanted = 5
    input_serializer = ReferencesInput
    submission_serializer = ReferenceSubmission

    def excluded_tasks(self, *, worker_id):
        return Task.objects.filter(reference_set__qa_pair__author_id=worker_id)

    def page_context(self, *, assignment):
        pair = QAPair.objects.get(pk=assignment.task.payload["qa_pair"])
        reference_set = assignment.task.reference_set
        return {"pair": pair, "evidence": evidence_of(pair), "needs_keyword": not reference_set.keyword_answer}

    @transaction.atomic
    def on_submitted(self, *, assignment, answer):
        pair = QAPair.objects.only("author_id").get(pk=assignment.task.payload["qa_pair"])
        if pair.author_id == assignment.worker_id:
            raise OwnPair("Nobody writes reference answers for their own question; return this task.")
        keyword = answer["keyword_answer"].strip()
        written = record_answer(assignment=assignment, answer=answer["answer"], keyword=keyword)
        return {"answer": answer["answer"], "keyword_answer": keyword, "reference_answer": written.pk}
