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
    needs, and what happens when a submission arrives or is approved.
    """

    name: str = ""
    title: str = ""
    summary: str = ""
    template_name: str = ""
    required_role: str = Role.RATER
    default_assignments_wanted: int = 1
    input_serializer: type[serializers.Serializer] = serializers.Serializer
    submission_serializer: type[serializers.Serializer] = serializers.Serializer

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
