from django.db import transaction
from rest_framework import serializers

from corpus.models import ReasoningType, Trace
from corpus.selectors import summary_of
from corpus.services import write_pairs
from hits import registry
from hits.kinds.base import TaskKind

from ..answers import answer_type

MAX_PAIRS = 5


class TraceTaskInput(serializers.Serializer):
    trace = serializers.PrimaryKeyRelatedField(queryset=Trace.objects.filter(state=Trace.State.FINISHED))

    def to_internal_value(self, data):
        return {"trace": super().to_internal_value(data)["trace"].pk}


class TraceQuestion(serializers.Serializer):
    steps = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        error_messages={"empty": "Tick the 3 to 5 steps the question needs."},
    )
    question = serializers.CharField(max_length=1000, error_messages={"blank": "Write the question."})
    answer = serializers.CharField(max_length=300, error_messages={"blank": "Write the answer."})
    reasoning_types = serializers.MultipleChoiceField(
        choices=ReasoningType.choices,
        allow_empty=False,
        error_messages={"empty": "Tick at least one kind of reasoning the question needs."},
    )

    def validate_steps(self, steps):
        if len(set(steps)) != len(steps):
            raise serializers.ValidationError("The same step is ticked twice.")
        if not 3 <= len(steps) <= 5:
            raise serializers.ValidationError(f"A trace question needs 3 to 5 of the steps; you ticked {len(steps)}.")
        known = self.context["steps"]
        unknown = [pk for pk in steps if pk not in known]
        if unknown:
            raise serializers.ValidationError(f"Step {unknown[0]} is not part of this trace.")
        return sorted(steps, key=lambda pk: known[pk].position)


class TraceQASubmission(serializers.Serializer):
    pairs = TraceQuestion(many=True, allow_empty=False, max_length=MAX_PAIRS)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assignment = self.context.get("assignment")
        if assignment is not None:
            trace = Trace.objects.get(pk=assignment.task.payload["trace"])
            self.context["trace"] = trace
            self.context["steps"] = {step.pk: step for step in trace.steps.select_related("screen")}


def _written(pair):
    return bool(pair["steps"] or pair["question"].strip() or pair["answer"].strip() or pair["reasoning_types"])


@registry.kind
class TraceQA(TaskKind):
    """Questions on a recorded trace: each needs 3–5 of its screens, the rest of the
    trace being the context a model has to search."""

    name = "trace_qa"
    family = "webquest"
    split_kind = "trace"
    negatives = ("trace_screens",)
    categorised_as = "reasoning"
    shows_trace = True
    takes_traces = True
    tutorial = "traces"
    title = "Write questions on a browsing trace"
    summary = "Look through a recorded browsing session, mark the screens a question needs, and write it."
    template_name = "collection/kinds/trace_qa.html"
    input_serializer = TraceTaskInput
    submission_serializer = TraceQASubmission

    def form_data(self, post):
        try:
            count = max(1, min(MAX_PAIRS, int(post.get("pair_count", "1"))))
        except ValueError:
            count = 1
        pairs = []
        for index in range(count):
            prefix = f"pair-{index}-"
            if not any(key.startswith(prefix) for key in post):
                continue
            pairs.append(
                {
                    "steps": [value for value in post.getlist(prefix + "steps") if value.isdigit()],
                    "question": post.get(prefix + "question", ""),
                    "answer": post.get(prefix + "answer", ""),
                    "reasoning_types": post.getlist(prefix + "reasoning_types"),
                }
            )
        # A block added and left untouched is not a question; with nothing else written
        # it stays, so that the errors say what a question needs.
        written = [pair for pair in pairs if _written(pair)]
        return {"pairs": written or pairs[:1]}

    def page_context(self, *, assignment):
        trace = Trace.objects.select_related("category").get(pk=assignment.task.payload["trace"])
        return {
            "trace": trace,
            "steps": trace.steps.select_related("screen").order_by("position"),
            "reasoning_choices": ReasoningType.choices,
            "max_pairs": MAX_PAIRS,
            "blank_pairs": [{}],
        }

    def review_summary(self, *, assignment):
        return summary_of(assignment)

    @transaction.atomic
    def on_submitted(self, *, assignment, answer):
        trace = Trace.objects.get(pk=assignment.task.payload["trace"])
        steps = {step.pk: step for step in trace.steps.select_related("screen")}
        written = write_pairs(
            assignment=assignment,
            kind=self,
            pairs=[
                {
                    "question": pair["question"],
                    "answer": pair["answer"],
                    "answer_type": answer_type(pair["answer"]),
                    "reasoning_types": sorted(pair["reasoning_types"]),
                    "category": trace.category,
                    "trace": trace,
                    "evidence": [{"screen": steps[step].screen, "step": steps[step]} for step in pair["steps"]],
                }
                for pair in answer["pairs"]
            ],
        )
        return {
            "pairs": [
                {**pair, "reasoning_types": sorted(pair["reasoning_types"]), "qa_pair": qa_pair.pk}
                for pair, qa_pair in zip(answer["pairs"], written, strict=True)
            ]
        }
