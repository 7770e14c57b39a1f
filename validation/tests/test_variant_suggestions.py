"""Suggested ways of writing a WebQuest answer: proposed by rules, confirmed by validators."""

import pytest

from corpus.models import QAPair
from generation.variants import propose
from hits import services as hits
from hits.models import Batch
from tests.factories import UserFactory

from .factories import written_pair

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("$4.50", ["4.50 dollars", "4.50", "4.5", "$4.5"]),
        ("$1,234.00", ["1234.00 dollars", "1234.00", "$1234.00", "1234", "$1234"]),
        ("25%", ["25 percent", "25 %"]),
        ("1.5 litres", ["1.5 liters", "1.5 l", "1.5 L", "1.5 litre", "1.5 liter"]),
        ("7", ["seven"]),
        ("seven", ["7"]),
        ("Blue kettle", []),
    ],
)
def test_rules_propose_other_ways_never_the_answer_itself(answer, expected):
    assert propose(answer) == expected
    assert answer not in propose(answer)


def test_a_validator_confirms_the_suggestions_they_tick_and_nothing_else(rater, client):
    pair = written_pair(author=rater)
    validator = UserFactory(role="validator")
    batch = Batch.objects.get(kind="validation", state="open")
    assignment, _ = hits.request_next_task(worker=validator, batch_id=batch.pk)
    client.force_login(validator)
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert 'data-testid="suggested-variants"' in page and 'value="4.50 dollars"' in page
    sent = client.post(f"/assignments/{assignment.pk}/", {
        "answer_correct": "yes", "follows_guidelines": "yes", "sources_needed": "yes",
        "suggested_variants": ["4.50 dollars", "4.5"], "answer_variants": "four dollars fifty",
    })  # fmt: skip
    assert sent.status_code in (200, 302), sent.content.decode()[:2000]
    pair.refresh_from_db()
    assert pair.answer_variants == ["four dollars fifty", "4.50 dollars", "4.5"]


def test_suggestions_are_not_offered_for_other_families(rater, client):
    pair = written_pair(author=rater, family=QAPair.Family.WEBQA)
    validator = UserFactory(role="validator")
    batch = Batch.objects.get(kind="validation", state="open", kind_settings__family="webqa")
    assignment, _ = hits.request_next_task(worker=validator, batch_id=batch.pk)
    client.force_login(validator)
    assert pair.answer == "$4.50"
    assert 'data-testid="suggested-variants"' not in client.get(f"/assignments/{assignment.pk}/").content.decode()
