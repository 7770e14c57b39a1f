"""The text multi-hop task: a QA pair whose answer combines facts from at least two of
four snippets, optionally with one fact the worker looked up, cited by its address.

The four snippets of a task are a set of similar ones with a topic
(``collection.snippet_sets``); the task's payload keeps the topic, and so the QA pair
written on it has it through its assignment's task."""

from django.db import transaction
from rest_framework import serializers

from corpus.models import Snippet
from corpus.selectors import summary_of
from corpus.services import write_pairs
from hits import registry
from hits.kinds.base import TaskKind
from mining.categories import keyword_problem

from ..snippet_sets import build_sets
from .webqa import WebQAAnswer, checked_ids, existing_ids, int_list

SNIPPETS = 4
MIN_CITED = 2


class TextTaskInput(serializers.Serializer):
    snippets = serializers.ListField(
        child=serializers.IntegerField(min_value=1), min_length=SNIPPETS, max_length=SNIPPETS
    )
    topic = serializers.CharField(max_length=200, required=False, allow_blank=True)

    def validate_snippets(self, ids):
        return existing_ids(ids, model=Snippet, what="snippet")


class TextMultihopSubmission(WebQAAnswer):
    snippets = serializers.ListField(child=serializers.IntegerField(min_value=1), allow_empty=True)
    fact = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    fact_url = serializers.URLField(
        max_length=2000,
        required=False,
        allow_blank=True,
        default="",
        error_messages={"invalid": "Give the full address of the page the fact comes from, starting with https://."},
    )

    def validate_snippets(self, ids):
        if len(ids) < MIN_CITED:
            raise serializers.ValidationError(
                f"Tick at least {MIN_CITED} snippets: the answer must combine facts from more than one. "
                f"You ticked {len(ids)}."
            )
        return checked_ids(ids, allowed=set(self.context["assignment"].task.payload["snippets"]), what="snippet")

    def validate(self, data):
        problem = keyword_problem("text", data["keyword_answer"])
        if problem:
            raise serializers.ValidationError({"keyword_answer": problem})
        fact, url = data["fact"].strip(), data["fact_url"].strip()
        if fact and not url:
            raise serializers.ValidationError({"fact_url": "Give the address of the page the fact comes from."})
        if url and not fact:
            raise serializers.ValidationError({"fact": "Write the fact you found at that address, or clear it."})
        data["fact"], data["fact_url"] = fact, url
        return data


@registry.kind
class TextMultihopQA(TaskKind):
    name = "text_multihop_qa"
    family = "webqa"
    split_kind = "text"
    negatives = ("text", "image")
    categorised_as = "text"
    tutorial = "text"
    title = "Write a question across text snippets"
    summary = "Four short texts from the web: write a question whose answer needs facts from at least two of them."
    template_name = "collection/kinds/text_multihop_qa.html"
    input_serializer = TextTaskInput
    submission_serializer = TextMultihopSubmission

    def form_data(self, post):
        return {
            "snippets": int_list(post.getlist("snippets")),
            "question": post.get("question", ""),
            "answer": post.get("answer", ""),
            "keyword_answer": post.get("keyword_answer", ""),
            "fact": post.get("fact", ""),
            "fact_url": post.get("fact_url", ""),
        }

    def page_context(self, *, assignment):
        ids = assignment.task.payload["snippets"]
        snippets = Snippet.objects.in_bulk(ids)
        return {
            "snippets": [snippets[pk] for pk in ids if pk in snippets],
            "topic": assignment.task.payload.get("topic", ""),
            "min_cited": MIN_CITED,
        }

    def fill(self, *, batch):
        added = make_text_tasks(batch=batch)
        return f"{added} text tasks added, each a set of four similar snippets from the pool."

    def review_summary(self, *, assignment):
        return summary_of(assignment)

    @transaction.atomic
    def on_submitted(self, *, assignment, answer):
        evidence = [{"snippet_id": snippet} for snippet in answer["snippets"]]
        if answer["fact"]:
            evidence.append({"fact": answer["fact"], "url": answer["fact_url"]})
        (qa_pair,) = write_pairs(
            assignment=assignment,
            kind=self,
            pairs=[
                {
                    "question": answer["question"],
                    "answer": answer["answer"],
                    "keyword_answer": answer["keyword_answer"],
                    "question_category": "text",
                    "evidence": evidence,
                }
            ],
        )
        return {**answer, "qa_pair": qa_pair.pk}


def make_text_tasks(*, batch, topics=None):
    """Adds text tasks to ``batch``: sets of four similar snippets with their topic, from
    the snippets of the pool (of ``topics``, if given) that none of its tasks has yet.
    Returns the number of tasks added."""
    from hits.services import add_tasks

    used = {pk for payload in batch.tasks.values_list("payload", flat=True) for pk in payload.get("snippets", [])}
    pool = Snippet.objects.all()
    if topics:
        pool = pool.filter(topic__in=topics)
    rows = (row for row in pool.order_by("id").values_list("id", "title", "text").iterator() if row[0] not in used)
    payloads = [{"snippets": list(made.ids), "topic": made.topic} for made in build_sets(rows, size=SNIPPETS)]
    if payloads:
        add_tasks(batch=batch, payloads=payloads)
    return len(payloads)
