"""Navigation questions (WebVLN): on a site's recorded pages, the rater picks a target
page, writes a question it answers, the short answer, and a description of the target
(the instruction's details of the item). The server works out the episode's path: the
shortest one from the site's homepage to the target over the site's navigation graph.
Each episode then goes to two assessors (validation), who check the path, the answer
and the description."""

import random

from django.db import transaction
from rest_framework import serializers

from corpus.models import NavPage, Site
from corpus.navigation import MIN_TRANSITIONS, Graph, NotAnEpisodeTarget, episode_path
from corpus.selectors import summary_of
from corpus.services import write_pairs
from hits import registry
from hits import services as hits
from hits.kinds.base import TaskKind

from ..answers import answer_type

TARGETS_PER_SITE = 10


def graph_pages(site):
    """The site's pages with a screenshot, nearest the homepage first."""
    pages = NavPage.objects.filter(site=site, step__isnull=False).select_related("step__screen")
    return sorted(pages, key=lambda page: (page.depth is None, page.depth or 0, page.number))


class NavigationTaskInput(serializers.Serializer):
    site = serializers.PrimaryKeyRelatedField(queryset=Site.objects.all())
    target = serializers.URLField(max_length=2000, required=False, help_text="A page to ask about, when sampled.")

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        return {"site": value["site"].pk, **({"target": value["target"]} if value.get("target") else {})}


class NavigationSubmission(serializers.Serializer):
    target = serializers.IntegerField(
        min_value=0,
        error_messages={"required": "Pick the target page.", "invalid": "Pick the target page.",
                        "null": "Pick the target page."},
    )  # fmt: skip
    question = serializers.CharField(
        max_length=1000, error_messages={"blank": "Write the question.", "required": "Write the question."}
    )
    answer = serializers.CharField(
        max_length=300, error_messages={"blank": "Write the answer.", "required": "Write the answer."}
    )
    description = serializers.CharField(
        max_length=2000,
        error_messages={
            "blank": "Describe the target page: what item it shows and its details.",
            "required": "Describe the target page: what item it shows and its details.",
        },
    )

    def validate_target(self, number):
        site = self.context["site"]
        page = NavPage.objects.filter(site=site, number=number, step__isnull=False).first()
        if page is None:
            raise serializers.ValidationError("That page is not one of this site's recorded pages.")
        wanted = self.context.get("wanted_target")
        if wanted and page.url != wanted:
            raise serializers.ValidationError("This task asks about the page marked as its target; pick that one.")
        try:
            self.context["path"] = episode_path(site, page.url)
        except NotAnEpisodeTarget as refusal:
            raise serializers.ValidationError(str(refusal)) from None
        return page

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assignment = self.context.get("assignment")
        if assignment is not None:
            self.context["site"] = Site.objects.get(pk=assignment.task.payload["site"])
            self.context["wanted_target"] = assignment.task.payload.get("target")


@registry.kind
class NavigationQA(TaskKind):
    """A question that an agent answers by navigating a recorded site from its homepage
    to the page that holds the answer (WebVLN)."""

    name = "navigation_qa"
    family = "webvln"
    split_kind = "navigation"
    negatives = ()
    categorised_as = ""
    shows_site = True
    tutorial = ""
    title = "Write a question that needs navigating a site"
    summary = (
        "Pick a page of a recorded website at least two clicks from its homepage, and write a question that page "
        "answers, its short answer, and a description of the page."
    )
    template_name = "collection/kinds/navigation_qa.html"
    input_serializer = NavigationTaskInput
    submission_serializer = NavigationSubmission

    def page_context(self, *, assignment):
        site = Site.objects.select_related("category").get(pk=assignment.task.payload["site"])
        graph = Graph.of_site(site)
        pages = []
        for page in graph_pages(site):
            path = graph.shortest_path(page.url) if page.depth is not None else None
            pages.append(
                {
                    "page": page,
                    "clicks": page.depth,
                    "choosable": page.depth is not None and page.depth >= MIN_TRANSITIONS,
                    "route": path,
                }
            )
        return {
            "site": site,
            "pages": pages,
            "wanted_target": assignment.task.payload.get("target"),
            "min_clicks": MIN_TRANSITIONS,
        }

    def review_summary(self, *, assignment):
        return summary_of(assignment)

    def fill(self, *, batch):
        added = fill_targets(batch=batch)
        return f"{added} navigation tasks added, one per sampled target page."

    @transaction.atomic
    def on_submitted(self, *, assignment, answer):
        site = Site.objects.get(pk=assignment.task.payload["site"])
        target = answer["target"]
        path = episode_path(site, target.url)
        by_url = {page.url: page for page in NavPage.objects.filter(site=site, url__in=path).select_related("step")}
        evidence = [{"screen": by_url[url].step.screen, "step": by_url[url].step} for url in path]
        evidence[-1]["note"] = answer["description"]
        (pair,) = write_pairs(
            assignment=assignment,
            kind=self,
            pairs=[
                {
                    "question": answer["question"],
                    "answer": answer["answer"],
                    "answer_type": answer_type(answer["answer"]),
                    "category": site.category,
                    "evidence": evidence,
                    "episode": {"site": site, "target_url": target.url, "path": path,
                                "description": answer["description"]},
                }
            ],
        )  # fmt: skip
        return {
            "target": target.url,
            "path": path,
            "question": answer["question"],
            "answer": answer["answer"],
            "description": answer["description"],
            "qa_pair": pair.pk,
        }


def fill_targets(*, batch, per_site=None, seed=None):
    """Adds one task per sampled target page to ``batch``: for each site the batch names
    (``kind_settings["sites"]``, else every active site with a graph), up to ``per_site``
    pages (``kind_settings["targets_per_site"]``, default 10) reachable from the homepage
    and at least two clicks away, drawn with the batch's seed, skipping pages the batch
    already has a task for. Returns the number of tasks added."""
    settings = batch.kind_settings or {}
    per_site = per_site or int(settings.get("targets_per_site", TARGETS_PER_SITE))
    rng = random.Random(seed if seed is not None else settings.get("seed", batch.pk))
    sites = Site.objects.filter(active=True, nav_pages__isnull=False).distinct().order_by("pk")
    if settings.get("sites"):
        sites = sites.filter(pk__in=settings["sites"])
    taken = {(task.payload.get("site"), task.payload.get("target")) for task in batch.tasks.only("payload")}
    payloads = []
    for site in sites:
        candidates = sorted(
            NavPage.objects.filter(site=site, step__isnull=False, depth__gte=MIN_TRANSITIONS).values_list(
                "url", flat=True
            )
        )
        candidates = [url for url in candidates if (site.pk, url) not in taken]
        for url in rng.sample(candidates, min(per_site, len(candidates))):
            payloads.append({"site": site.pk, "target": url})
    if payloads:
        hits.add_tasks(batch=batch, payloads=payloads)
    return len(payloads)
