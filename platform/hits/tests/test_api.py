from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from config.api import WriteThrottle
from hits import registry
from hits.models import Assignment, Batch, Task
from tests.api import api_error
from tests.factories import GOOD_ANSWER, open_batch

pytestmark = pytest.mark.django_db


def _take(client, batch):
    response = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_full_round_trip_over_the_api(rater, api_for):
    client = api_for(rater)
    batch = open_batch(tasks=2, reward="0.10")
    me = client.get("/api/v1/me/").json()
    assert (me["username"], me["role"], me["approval_rate"]) == (rater.username, "rater", None)
    available = client.get("/api/v1/batches/available/").json()
    assert available["count"] == 1 and available["results"][0]["tasks_available"] == 2
    assignment = _take(client, batch)
    assert assignment["task"]["payload"]["question"].startswith("What number")
    held = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert held.status_code == 200 and held.json()["id"] == assignment["id"]
    done = client.post(
        f"/api/v1/assignments/{assignment['id']}/submit/", {"answer": GOOD_ANSWER, "active_seconds": 3}, format="json"
    )
    assert done.status_code == 200 and done.json()["state"] == "submitted"
    assert done.json()["answer"] == GOOD_ANSWER


def test_submitting_to_someone_elses_assignment_is_forbidden(rater, other_rater, api_for):
    assignment = _take(api_for(rater), open_batch(tasks=1))
    response = api_for(other_rater).post(
        f"/api/v1/assignments/{assignment['id']}/submit/", {"answer": GOOD_ANSWER}, format="json"
    )
    api_error(response, 403, "not_your_assignment")
    assert Assignment.objects.get(pk=assignment["id"]).state == "assigned"
    # Nor can they read it.
    assert api_for(other_rater).get(f"/api/v1/assignments/{assignment['id']}/").status_code == 404


def test_second_submission_is_a_conflict_and_records_nothing(rater, api_for):
    client = api_for(rater)
    assignment = _take(client, open_batch(tasks=1))
    url = f"/api/v1/assignments/{assignment['id']}/submit/"
    assert client.post(url, {"answer": GOOD_ANSWER}, format="json").status_code == 200
    error = api_error(
        client.post(url, {"answer": {"answer": "other", "confidence": "low"}}, format="json"), 409, "assignment_closed"
    )
    assert "already submitted" in error["message"]
    stored = Assignment.objects.get(pk=assignment["id"])
    assert stored.answer == GOOD_ANSWER and Assignment.objects.filter(worker=rater).count() == 1


def test_expired_assignment_refuses_submission_and_frees_the_task(rater, api_for):
    client = api_for(rater)
    assignment = _take(client, open_batch(tasks=1))
    Assignment.objects.filter(pk=assignment["id"]).update(expires_at=timezone.now() - timedelta(seconds=5))
    response = client.post(f"/api/v1/assignments/{assignment['id']}/submit/", {"answer": GOOD_ANSWER}, format="json")
    assert "expired" in api_error(response, 409, "assignment_closed")["message"]
    stored = Assignment.objects.get(pk=assignment["id"])
    assert stored.state == "expired" and stored.answer is None
    assert Task.objects.get(pk=stored.task_id).slots_taken == 0


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"answer": {"answer": "", "confidence": "sure"}}, {"answer.answer", "answer.confidence"}),
        ({"answer": {"answer": "x" * 501, "confidence": "low"}}, {"answer.answer"}),
        ({"answer": "seven"}, {"answer"}),
        ({}, {"answer"}),
        ({"answer": GOOD_ANSWER, "active_seconds": -4}, {"active_seconds"}),
    ],
    ids=["blank-and-bad-choice", "too-long", "not-an-object", "missing", "negative-time"],
)
def test_malformed_submission_gets_field_errors_and_changes_nothing(rater, api_for, body, fields):
    client = api_for(rater)
    assignment = _take(client, open_batch(tasks=1))
    error = api_error(
        client.post(f"/api/v1/assignments/{assignment['id']}/submit/", body, format="json"), 400, "invalid"
    )
    assert set(error["fields"]) == fields
    assert Assignment.objects.get(pk=assignment["id"]).state == "assigned"


def test_ineligible_worker_is_told_why(rater, api_for):
    batch = open_batch(tasks=1, allowed_locales=["fr-FR"])
    error = api_error(
        api_for(rater).post("/api/v1/assignments/", {"batch": batch.pk}, format="json"), 403, "not_eligible"
    )
    assert "fr-FR" in error["message"] and "en-US" in error["message"]
    listed = api_for(rater).get("/api/v1/batches/available/").json()["results"][0]
    assert listed["eligible"] is False and "fr-FR" in listed["reason"]


def test_batch_of_an_unknown_kind(rater, admin_user, api_for):
    created = api_for(admin_user).post("/api/v1/batches/", {"name": "Nope", "kind": "no_such_kind"}, format="json")
    assert "no_such_kind" in api_error(created, 400, "invalid")["fields"]["kind"][0]
    batch = open_batch(tasks=1)
    Batch.objects.filter(pk=batch.pk).update(kind="retired_kind")
    response = api_for(rater).post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert "retired_kind" in api_error(response, 409, "unknown_kind")["message"]


def test_request_for_a_missing_batch_or_assignment(rater, api_for):
    client = api_for(rater)
    missing = api_error(client.post("/api/v1/assignments/", {"batch": 999999}, format="json"), 404, "not_found")
    assert "999999" in missing["message"]
    malformed = api_error(client.post("/api/v1/assignments/", {"batch": "first"}, format="json"), 400, "invalid")
    assert "batch" in malformed["fields"]
    api_error(
        client.post("/api/v1/assignments/999999/submit/", {"answer": GOOD_ANSWER}, format="json"), 404, "not_found"
    )
    api_error(client.post("/api/v1/assignments/abc/submit/", {"answer": GOOD_ANSWER}, format="json"), 404, "not_found")


def test_no_credentials_and_revoked_tokens_are_refused(rater, api_for):
    from rest_framework.test import APIClient

    api_error(APIClient().get("/api/v1/me/"), 401, "not_authenticated")
    client = api_for(rater)
    token = rater.api_tokens.get()
    client.delete(f"/api/v1/tokens/{token.pk}/")
    api_error(client.get("/api/v1/me/"), 401, "authentication_failed")


def test_admin_builds_a_batch_over_the_api(admin_user, rater, api_for):
    admin = api_for(admin_user)
    batch = admin.post(
        "/api/v1/batches/", {"name": "Passages", "kind": "demo_question", "reward": "0.12"}, format="json"
    )
    assert batch.status_code == 201, batch.json()
    batch_id = batch.json()["id"]
    bad = admin.post(f"/api/v1/batches/{batch_id}/tasks/", {"payloads": [{"passage": "p"}]}, format="json")
    assert api_error(bad, 400, "invalid")["fields"] == {"payloads.0.question": ["This field is required."]}
    assert Task.objects.filter(batch_id=batch_id).count() == 0
    good = admin.post(
        f"/api/v1/batches/{batch_id}/tasks/",
        {"payloads": [{"passage": "p", "question": "q"}] * 3, "assignments_wanted": 2},
        format="json",
    )
    assert good.status_code == 201 and good.json() == {"created": 3}
    assert admin.post(f"/api/v1/batches/{batch_id}/open/").json()["state"] == "open"
    api_error(
        api_for(rater).post("/api/v1/batches/", {"name": "x", "kind": "demo_question"}, format="json"),
        403,
        "permission_denied",
    )


def test_reviewer_judges_and_rater_cannot(rater, reviewer, api_for):
    worker = api_for(rater)
    assignment = _take(worker, open_batch(tasks=1))
    worker.post(f"/api/v1/assignments/{assignment['id']}/submit/", {"answer": GOOD_ANSWER}, format="json")
    api_error(
        worker.post(f"/api/v1/assignments/{assignment['id']}/approve/", {}, format="json"), 403, "permission_denied"
    )
    judge = api_for(reviewer)
    api_error(judge.post(f"/api/v1/assignments/{assignment['id']}/reject/", {}, format="json"), 400, "invalid")
    approved = judge.post(f"/api/v1/assignments/{assignment['id']}/approve/", {"feedback": "Good"}, format="json")
    assert approved.json()["state"] == "approved"
    bonus = judge.post(
        f"/api/v1/assignments/{assignment['id']}/bonus/", {"amount": "0.30", "reason": "Creative"}, format="json"
    )
    assert bonus.json()["bonus"] == "0.30"
    assert judge.post(f"/api/v1/workers/{rater.pk}/block/", {"reason": "spam"}, format="json").status_code == 204
    assert worker.get("/api/v1/me/").json()["blocked"] is True


def test_lists_are_paginated_and_scoped(rater, other_rater, reviewer, api_for):
    batch = open_batch(tasks=3, wanted=2)
    _take(api_for(rater), batch)
    _take(api_for(other_rater), batch)
    mine = api_for(rater).get("/api/v1/assignments/?page_size=1").json()
    assert mine["count"] == 1 and {"next", "previous", "results"} <= set(mine)
    assert api_for(reviewer).get("/api/v1/assignments/").json()["count"] == 2


def test_writes_are_throttled(rater, api_for, monkeypatch):
    monkeypatch.setattr(WriteThrottle, "THROTTLE_RATES", {"writes": "3/min"})
    client = api_for(rater)
    batch = open_batch(tasks=1)
    codes = [client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").status_code for _ in range(4)]
    assert codes[:3] == [201, 200, 200]
    error = api_error(client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json"), 429, "throttled")
    assert "available in" in error["message"]
    assert client.get("/api/v1/me/").status_code == 200  # reads are not throttled


def test_openapi_schema_and_docs_page(client):
    schema = client.get("/api/v1/schema/?format=json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert {
        "/api/v1/me/",
        "/api/v1/assignments/",
        "/api/v1/assignments/{id}/submit/",
        "/api/v1/batches/available/",
    } <= set(paths)
    assert client.get("/api/v1/docs/").status_code == 200


def test_kind_registry_rejects_two_kinds_with_one_name():
    class Impostor(type(registry.get("demo_question"))):
        pass

    with pytest.raises(ValueError, match="Two task kinds"):
        registry.register(Impostor())


def test_hand_out_and_submit_take_a_fixed_number_of_queries(rater, api_for, django_assert_max_num_queries):
    client = api_for(rater)
    batch = open_batch(tasks=40)
    client.get("/api/v1/me/")  # the token's first use records last_used_at
    # Hand-out: the batch with the worker's profile and what the batch asks of them, and
    # the claiming statement (with the SAVEPOINT and RELEASE the test's own transaction
    # adds around it); submission: the assignment, and the statement recording the
    # answer. The token is read from the cache. SQLite, which has no SKIP LOCKED, claims in
    # steps inside a transaction.
    hand_out_limit = 4 if connection.vendor == "postgresql" else 8
    for _ in range(3):
        with django_assert_max_num_queries(hand_out_limit):
            assignment = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").json()
        with django_assert_max_num_queries(2):
            client.post(f"/api/v1/assignments/{assignment['id']}/submit/", {"answer": GOOD_ANSWER}, format="json")


def test_draft_is_kept_for_the_worker_only_while_the_assignment_is_open(rater, other_rater, api_for):
    client = api_for(rater)
    assignment = _take(client, open_batch(tasks=1))
    url = f"/api/v1/assignments/{assignment['id']}/draft/"
    assert client.put(url, {"draft": {"answer": "sev"}}, format="json").status_code == 204
    assert client.get(f"/api/v1/assignments/{assignment['id']}/").json()["draft"] == {"answer": "sev"}
    api_error(api_for(other_rater).put(url, {"draft": {"answer": "x"}}, format="json"), 403, "not_your_assignment")
    api_error(client.put(url, {"draft": {"answer": "x" * 70000}}, format="json"), 400, "invalid")
    api_error(client.put(url, {}, format="json"), 400, "invalid")
    client.post(f"/api/v1/assignments/{assignment['id']}/submit/", {"answer": GOOD_ANSWER}, format="json")
    api_error(client.put(url, {"draft": {"answer": "late"}}, format="json"), 409, "assignment_closed")
    assert Assignment.objects.get(pk=assignment["id"]).draft == {"answer": "sev"}


def test_an_expired_assignment_refuses_even_a_bad_answer_as_expired(rater, api_for):
    client = api_for(rater)
    assignment = _take(client, open_batch(tasks=1))
    Assignment.objects.filter(pk=assignment["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    response = client.post(f"/api/v1/assignments/{assignment['id']}/submit/", {"answer": {}}, format="json")
    assert "expired" in api_error(response, 409, "assignment_closed")["message"]
    assert Assignment.objects.get(pk=assignment["id"]).state == "expired"


def test_someone_elses_assignment_refuses_a_submission_and_keeps_it_open(rater, other_rater, api_for):
    assignment = _take(api_for(rater), open_batch(tasks=1))
    response = api_for(other_rater).post(
        f"/api/v1/assignments/{assignment['id']}/submit/", {"answer": GOOD_ANSWER}, format="json"
    )
    api_error(response, 403, "not_your_assignment")
    assert Assignment.objects.get(pk=assignment["id"]).state == "assigned"


def test_the_hand_out_and_submission_answer_exactly_what_the_assignment_serializer_gives(rater, reviewer, api_for):
    from hits import services
    from hits.serializers import AssignmentSerializer, assignment_data

    client = api_for(rater)
    batch = open_batch(tasks=2, reward="0.25")
    handed = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").json()
    stored = Assignment.objects.select_related("batch", "task").get(pk=handed["id"])
    assert handed == AssignmentSerializer(stored).data == assignment_data(stored)
    submitted = client.post(
        f"/api/v1/assignments/{handed['id']}/submit/", {"answer": GOOD_ANSWER, "active_seconds": 0}, format="json"
    ).json()
    stored = Assignment.objects.select_related("batch", "task").get(pk=handed["id"])
    assert submitted == AssignmentSerializer(stored).data
    services.approve_assignment(assignment_id=stored.pk, actor=reviewer)
    services.grant_bonus(assignment_id=stored.pk, actor=reviewer, amount="1.5", reason="Careful work.")
    stored = Assignment.objects.select_related("batch", "task").get(pk=handed["id"])
    assert assignment_data(stored) == AssignmentSerializer(stored).data
    assert assignment_data(stored)["pay"] == "0.25" and assignment_data(stored)["bonus"] == "1.50"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"answer": GOOD_ANSWER, "active_seconds": None}, "active_seconds"),
        ({"answer": GOOD_ANSWER, "active_seconds": -1}, "active_seconds"),
        ({"answer": GOOD_ANSWER, "active_seconds": True}, "active_seconds"),
        ({"answer": "seven"}, "answer"),
        ({}, "answer"),
    ],
)
def test_a_submission_body_the_serializer_refuses_is_refused_with_its_field(rater, api_for, body, field):
    client = api_for(rater)
    assignment = _take(client, open_batch(tasks=1))
    response = client.post(f"/api/v1/assignments/{assignment['id']}/submit/", body, format="json")
    assert field in api_error(response, 400, "invalid")["fields"]
    assert Assignment.objects.get(pk=assignment["id"]).state == "assigned"


@pytest.mark.parametrize("batch", [None, "x", 0, -3, True, 1.5, [1]])
def test_a_hand_out_body_the_serializer_refuses_is_refused_with_its_field(rater, api_for, batch):
    response = api_for(rater).post("/api/v1/assignments/", {"batch": batch}, format="json")
    assert "batch" in api_error(response, 400, "invalid")["fields"]
