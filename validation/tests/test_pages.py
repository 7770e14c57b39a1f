"""The validator's task page and the training pages, through Django's test client."""

import pytest

from hits import services as hits
from hits.models import Batch
from tests.factories import PASSWORD
from validation.tests.factories import validators, written_pair
from validation.tests.test_validation import judge

pytestmark = pytest.mark.django_db


def test_a_validator_sees_the_pair_and_its_sources_but_not_the_other_verdict(client, rater):
    pair = written_pair(author=rater)
    first, second = validators(2)
    judge(first, pair, accept=False, comment="A VERY DISTINCT COMPLAINT")
    client.login(username=second.username, password=PASSWORD)
    assignment, _ = hits.request_next_task(worker=second, batch_id=Batch.objects.get(kind="validation").pk)
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert pair.question in page and "Kettle costs $34.50" in page
    assert "A VERY DISTINCT COMPLAINT" not in page and first.username not in page

    refused = client.post(f"/assignments/{assignment.pk}/", {"answer_correct": "no"})
    assert refused.status_code == 400
    done = client.post(
        f"/assignments/{assignment.pk}/",
        {"answer_correct": "yes", "follows_guidelines": "yes", "sources_needed": "yes"},
    )
    assert done.status_code == 302
    pair.refresh_from_db()
    assert pair.validation.task.assignments_wanted == 3 and pair.state == "pending_validation"


def test_training_pages_show_tutorials_tests_and_standing(client, rater):
    client.login(username=rater.username, password=PASSWORD)
    index = client.get("/training/").content.decode()
    assert "Questions on images" in index and "Screen questions" in index and "Not taken yet." in index
    for family in ("screens", "traces", "images", "text"):
        assert client.get(f"/training/tutorials/{family}/").status_code == 200
    assert client.get("/training/tutorials/nothing/").status_code == 404
    assert "Item 15" in client.get("/training/tests/image-questions/").content.decode()
    assert client.get("/training/quality/").status_code == 200
    home = client.get("/").content.decode()
    assert "Qualifications" in home and "Take the test" in home
