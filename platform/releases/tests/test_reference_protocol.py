"""WebQA's test protocol: reference answers are collected for the items a draft release
puts in test, and test items whose references disagree are left out of the release."""

import pytest

from accounts.models import Role
from config.errors import DomainError
from corpus.models import QAPair
from hits import services as hits
from releases.models import ReleaseItem
from releases.snapshot import LOW_AGREEMENT
from releases.splits import test_candidates
from tests.factories import UserFactory
from validation.services import choose_for_references, choose_test_candidates

from . import data
from .helpers import build_now, release

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(admin_user, rater):
    """A draft WebQA release that splits colour questions by answer, half to train and
    half to test: the five white ones are train, the teal and pink ones test."""
    for _ in range(5):
        data.webqa_image_pair(rater, keyword="white", negatives=0)
    for colour in ("teal", "pink"):
        data.webqa_image_pair(rater, keyword=colour, negatives=0, question=f"What colour is the {colour} roof?")
    return release(admin_user, families=["webqa"], train_percent=50, val_percent=0)


def _pair(keyword):
    return QAPair.objects.filter(keyword_answer=keyword).order_by("id").first()


def _write_references(reference_set, sentences, keyword):
    """Five new writers answer ``reference_set``'s question, the first also in keywords."""
    for n, sentence in enumerate(sentences):
        writer = UserFactory(role=Role.RATER)
        assignment, _ = hits.request_next_task(worker=writer, batch_id=reference_set.task.batch_id)
        assert assignment.task_id == reference_set.task_id
        answer = {"answer": sentence, "keyword_answer": keyword if n == 0 else ""}
        hits.submit_assignment(assignment_id=assignment.pk, worker=writer, data=answer)
    reference_set.refresh_from_db()
    return reference_set


def test_reference_answers_are_collected_for_the_draft_releases_test_items_only(draft, admin_user):
    expected = test_candidates(seed=draft.seed, percents=(50, 0, 50), strategy="adversarial",
                               pairs=QAPair.objects.all())  # fmt: skip
    assert expected == [_pair("teal").pk, _pair("pink").pk]
    with pytest.raises(DomainError, match="not in the test split of trail 1.0.0") as refused:
        choose_test_candidates(actor=admin_user, qa_pairs=[_pair("white")])
    assert refused.value.code == "not_test_candidates"
    chosen = choose_test_candidates(actor=admin_user)
    assert chosen.release == draft
    assert [reference_set.qa_pair_id for reference_set in chosen.created] == expected
    assert choose_test_candidates(actor=admin_user).created == []  # each once

    built = build_now(draft)
    splits = dict(ReleaseItem.objects.filter(release=built).values_list("qa_pair_id", "split"))
    assert {splits[pair_id] for pair_id in expected} == {"test"}
    assert {split for pair_id, split in splits.items() if pair_id not in expected} == {"train"}


def test_without_a_draft_release_there_is_nothing_to_choose_from(admin_user, rater):
    data.webqa_image_pair(rater, negatives=0)
    with pytest.raises(DomainError, match="Define the next WebQA release first"):
        choose_test_candidates(actor=admin_user)
    release(admin_user, families=["webquest"])
    with pytest.raises(DomainError, match="Define the next WebQA release first"):
        choose_test_candidates(actor=admin_user)


def test_test_items_whose_references_disagree_are_left_out_and_counted(draft, admin_user, settings):
    teal, pink = choose_test_candidates(actor=admin_user).created
    agreeing = _write_references(teal, ["The roof is teal."] * 4 + ["It has a teal roof."], "teal")
    disagreeing = _write_references(pink, ["The roof is pink."] + ["The roof is green."] * 4, "pink")
    assert (agreeing.agreement, disagreeing.agreement) == (1.0, 0.2)
    # A train item is never a test candidate, but a set made by hand does not move it.
    (by_hand,) = choose_for_references(qa_pairs=[_pair("white")], actor=admin_user)
    assert _write_references(by_hand, ["It is black."] * 5, "black").agreement == 0.0

    built = build_now(draft)
    assert built.counts["excluded"] == {LOW_AGREEMENT: 1}
    splits = dict(ReleaseItem.objects.filter(release=built).values_list("qa_pair_id", "split"))
    assert pink.qa_pair_id not in splits
    assert (splits[teal.qa_pair_id], splits[by_hand.qa_pair_id]) == ("test", "train")

    settings.REFERENCE_MIN_AGREEMENT = 0.2
    lenient = build_now(release(admin_user, version="1.0.1", families=["webqa"], train_percent=50, val_percent=0))
    assert not lenient.counts["excluded"]
    assert lenient.items.get(qa_pair_id=pink.qa_pair_id).split == "test"
