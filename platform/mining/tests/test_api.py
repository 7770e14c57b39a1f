"""The mining API: who may start and read runs, their progress, retries, errors."""

import pytest
from django.test import override_settings

from accounts.models import Role
from mining import services
from mining.models import MiningChunk, MiningRun, ReasoningCheck
from tests.factories import UserFactory

from . import factories as make

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_api(admin_user, api_for):
    return api_for(admin_user)


def test_an_admin_starts_a_run_and_polls_its_progress(admin_api, django_capture_on_commit_callbacks):
    pair = make.qa_pair("What colour is the tram?", "Green.", keyword_answer="green", split_kind="image")
    with override_settings(CELERY_TASK_ALWAYS_EAGER=True), django_capture_on_commit_callbacks(execute=True):
        response = admin_api.post(
            "/api/v1/mining-runs/", {"job": "categorise", "scope": "qa_pairs", "qa_pairs": [pair.pk]}
        )
    assert response.status_code == 202, response.json()
    run_id = response.json()["id"]
    body = admin_api.get(f"/api/v1/mining-runs/{run_id}/").json()
    assert body["state"] == "done" and body["progress"] == 1.0 and body["total"] == 1
    assert body["chunks"] == {"queued": 0, "running": 0, "done": 1, "failed": 0}
    listed = admin_api.get("/api/v1/mining-runs/?job=categorise").json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == run_id


def test_only_admins_start_runs_and_only_staff_read_them(api_for):
    reviewer = api_for(UserFactory(role=Role.REVIEWER))
    rater = api_for(UserFactory(role=Role.RATER))
    response = reviewer.post("/api/v1/mining-runs/", {"job": "mine"})
    assert response.status_code == 403 and response.json()["error"]["code"] == "permission_denied"
    assert reviewer.get("/api/v1/mining-runs/").status_code == 200
    assert rater.get("/api/v1/mining-runs/").status_code == 403
    assert rater.get("/api/v1/distractors/").status_code == 403


def test_bad_requests_get_field_errors_and_unknown_ids_404(admin_api):
    response = admin_api.post("/api/v1/mining-runs/", {"job": "dig", "scope": "batch"})
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"job"}
    response = admin_api.post("/api/v1/mining-runs/", {"job": "mine", "scope": "batch"})
    assert response.json()["error"]["fields"] == {"batch": ["Name the batch to run over."]}
    assert admin_api.post("/api/v1/mining-runs/", {"job": "mine", "scope": "batch", "batch": 999}).status_code == 404
    response = admin_api.post("/api/v1/mining-runs/", {"job": "mine", "scope": "qa_pairs", "qa_pairs": [999]})
    assert response.status_code == 400 and "no QA pairs 999" in response.json()["error"]["message"]
    assert admin_api.get("/api/v1/mining-runs/nope/").status_code == 404
    assert admin_api.get("/api/v1/mining-runs/999/").status_code == 404


def test_retry_requeues_only_the_failed_chunks_of_a_failed_run(admin_api, django_capture_on_commit_callbacks):
    run = services.start_run(job=MiningRun.Job.CATEGORISE, enqueue=False)
    assert admin_api.post(f"/api/v1/mining-runs/{run.pk}/retry/").status_code == 409
    MiningRun.objects.filter(pk=run.pk).update(state="failed", total=2, processed=1)
    MiningChunk.objects.create(run=run, number=0, qa_pair_ids=[], state="done", attempts=1)
    failed = MiningChunk.objects.create(run=run, number=1, qa_pair_ids=[], state="failed", attempts=4, error="boom")
    with override_settings(CELERY_TASK_ALWAYS_EAGER=True), django_capture_on_commit_callbacks(execute=True):
        response = admin_api.post(f"/api/v1/mining-runs/{run.pk}/retry/")
    assert response.status_code == 202
    failed.refresh_from_db()
    assert failed.state == "done" and failed.attempts == 5
    assert MiningChunk.objects.get(run=run, number=0).attempts == 1
    assert admin_api.get(f"/api/v1/mining-runs/{run.pk}/").json()["state"] == "done"


def test_distractors_and_reasoning_checks_are_listed_and_resolved(admin_api):
    pair = make.qa_pair("How many hotels have a pool?", "3", split_kind="trace", reasoning_types=["arithmetic"])
    services.run_in_process(run=services.start_run(job=MiningRun.Job.CATEGORISE, enqueue=False))
    check = ReasoningCheck.objects.get(qa_pair=pair)
    listed = admin_api.get("/api/v1/reasoning-checks/?state=open").json()
    assert [row["id"] for row in listed["results"]] == [check.pk]
    response = admin_api.post(f"/api/v1/reasoning-checks/{check.pk}/resolve/", {"note": "Fine."})
    assert response.status_code == 200 and response.json()["state"] == "resolved"
    assert admin_api.post(f"/api/v1/reasoning-checks/{check.pk}/resolve/").status_code == 409
    assert admin_api.get(f"/api/v1/distractors/?qa_pair={pair.pk}").json()["count"] == 0
    assert admin_api.get("/api/v1/distractors/?qa_pair=x").status_code == 404


def test_the_schema_documents_the_mining_endpoints(admin_api):
    schema = admin_api.get("/api/v1/schema/?format=json").json()
    assert {"/api/v1/mining-runs/", "/api/v1/mining-runs/{id}/retry/", "/api/v1/reasoning-checks/{id}/resolve/"} <= set(
        schema["paths"]
    )
