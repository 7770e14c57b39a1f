"""Reference answers: five different workers, full sentences, one keyword answer."""

import pytest
from rest_framework.exceptions import ValidationError

from accounts.models import Role
from corpus.models import ReferenceAnswer
from hits import services as hits
from hits.errors import NoTaskAvailable
from hits.models import Batch
from tests.factories import UserFactory
from validation.errors import NotAllowed
from validation.services import choose_for_references
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
