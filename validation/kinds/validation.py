from django.db import transaction
from django.db.models import Q
from rest_framework import serializers

from accounts.models import Role
from corpus.models import QAPair
from corpus.selectors import evidence_of
from generation.variants import propose as propose_variants
from hits import registry
from hits.kinds.base import TaskKind
from hits.models import Task

from ..errors import OwnPair
from ..services import record_judgement

CRITERIA = {
    "answer_correct": "Is the answer correct according to the sources?",
    "follows_guidelines": "Does the question follow the guidelines (needs the sources, takes reasoning, no personal data)?",
    "sources_needed": "Is every source needed, with none repeating what another says?",
}
EPISODE_CRITERIA = {
    "answer_correct": "Does the target page (the last screenshot) answer the question, and is the answer right?",
    "follows_guidelines": "Is the path a reasonable way to get from the homepage to the target page?",
    "sources_needed": "Does the description match the target page?",
}
YES_NO = {"required": "Answer yes or no.", "invalid": "Answer yes or no."}
MAX_VARIANTS = 5


class ValidationInput(serializers.Serializer):
    qa_pair = serializers.PrimaryKeyRelatedField(queryset=QAPair.objects.all())

    def to_internal_value(self, data):
        return {"qa_pair": super().to_internal_value(data)["qa_pair"].pk}


class ValidationSubmission(serializers.Serializer):
    answer_correct = serializers.BooleanField(error_messages=YES_NO)
    follows_guidelines = serializers.BooleanField(error_messages=YES_NO)
    sources_needed = serializers.BooleanField(error_messages=YES_NO)
    corrected_answer = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")
    comment = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    answer_variants = serializers.CharField(
        max_length=1000, required=False, allow_blank=True, default="",
        help_text="Other ways to write the same answer, one per line (e.g. 127.77 dollars for $127.77).",
    )  # fmt: skip

    def validate(self, data):
        all_yes = all(data[key] for key in ("answer_correct", "follows_guidelines", "sources_needed"))
        if not all_yes and not data["comment"].strip():
            raise serializers.ValidationError({"comment": ["Say what is wrong, for the question's author."]})
        variants = [line.strip() for line in data["answer_variants"].splitlines() if line.strip()]
        if variants and not data["answer_correct"]:
            raise serializers.ValidationError(
                {"answer_variants": ["Give other ways to write the answer only when the answer is correct."]}
            )
        if len(variants) > MAX_VARIANTS or any(len(variant) > 200 for variant in variants):
            raise serializers.ValidationError(
                {"answer_variants": [f"Give at most {MAX_VARIANTS} other ways, one per line, each short."]}
            )
        data["answer_variants"] = variants
        return data


@registry.kind
class Validation(TaskKind):
    """Check another worker's QA pair against its evidence: is the answer right, does the
    question follow the guidelines, is every cited source needed."""

    name = "validation"
    title = "Check a question and its answer"
    # The batch opened for this work when none is open (``validation.batches``).
    auto_batch_title = "Check questions and answers"
    reward_setting = "VALIDATION_REWARD"
    summary = "Look at a question, its answer and its sources, and say whether they hold up."
    template_name = "validation/kinds/validation.html"
    required_role = Role.VALIDATOR
    default_assignments_wanted = 2
    input_serializer = ValidationInput
    submission_serializer = ValidationSubmission

    def excluded_tasks(self, *, worker_id):
        # Never their own pairs; and nobody checks a pair that is already rejected (e.g.
        # its screenshot failed review while the check waited).
        return Task.objects.filter(
            Q(pair_validation__qa_pair__author_id=worker_id) | Q(pair_validation__qa_pair__state=QAPair.State.REJECTED)
        )

    def form_data(self, post):
        data = super().form_data(post)
        for key in ("answer_correct", "follows_guidelines", "sources_needed"):
            if post.get(key) in ("yes", "no"):
                data[key] = post[key] == "yes"
        # Suggested ways of writing the answer that the validator ticked join the ones typed.
        ticked = [value for value in post.getlist("suggested_variants") if value.strip()]
        if ticked:
            typed = data.get("answer_variants", "")
            data["answer_variants"] = "\n".join([*typed.splitlines(), *ticked]).strip()
        return data

    def page_context(self, *, assignment):
        pair = QAPair.objects.select_related("category", "trace", "episode__site").get(
            pk=assignment.task.payload["qa_pair"]
        )
        episode = getattr(pair, "episode", None)
        known = {pair.answer.strip(), *pair.answer_variants}
        suggestions = [v for v in propose_variants(pair.answer) if v not in known] if pair.family == "webquest" else []
        return {
            "suggested_variants": suggestions,
            "pair": pair,
            "evidence": evidence_of(pair),
            "needs_sentence": pair.family == QAPair.Family.WEBQA,
            "episode": episode,
            "criteria": EPISODE_CRITERIA if episode is not None else CRITERIA,
        }

    @transaction.atomic
    def on_submitted(self, *, assignment, answer):
        pair = QAPair.objects.only("author_id").get(pk=assignment.task.payload["qa_pair"])
        if pair.author_id == assignment.worker_id:
            raise OwnPair("Nobody validates their own question; return this task.")
        judgement = record_judgement(assignment=assignment, answer=answer)
        return {**answer, "judgement": judgement.pk}
