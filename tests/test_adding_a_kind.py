"""The example of docs/adding-a-kind.md, registered here: a kind written as one module
takes part in hand-out, submission, validation and mining without touching anything else."""

import pytest
from rest_framework import serializers

from corpus.models import QAPair, ReasoningType
from corpus.services import write_pairs
from hits import registry, services
from hits.kinds.base import TaskKind
from mining import categories, selectors
from validation.models import PairValidation

pytestmark = pytest.mark.django_db


class PriceTaskInput(serializers.Serializer):
    category = serializers.SlugField()


class PriceSubmission(serializers.Serializer):
    question = serializers.CharField(max_length=1000, error_messages={"blank": "Write the question."})
    answer = serializers.CharField(max_length=300, error_messages={"blank": "Write the answer."})
    reasoning_types = serializers.MultipleChoiceField(choices=ReasoningType.choices, allow_empty=False)
    fact = serializers.CharField(max_length=2000)
    fact_url = serializers.URLField(max_length=2000)


class PriceQuestion(TaskKind):
    name = "price_question"
    title = "Ask about a price"
    summary = "Look up one product's price and write a question that needs it."
    template_name = "collection/kinds/price_question.html"
    input_serializer = PriceTaskInput
    submission_serializer = PriceSubmission
    family = "webquest"
    split_kind = "single_screen"
    categorised_as = "reasoning"
    tutorial = "screens"

    def on_submitted(self, *, assignment, answer):
        (qa_pair,) = write_pairs(
            assignment=assignment,
            kind=self,
            pairs=[
                {
                    "question": answer["question"],
                    "answer": answer["answer"],
                    "reasoning_types": sorted(answer["reasoning_types"]),
                    "evidence": [{"fact": answer["fact"], "url": answer["fact_url"]}],
                }
            ],
        )
        return {**answer, "reasoning_types": sorted(answer["reasoning_types"]), "qa_pair": qa_pair.pk}


@pytest.fixture
def price_kind():
    kind = registry.register(PriceQuestion())
    yield kind
    registry.unregister(kind.name)


GOOD = {
    "question": "How much more is the blue kettle than the red one?",
    "answer": "$4.50",
    "reasoning_types": ["arithmetic"],
    "fact": "The blue kettle costs $34.50 and the red one $30.",
    "fact_url": "https://shop.example/kettles",
}


def test_a_kind_in_one_module_is_handed_out_submitted_and_validated(price_kind, rater, api_for):
    client = api_for(rater)
    batch = services.create_batch(name="Prices", kind="price_question", reward="0.20")
    services.add_tasks(batch=batch, payloads=[{"category": "shopping"}], assignments_wanted=1)
    services.open_batch(batch=batch)
    offered = client.get("/api/v1/batches/available/").json()["results"]
    assert [(b["kind"], b["takes_traces"]) for b in offered if b["id"] == batch.pk] == [("price_question", False)]
    assignment = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").json()

    refused = client.post(
        f"/api/v1/assignments/{assignment['id']}/submit/", {"answer": {**GOOD, "question": ""}}, format="json"
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["fields"]["answer.question"] == ["Write the question."]
    assert not QAPair.objects.exists()

    done = client.post(f"/api/v1/assignments/{assignment['id']}/submit/", {"answer": GOOD}, format="json")
    assert done.status_code == 200, done.json()
    pair = QAPair.objects.get(pk=done.json()["answer"]["qa_pair"])
    assert (pair.family, pair.split_kind, pair.author_id) == ("webquest", "single_screen", rater.pk)
    assert PairValidation.objects.filter(qa_pair=pair).exists()  # queued for validation by the signal
    assert "single_screen" in categories.screen_split_kinds()
    assert categories.categorise(pair) == ""  # screen questions get a reasoning check instead
    assert "single_screen" not in selectors.mined_split_kinds()  # no negatives declared by either kind
