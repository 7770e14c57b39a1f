"""The work page counts only tasks hand-out would give: a validator's own pairs are not
"tasks for you"."""

import pytest

from hits import selectors
from validation.tests.factories import validators, written_pair

pytestmark = pytest.mark.django_db


def test_own_pairs_are_not_counted_as_work_for_their_author(rater):
    (validator,) = validators(1)
    written_pair(author=validator)
    written_pair(author=validator, question="And the second one?")
    written_pair(author=rater, question="Someone else's?")
    available = {row["batch"].kind: row["available"] for row in selectors.open_batches_for(worker=validator)}
    assert available["validation"] == 1
    assert {row["batch"].kind: row["available"] for row in selectors.open_batches_for(worker=rater)}["validation"] == 2
