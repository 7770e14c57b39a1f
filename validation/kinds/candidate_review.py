"""Checking a generated QA candidate (WebVLN §4.2): is it about what the page actually
shows, is the answer right, is it brief and answerable from the page alone. An assessor
may fix the question or the answer while accepting it; the fix is recorded and applied
once the candidate is accepted."""

from django.db import transaction
from rest_framework import serializers

from corpus.models import QAPair
from hits import registry

from .validation import Validation, ValidationSubmission

CANDIDATE_CRITERIA = {
    "answer_correct": "Is the answer what the page shows?",
    "follows_guidelines": "Is the question about what the page actually shows (not general knowledge)?",
    "sources_needed": "Is it brief, and can it be answered from this page alone?",
}


class CandidateReviewSubmission(ValidationSubmission):
    edited_question = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")
    edited_answer = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")

    def validate(self, data):
        data = super().validate(data)
        edited = data["edited_question"].strip() or data["edited_answer"].strip()
        accepting = all(data[key] for key in CANDIDATE_CRITERIA)
        if edited and not accepting:
            raise serializers.ValidationError(
                {"edited_question": ["Fix a candidate only when you accept it as fixed; otherwise say what is wrong."]}
            )
        return data


@registry.kind
class CandidateReview(Validation):
    """A generated candidate, with the page it was generated from."""

    name = "candidate_review"
    title = "Check a generated question"
    auto_batch_title = "Check generated questions"
    summary = "Look at a page and a question a generator wrote about it; accept it, fix it, or say what is wrong."
    template_name = "validation/kinds/candidate_review.html"
    submission_serializer = CandidateReviewSubmission

    def page_context(self, *, assignment):
        context = super().page_context(assignment=assignment)
        pair = context["pair"]
        context["criteria"] = CANDIDATE_CRITERIA
        context["candidate"] = getattr(pair, "candidate", None)
        return context

    @transaction.atomic
    def on_submitted(self, *, assignment, answer):
        from generation import services as generation

        # The fix is recorded first: the judgement may decide the candidate, which applies it.
        pair = QAPair.objects.get(pk=assignment.task.payload["qa_pair"])
        edit = generation.propose_edit(qa_pair=pair, assessor=assignment.worker, question=answer["edited_question"],
                                       answer=answer["edited_answer"])  # fmt: skip
        result = super().on_submitted(assignment=assignment, answer=answer)
        return {**result, "edit": edit.pk if edit else None}
