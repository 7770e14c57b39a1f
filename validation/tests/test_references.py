"""Reference answers: chosen from a draft release's test split; five different workers,
full sentences, one keyword answer; how far they agree."""

import pytest
from django.test import RequestFactory
from rest_framework.exceptions import ValidationError

from accounts.models import Role
from corpus.models import QAPair, ReferenceAnswer, ReferenceSet
from hits import services as hits
from hits.errors import NoTaskAvailable
from hits.models import Batch
from releases.models import Release
from releases.services import create_release
from releases.tests import data
from tests.factories import UserFactory
from validation.admin import collect_reference_answers, collect_test_split_references
from validation.errors import NotAllowed
from validation.services import choose_for_references, reference_agreement
from validation.tests.factories import written_pair

pytestmark = pytest.mark.django_db


@pytest.fixture
def candidate(rater, admin_user):
    pair = written_pair(author=rater, family="webqa", question="How many red balloons are there?")
    pair.state = "accepted"
    pair.save()
    (reference_set,) = choose_for_references(qa_pairs=[pair], actor=admin_user)
    return reference_set


def _write(worker, **answer):
    batch = Batch.objects.get(kind="references")
    assignment, _ = hits.request_next_task(worker=worker, batch_id=batch.pk)
    return hits.submit_assignment(assignment_id=assignment.pk, worker=worker, data=answer)


def test_five_workers_each_write_a_sentence_and_the_first_also_the_keyword(candidate, rater):
    assert candidate.task.assignments_wanted == 5
    writers = [UserFactory(role=Role.RATER) for _ in range(6)]
    with pytest.raises(ValidationError) as refused:
        _write(writers[0], answer="There are three red balloons.")
    assert "keyword_answer" in refused.value.detail
    _write(writers[0], answer="There are three red balloons.", keyword_answer="three")
    for writer in writers[1:5]:
        _write(writer, answer="Three red balloons are at the fair.", keyword_answer="3 balloons")
    with pytest.raises(NoTaskAvailable):
        _write(writers[5], answer="I count three red balloons.")
    with pytest.raises(NoTaskAvailable):  # nor does the author get their own question
        _write(rater, answer="There are three.")

    candidate.refresh_from_db()
    assert (candidate.keyword_answer, candidate.keyword_by) == ("three", writers[0])
    assert ReferenceAnswer.objects.filter(reference_set=candidate).count() == 5
    assert len(set(candidate.answers.values_list("worker", flat=True))) == 5
    candidate.qa_pair.refresh_from_db()
    assert candidate.qa_pair.keyword_answer == "three"


def test_a_reference_answer_must_be_a_full_sentence(candidate):
    with pytest.raises(ValidationError) as refused:
        _write(UserFactory(role=Role.RATER), answer="three", keyword_answer="three")
    assert "complete sentence" in str(refused.value.detail["answer"])


def test_only_admins_choose_accepted_pairs_as_candidates(rater, reviewer, admin_user):
    pending = written_pair(author=rater)
    with pytest.raises(NotAllowed):
        choose_for_references(qa_pairs=[pending], actor=reviewer)
    assert choose_for_references(qa_pairs=[pending], actor=admin_user) == []


def test_agreement_is_measured_when_the_fifth_answer_arrives(candidate):
    writers = [UserFactory(role=Role.RATER) for _ in range(5)]
    _write(writers[0], answer="There are three red balloons.", keyword_answer="3")
    for writer in writers[1:4]:
        _write(writer, answer="Three red balloons float there.")
    candidate.refresh_from_db()
    assert candidate.agreement is None
    _write(writers[4], answer="I see some red balloons.")
    candidate.refresh_from_db()
    assert candidate.agreement == 0.8  # four of five name the number; the author gave no keyword


def test_agreement_is_the_lower_keyword_recall_against_the_authors_and_the_writers_keyword():
    sentences = ["The towers are made of steel.", "Both towers are steel.", "They are stone towers.",
                 "The towers are steel.", "Steel towers, both."]  # fmt: skip
    assert reference_agreement(sentences=sentences, keywords=["steel", ""]) == 0.8
    assert reference_agreement(sentences=sentences, keywords=["steel", "steel towers"]) == 0.8
    assert reference_agreement(sentences=sentences, keywords=["stone", "steel"]) == 0.2
    assert reference_agreement(sentences=["It has seven doors."] * 5, keywords=["7 door"]) == 1.0
    assert reference_agreement(sentences=sentences, keywords=["the", ""]) is None


@pytest.fixture
def draft(admin_user, rater):
    """Five white colour questions (train) and a teal and a pink one (test), in a draft
    release that splits colours by answer, half and half."""
    for _ in range(5):
        data.webqa_image_pair(rater, keyword="white", negatives=0)
    for colour in ("teal", "pink"):
        data.webqa_image_pair(rater, keyword=colour, negatives=0)
    return create_release(name="webqa", version="1.0.0", families=["webqa"], train_percent=50, val_percent=0)


def _ids(keyword):
    return list(QAPair.objects.filter(keyword_answer=keyword).order_by("id").values_list("id", flat=True))


def test_the_api_chooses_the_draft_releases_test_items_and_says_why_it_skips_others(api_for, admin_user, draft):
    client = api_for(admin_user)
    white, teal = _ids("white")[0], _ids("teal")[0]
    response = client.post("/api/v1/reference-sets/", {"qa_pairs": [white, teal, 999999]}, format="json")
    assert response.status_code == 201, response.content
    assert response.json() == {
        "release": draft.pk, "created": 1, "qa_pairs": [teal],
        "skipped": [{"qa_pair": white, "reason": "not in the test split of webqa 1.0.0"},
                    {"qa_pair": 999999, "reason": "no such QA pair"}],
    }  # fmt: skip
    response = client.post("/api/v1/reference-sets/", {}, format="json")
    assert response.status_code == 201 and response.json()["qa_pairs"] == _ids("pink")
    response = client.post("/api/v1/reference-sets/", {"qa_pairs": [white]}, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "not_test_candidates"
    response = client.post("/api/v1/reference-sets/", {"release": draft.pk + 1000}, format="json")
    assert response.status_code == 404


def test_the_api_names_unknown_pairs_and_refuses_an_empty_list(api_for, admin_user, draft):
    client = api_for(admin_user)
    response = client.post("/api/v1/reference-sets/", {"qa_pairs": [999998, 999999]}, format="json")
    assert response.status_code == 404
    assert "999998, 999999" in response.json()["error"]["message"]
    response = client.post("/api/v1/reference-sets/", {"qa_pairs": []}, format="json")
    assert response.status_code == 400, response.content
    assert "qa_pairs" in response.json()["error"]["message"]


def test_the_api_refuses_without_a_draft_release(api_for, admin_user, rater):
    data.webqa_image_pair(rater, negatives=0)
    response = api_for(admin_user).post("/api/v1/reference-sets/", {}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "no_draft_release"


class _Admin:
    def __init__(self):
        self.messages = []

    def message_user(self, request, message, level=None):
        self.messages.append(message)


def test_the_admin_actions_choose_from_the_draft_releases_test_split(admin_user, draft):
    request = RequestFactory().post("/")
    request.user = admin_user
    on_pairs = _Admin()
    collect_reference_answers(on_pairs, request, QAPair.objects.filter(pk__in=_ids("white")[:1] + _ids("teal")))
    (said,) = on_pairs.messages
    assert said.startswith("1 pair of the test split of webqa 1.0.0 now get reference answers.")
    assert "not in the test split" in said
    on_release = _Admin()
    collect_test_split_references(on_release, request, Release.objects.filter(pk=draft.pk))
    assert on_release.messages == ["1 pair of the test split of webqa 1.0.0 now get reference answers."]
    assert set(ReferenceSet.objects.values_list("qa_pair_id", flat=True)) == set(_ids("teal") + _ids("pink"))
