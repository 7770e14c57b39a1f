"""Requests the work engine's API refuses, and how: the error body, never a 500."""

import pytest

from accounts.models import Role
from tests.api import api_error
from tests.factories import UserFactory, open_batch

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("action", ["block", "unblock"])
@pytest.mark.parametrize("worker", ["abc", "null,null", "false"])
def test_blocking_is_refused_to_raters_and_validators_whatever_the_worker_id(rater, api_for, action, worker):
    for user in (rater, UserFactory(role=Role.VALIDATOR)):
        response = api_for(user).post(f"/api/v1/workers/{worker}/{action}/", {"reason": "spam"}, format="json")
        assert "block or unblock" in api_error(response, 403, "permission_denied")["message"]


@pytest.mark.parametrize("action", ["block", "unblock"])
def test_blocking_a_worker_that_is_not_a_number_or_not_there_is_not_found(reviewer, api_for, action):
    client = api_for(reviewer)
    for worker in ("abc", "null,null", "false", "99999999", "123456789012345678901234567890"):
        response = client.post(f"/api/v1/workers/{worker}/{action}/", {"reason": "spam"}, format="json")
        api_error(response, 404, "not_found")


def test_blocking_needs_a_reason_and_then_blocks(rater, reviewer, api_for):
    client = api_for(reviewer)
    error = api_error(client.post(f"/api/v1/workers/{rater.pk}/block/", {}, format="json"), 400, "invalid")
    assert set(error["fields"]) == {"reason"}
    assert client.post(f"/api/v1/workers/{rater.pk}/block/", {"reason": "spam"}, format="json").status_code == 204
    assert api_for(rater).get("/api/v1/me/").json()["blocked"] is True
    assert client.post(f"/api/v1/workers/{rater.pk}/unblock/").status_code == 204
    assert api_for(rater).get("/api/v1/me/").json()["blocked"] is False


def test_assignment_filters_are_checked_not_passed_to_the_database(rater, reviewer, api_for):
    batch = open_batch(tasks=2)
    api_for(rater).post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    client = api_for(reviewer)
    for query, field in (("batch=abc", "batch"), ("worker=1.5", "worker"), ("state=lost", "state")):
        error = api_error(client.get(f"/api/v1/assignments/?{query}"), 400, "invalid")
        assert set(error["fields"]) == {field}
    assert client.get(f"/api/v1/assignments/?batch={batch.pk}&worker={rater.pk}&state=assigned").json()["count"] == 1
    assert client.get(f"/api/v1/assignments/?batch={batch.pk}&state=submitted").json()["count"] == 0
    assert client.get("/api/v1/assignments/?batch=&state=").json()["count"] == 1  # empty filters are no filters


def test_a_batch_with_a_negative_reward_is_a_field_error(admin_user, api_for):
    body = {"name": "Media Sharing", "kind": "demo_question", "reward": "-0.49"}
    error = api_error(api_for(admin_user).post("/api/v1/batches/", body, format="json"), 400, "invalid")
    assert set(error["fields"]) == {"reward"}
    assert api_for(admin_user).post("/api/v1/batches/", {**body, "reward": "0.00"}, format="json").status_code == 201


@pytest.mark.parametrize("draft", [r'"a\u0000b"', r'{"k\u0000": 1}', r'["\ud800"]', r'{"notes": {"x": "\udc00"}}'])
def test_a_draft_the_database_cannot_store_as_json_is_a_field_error(rater, api_for, draft):
    client = api_for(rater)
    assignment = client.post("/api/v1/assignments/", {"batch": open_batch(tasks=1).pk}, format="json").json()
    url = f"/api/v1/assignments/{assignment['id']}/draft/"
    error = api_error(
        client.generic("PUT", url, f'{{"draft": {draft}}}', content_type="application/json"), 400, "invalid"
    )
    assert set(error["fields"]) == {"draft"}
    assert client.put(url, {"draft": {"notes": "half done ✓"}}, format="json").status_code == 204


@pytest.mark.parametrize("locales", [r'["en\u0000"]', r'["\ud800"]', '[""]', '"en-US"', "[1]"])
def test_allowed_locales_are_a_list_of_locale_tags(admin_user, api_for, locales):
    body = f'{{"name": "Locales", "kind": "demo_question", "allowed_locales": {locales}}}'
    response = api_for(admin_user).generic("POST", "/api/v1/batches/", body, content_type="application/json")
    assert set(api_error(response, 400, "invalid")["fields"]) <= {"allowed_locales", "allowed_locales.0"}
