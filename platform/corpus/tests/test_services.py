"""Writing QA pairs with their evidence, and deciding them: the one path every kind and
the validation take, with its events."""

import pytest
from django.db import IntegrityError, transaction

from corpus import services
from corpus.models import Evidence, QAPair
from corpus.signals import pair_decided, pairs_written
from hits import services as hits
from tests.factories import UserFactory, open_batch

pytestmark = pytest.mark.django_db


@pytest.fixture
def assignment():
    worker = UserFactory()
    batch = open_batch(tasks=1)
    assignment, _ = hits.request_next_task(worker=worker, batch_id=batch.pk)
    return assignment


def _pair(**fields):
    return {"family": "webqa", "split_kind": "text", "question": "Which is older?", "answer": "The mill is.", **fields}


def _listening(signal):
    heard = []

    def receive(**kwargs):
        heard.append(kwargs)

    signal.connect(receive)
    return heard, receive


def test_write_pairs_stores_each_pair_with_its_ordered_evidence_and_announces_them(assignment):
    heard, receive = _listening(pairs_written)
    try:
        written = services.write_pairs(
            assignment=assignment,
            pairs=[
                _pair(evidence=[{"fact": "The mill dates from 1820.", "url": "https://example.org/mill", "note": "age"},
                                {"fact": "The inn dates from 1890.", "url": "https://example.org/inn"}]),
                _pair(question="Which is newer?", answer="The inn is.",
                      evidence=[{"fact": "The inn dates from 1890.", "url": "https://example.org/inn"}]),
            ],
        )  # fmt: skip
    finally:
        pairs_written.disconnect(receive)
    assert [p.author_id for p in written] == [assignment.worker_id] * 2
    assert all(p.assignment_id == assignment.pk and p.state == "pending_validation" for p in written)
    first = list(Evidence.objects.filter(qa_pair=written[0]).values_list("position", "fact", "note"))
    assert first == [(0, "The mill dates from 1820.", "age"), (1, "The inn dates from 1890.", "")]
    assert [[p.pk for p in event["qa_pairs"]] for event in heard] == [[p.pk for p in written]]


def test_evidence_naming_no_source_or_an_unknown_field_writes_nothing(assignment):
    with pytest.raises(IntegrityError), transaction.atomic():
        services.write_pairs(assignment=assignment, pairs=[_pair(evidence=[{"note": "nothing cited"}])])
    with pytest.raises(TypeError, match="no field 'screen_id'"):
        services.write_pairs(assignment=assignment, pairs=[_pair(evidence=[{"screen_id": 1}])])
    assert not QAPair.objects.exists() and not Evidence.objects.exists()


def test_deciding_a_pair_sets_its_state_and_reason_and_announces_it(assignment):
    (pair,) = services.write_pairs(
        assignment=assignment, pairs=[_pair(evidence=[{"fact": "It is old.", "url": "https://example.org/"}])]
    )
    heard, receive = _listening(pair_decided)
    try:
        services.decide_pair(qa_pair=pair, state=QAPair.State.REJECTED, reason="2 of 2 validators rejected it.")
    finally:
        pair_decided.disconnect(receive)
    pair.refresh_from_db()
    assert (pair.state, pair.state_reason) == ("rejected", "2 of 2 validators rejected it.")
    assert [(event["qa_pair"].pk, event["state"]) for event in heard] == [(pair.pk, "rejected")]


def test_a_kind_writes_only_the_family_and_split_kind_it_declares(assignment):
    class Kind:
        name, family, split_kind = "text_kind", "webqa", "text"

    evidence = [{"fact": "It is old.", "url": "https://example.org/"}]
    (pair,) = services.write_pairs(
        assignment=assignment, kind=Kind, pairs=[{"question": "Q?", "answer": "A.", "evidence": evidence}]
    )
    assert (pair.family, pair.split_kind) == ("webqa", "text")
    with pytest.raises(ValueError, match="writes split_kind 'text', not 'image'"):
        services.write_pairs(assignment=assignment, kind=Kind, pairs=[_pair(split_kind="image", evidence=evidence)])
    assert QAPair.objects.count() == 1
