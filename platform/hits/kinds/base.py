from dataclasses import dataclass

from rest_framework import serializers

from accounts.models import Role


@dataclass(frozen=True)
class Eligibility:
    """Whether a worker may take a batch's tasks, and if not, why (shown to the worker)."""

    eligible: bool
    reason: str = ""


ELIGIBLE = Eligibility(True)


class TaskKind:
    """One kind of work. Subclasses set the class attributes and may override the hooks.

    The kind owns its input and submission schemas (DRF serializers, so that bad
    submissions get field-by-field errors), the template of its task page, the role it
    needs, and what happens when a submission arrives or is approved. It also declares
    everything the rest of the platform asks about it, so that no other code compares
    kind names (docs/adding-a-kind.md; a contract test checks every registered kind).
    """

    name: str = ""
    title: str = ""
    summary: str = ""
    template_name: str = ""
    required_role: str = Role.RATER
    default_assignments_wanted: int = 1
    input_serializer: type[serializers.Serializer] = serializers.Serializer
    submission_serializer: type[serializers.Serializer] = serializers.Serializer

    # --- What the rest of the platform asks about the kind -------------------------------
    # The QA pairs it writes: their family and split kind (``corpus.models.QAPair``), or
    # "" for a kind that writes none. Kinds writing one split kind declare the same
    # negatives and categorisation (mining treats the pairs by their split kind).
    family: str = ""
    split_kind: str = ""
    # The hard negatives mining finds for its pairs: any of "text" and "image" (from the
    # pools), "trace_screens" (other screens of the pair's trace), "category_screens"
    # (screens of the same category).
    negatives: tuple[str, ...] = ()
    # How its questions are categorised: "webqa" (WebQA's image categories), "text" (all
    # one category), "reasoning" (the writer's reasoning types are checked instead), "".
    categorised_as: str = ""
    # Its tasks' payloads name a recorded trace (``{"trace": id}``) whose screens the
    # worker sees while holding the task.
    shows_trace: bool = False
    # Its tasks' payloads name a catalogue site (``{"site": id}``) whose recorded pages
    # (the screenshots of its navigation graph) the worker sees while holding the task.
    shows_site: bool = False
    # Its batches are fed by traces that raters record with the extension.
    takes_traces: bool = False
    # The family of tutorial and qualification test that prepares for it (validation's
    # ``Family``: "screens", "traces", "images", "text"), or "".
    tutorial: str = ""

    def check_eligibility(self, *, worker):
        """The kind's own rule, checked after the batch's requirements."""
        if not worker.has_role(self.required_role):
            return Eligibility(False, f"This work needs the {Role(self.required_role).label.lower()} role.")
        return ELIGIBLE

    def excluded_tasks(self, *, worker_id):
        """Tasks of this kind that ``worker_id`` must never be handed, as a ``Task``
        queryset (e.g. validations of their own QA pairs), or None. Hand-out adds it to
        its one claiming statement, so the rule holds under any concurrency."""
        return None

    def form_data(self, post):
        """The submission as the task page's form sends it (``request.POST``).

        The default reads one value per submission field; kinds with lists or nested
        values override it.
        """
        return {key: post[key] for key in self.submission_serializer().fields if key in post}

    def page_context(self, *, assignment):
        """Extra template context for the kind's task page."""
        return {}

    def clean_input(self, payload):
        serializer = self.input_serializer(data=payload)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def clean_submission(self, *, assignment, data):
        serializer = self.submission_serializer(data=data, context={"assignment": assignment})
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def on_submitted(self, *, assignment, answer):
        """Stores the kind's domain records for a submission (inside the submit transaction)
        and returns what the assignment keeps as its answer: plain JSON."""
        return answer

    def on_approved(self, *, assignment):
        """React to an approved submission (inside the approval transaction)."""

    def on_rejected(self, *, assignment):
        """React to a rejected submission (inside the rejection transaction)."""

    def fill(self, *, batch):
        """Adds tasks to ``batch`` from the kind's source material (e.g. a pool), for kinds
        that have one; returns a sentence saying what was done, or ``None``."""
        return None

    def review_summary(self, *, assignment):
        """What a reviewer sees of a submission in a spot check: a list of
        ``{"question", "answer", "keyword_answer", "assets", "snippets", "extra"}`` dicts
        (any may be missing). The default shows the answer's fields as they are."""
        answer = assignment.answer or {}
        return [{"extra": {key: value for key, value in answer.items()}}]
