"""The quality API and the qualification tests' addresses: refusals are the error body, never a 500."""

import pytest

from tests.api import api_error

pytestmark = pytest.mark.django_db


def test_a_worker_named_by_something_not_a_number_is_a_field_error(reviewer, api_for):
    client = api_for(reviewer)
    for worker in ("abc", "1.5", "null,null", "0"):
        error = api_error(client.get("/api/v1/quality/", {"worker": worker}), 400, "invalid")
        assert set(error["fields"]) == {"worker"}


def test_a_worker_that_is_not_there_is_not_found(reviewer, api_for):
    for worker in ("99999999", "123456789012345678901234567890"):
        api_error(api_for(reviewer).get("/api/v1/quality/", {"worker": worker}), 404, "not_found")


def test_raters_are_refused_other_records_before_the_id_is_read(rater, other_rater, api_for):
    client = api_for(rater)
    for worker in ("abc", str(other_rater.pk)):
        api_error(client.get("/api/v1/quality/", {"worker": worker}), 403, "permission_denied")
    assert client.get("/api/v1/quality/").json()["worker"] == rater.pk


def test_reviewers_read_a_workers_record(rater, reviewer, api_for):
    assert api_for(reviewer).get("/api/v1/quality/", {"worker": rater.pk}).json()["worker"] == rater.pk


@pytest.mark.parametrize("slug", ["%00", "a%00b", "caf%C3%A9", "a.b"])
def test_a_qualification_test_address_that_is_no_slug_is_not_found(rater, api_for, slug):
    client = api_for(rater)
    api_error(client.get(f"/api/v1/qualification-tests/{slug}/"), 404, "not_found")
    api_error(
        client.post(f"/api/v1/qualification-tests/{slug}/attempts/", {"answers": {}}, format="json"), 404, "not_found"
    )
