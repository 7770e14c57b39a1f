"""What single-screen and multi-screen QA share: screens checked against the site
catalogue, a question that needs reasoning, and the QA pair written on submission."""

import json

from django.db import transaction
from rest_framework import serializers

from corpus.models import Category, Evidence, ReasoningType, Screen, host_of
from corpus.selectors import summary_of
from corpus.services import write_pairs
from hits.kinds.base import TaskKind

from ..answers import answer_type
from ..catalogue import site_for
from ..services import describe_screen


class CaptureTaskInput(serializers.Serializer):
    category = serializers.SlugRelatedField(slug_field="slug", queryset=Category.objects.all())

    def to_internal_value(self, data):
        # Stored as the slug, so the payload stays plain JSON.
        value = super().to_internal_value(data)
        return {"category": value["category"].slug}


class ScreenEntry(serializers.Serializer):
    screen = serializers.IntegerField(min_value=1)
    url = serializers.URLField(
        max_length=2000,
        error_messages={
            "invalid": "Enter the page’s full address, starting with http:// or https://.",
            "blank": "Enter the page’s address.",
            "required": "Enter the page’s address.",
        },
    )
    title = serializers.CharField(
        max_length=500, error_messages={"blank": "Enter the page’s title.", "required": "Enter the page’s title."}
    )
    note = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")


class ScreenQASubmission(serializers.Serializer):
    screens = ScreenEntry(many=True)
    question = serializers.CharField(
        max_length=1000, error_messages={"blank": "Write the question.", "required": "Write the question."}
    )
    answer = serializers.CharField(
        max_length=300, error_messages={"blank": "Write the answer.", "required": "Write the answer."}
    )
    reasoning_types = serializers.MultipleChoiceField(
        choices=ReasoningType.choices,
        allow_empty=False,
        error_messages={
            "empty": "Tick at least one kind of reasoning the question needs.",
            "required": "Tick at least one kind of reasoning the question needs.",
        },
    )
    no_sign_in = serializers.BooleanField()
    no_personal_data = serializers.BooleanField()

    min_screens = max_screens = 1
    needs_notes = False

    def validate_no_sign_in(self, value):
        if not value:
            raise serializers.ValidationError("Confirm that you did not sign in to capture these pages.")
        return value

    def validate_no_personal_data(self, value):
        if not value:
            raise serializers.ValidationError("Confirm that the screens show no personal data.")
        return value

    def validate_screens(self, entries):
        count = len(entries)
        if not self.min_screens <= count <= self.max_screens:
            wanted = (
                str(self.min_screens)
                if self.min_screens == self.max_screens
                else f"{self.min_screens} to {self.max_screens}"
            )
            raise serializers.ValidationError(f"This task needs {wanted} screens; you gave {count}.")
        ids = [entry["screen"] for entry in entries]
        if len(set(ids)) != count:
            raise serializers.ValidationError("The same screen is listed twice.")
        assignment = self.context["assignment"]
        screens = {s.pk: s for s in Screen.objects.filter(pk__in=ids, author_id=assignment.worker_id)}
        unknown = [pk for pk in ids if pk not in screens]
        if unknown:
            raise serializers.ValidationError(f"Screen {unknown[0]} is not one of your uploads.")
        used = Evidence.objects.filter(screen_id__in=ids).values_list("screen_id", flat=True).first()
        if used:
            raise serializers.ValidationError(f"Screen {used} is already part of another question; capture a new one.")
        category = Category.objects.get(slug=assignment.task.payload["category"])
        for entry in entries:
            host = host_of(entry["url"])
            site = site_for(url=entry["url"])
            if site is None:
                raise serializers.ValidationError(
                    f"{host} is not on the site list. Capture pages from the {category} sites listed with the task."
                )
            if site.category_id != category.pk:
                in_category = site_for(url=entry["url"], category=category)
                if in_category is None:
                    raise serializers.ValidationError(
                        f"{host} is a {site.category} site; this task is about {category}, so every screen must come from a {category} site."
                    )
                site = in_category
            if self.needs_notes and not entry["note"].strip():
                raise serializers.ValidationError(
                    f"Say what the screen from {host} contributes: the question must need every screen."
                )
            entry["screen"], entry["site"] = screens[entry["screen"]], site
        distinct = len({entry["site"].pk for entry in entries})
        if count > 1 and distinct * 2 <= count:
            raise serializers.ValidationError(
                f"Most screens must come from different sites: these {count} come from only {distinct}."
            )
        return entries


class ScreenQAKind(TaskKind):
    """Base of the screen QA kinds; each subclass sets its counts, texts and template."""

    split_kind = ""
    submission_serializer = ScreenQASubmission
    input_serializer = CaptureTaskInput
    instructions = ()

    def form_data(self, post):
        try:
            screens = json.loads(post.get("screens_json") or "[]")
        except ValueError:
            screens = "unreadable"
        return {
            "screens": screens,
            "question": post.get("question", ""),
            "answer": post.get("answer", ""),
            "reasoning_types": post.getlist("reasoning_types"),
            "no_sign_in": post.get("no_sign_in") == "on",
            "no_personal_data": post.get("no_personal_data") == "on",
        }

    def page_context(self, *, assignment):
        category = Category.objects.get(slug=assignment.task.payload["category"])
        return {
            "category": category,
            "sites": category.sites.filter(active=True),
            "reasoning_choices": ReasoningType.choices,
            "capture": {
                "assignment": assignment.pk,
                "minScreens": self.submission_serializer.min_screens,
                "maxScreens": self.submission_serializer.max_screens,
                "needsNotes": self.submission_serializer.needs_notes,
                "draft": assignment.draft or {},
            },
        }

    def review_summary(self, *, assignment):
        return summary_of(assignment)

    @transaction.atomic
    def on_submitted(self, *, assignment, answer):
        category = Category.objects.get(slug=assignment.task.payload["category"])
        for entry in answer["screens"]:
            describe_screen(
                screen=entry["screen"],
                url=entry["url"],
                title=entry["title"],
                site=entry["site"],
                category=category,
                assignment=assignment,
            )
        (qa_pair,) = write_pairs(
            assignment=assignment,
            kind=self,
            pairs=[
                {
                    "question": answer["question"],
                    "answer": answer["answer"],
                    "answer_type": answer_type(answer["answer"]),
                    "reasoning_types": sorted(answer["reasoning_types"]),
                    "category": category,
                    "evidence": [{"screen": entry["screen"], "note": entry["note"]} for entry in answer["screens"]],
                }
            ],
        )
        return {
            **answer,
            "screens": [
                {
                    "screen": e["screen"].pk,
                    "url": e["url"],
                    "title": e["title"],
                    "note": e["note"],
                    "site": e["site"].pk,
                }
                for e in answer["screens"]
            ],
            "reasoning_types": sorted(answer["reasoning_types"]),
            "answer_type": qa_pair.answer_type,
            "qa_pair": qa_pair.pk,
        }
