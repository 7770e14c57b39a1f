"""Participants arriving from Prolific, and Trailmark's decisions settled on Prolific's API."""

from datetime import timedelta
from decimal import Decimal

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import authenticate
from django.test import RequestFactory
from django.utils import timezone

from accounts.models import User
from hits import services as hits
from hits.models import Assignment
from providers import services
from providers.models import ProviderCall, ProviderSession, ProviderWorker
from tests.factories import GOOD_ANSWER, open_batch

pytestmark = pytest.mark.django_db

PID, STUDY, SESSION = "5f1e2d3c4b5a69788796a5b4", "60aa00bb11cc22dd33ee44ff", "61bb00cc11dd22ee33ff4400"


def prolific_batch(**provider):
    settings = {
        "name": "prolific",
        "tasks": 2,
        "completion_code": "C1OK2DONE",
        "screened_out_code": "CSCREENED",
        "return_code": "CRETURNED",
        **provider,
    }
    return open_batch(tasks=4, kind_settings={"provider": settings})


def arrival(batch, pid=PID, study=STUDY, session=SESSION):
    return f"/providers/prolific/{batch.pk}/?PROLIFIC_PID={pid}&STUDY_ID={study}&SESSION_ID={session}"


def work_through(client, response, answers=2):
    """Follows the participant's pages, submitting ``answers`` tasks; returns the last page."""
    for _ in range(answers):
        task_page = client.get(response.url)
        assert task_page.status_code == 302 and "/assignments/" in task_page.url
        response = client.post(task_page.url, {**GOOD_ANSWER})
        assert response.status_code == 302
    return client.get(response.url)


def test_arrival_links_a_passwordless_account_and_hands_out_the_first_task(client):
    batch = prolific_batch()
    response = client.get(arrival(batch))
    assert response.status_code == 302
    link = ProviderWorker.objects.get(provider="prolific", external_id=PID)
    assert PID not in link.user.username and not link.user.has_usable_password()
    session = ProviderSession.objects.get(external_id=SESSION)
    assert (session.worker, session.study_id, session.state) == (link, STUDY, "active")
    task = client.get(response.url)
    assert task.status_code == 302
    assignment = Assignment.objects.get(worker=link.user)
    assert task.url == f"/assignments/{assignment.pk}/"
    page = client.get(task.url)
    assert b"Stop and return to Prolific" in page.content and b"Return and stop" not in page.content


def test_two_tasks_end_with_the_completion_code_and_coming_back_resumes(client):
    batch = prolific_batch()
    ended = work_through(client, client.get(arrival(batch)))
    assert ended.status_code == 200
    assert ended.context["code"] == "C1OK2DONE"
    assert ended.context["back_url"] == "https://app.prolific.com/submissions/complete?cc=C1OK2DONE"
    assert Assignment.objects.filter(state="submitted").count() == 2
    session = ProviderSession.objects.get()
    assert session.state == "completed"

    client.logout()
    again = client.get(client.get(arrival(batch)).url)
    assert again.context["code"] == "C1OK2DONE"
    assert ProviderWorker.objects.count() == ProviderSession.objects.count() == 1


def test_stopping_midway_returns_the_open_task_and_gives_the_return_code(client):
    batch = prolific_batch()
    work_through(client, client.get(arrival(batch)), answers=1)  # the second task is now open
    session = ProviderSession.objects.get()
    ended = client.post(f"/providers/prolific/sessions/{session.token}/stop/")
    assert ended.context["code"] == "CRETURNED"
    assert sorted(Assignment.objects.values_list("state", flat=True)) == ["returned", "submitted"]
    session.refresh_from_db()
    assert session.state == "returned"


def test_an_ineligible_participant_is_screened_out_with_its_code(client):
    from tests.factories import QualificationFactory

    batch = prolific_batch()
    batch.required_qualifications.add(QualificationFactory(slug="kettle-experts", name="Kettle experts"))
    ended = client.get(client.get(arrival(batch)).url)
    assert ended.context["code"] == "CSCREENED"
    assert "Kettle experts" in ended.context["session"].reason
    assert not Assignment.objects.exists()


def test_the_providers_own_screening_stands_for_approval_rate_count_and_locale(client):
    """A new linked account has no record here: the study's screeners (or MTurk's
    qualification requirements) applied the batch's standing rules on the provider."""
    batch = prolific_batch()
    batch.allowed_locales, batch.min_approved_count = ["es-ES"], 50
    batch.save()
    task = client.get(client.get(arrival(batch)).url)
    assert task.status_code == 302 and "/assignments/" in task.url
    link = ProviderWorker.objects.get(external_id=PID)
    assert link.user.profile.screened_by_provider == "prolific"


@pytest.mark.parametrize(
    ("make_url", "status", "words"),
    [
        (lambda batch: arrival(batch).replace(f"/{batch.pk}/", "/999999/"), 404, "does not exist"),
        (lambda batch: arrival(batch, pid="not-a-prolific-id"), 400, "PROLIFIC_PID"),
        (lambda batch: arrival(batch, session="61bb00cc11dd22ee33ff44"), 400, "SESSION_ID"),
        (lambda batch: arrival(batch).replace("&STUDY_ID", "&STUDY"), 400, "STUDY_ID"),
        (lambda batch: arrival(batch, pid=PID.upper()), 400, "PROLIFIC_PID"),
    ],
)
def test_missing_or_malformed_parameters_are_refused_and_nothing_is_made(client, make_url, status, words):
    batch = prolific_batch()
    users = User.objects.count()
    response = client.get(make_url(batch))
    assert response.status_code == status
    assert words in response.context["message"]
    assert User.objects.count() == users
    assert not ProviderWorker.objects.exists() and not ProviderSession.objects.exists()


def test_a_batch_not_set_up_for_prolific_is_refused(client):
    batch = open_batch(tasks=1)
    response = client.get(arrival(batch))
    assert response.status_code == 404
    assert "not set up for Prolific" in response.context["message"]
    unfinished = open_batch(tasks=1, kind_settings={"provider": {"name": "prolific", "tasks": 2}})
    response = client.get(arrival(unfinished))
    assert response.status_code == 404 and "completion_code" in response.context["message"]
    assert not ProviderWorker.objects.exists()


def test_a_pid_already_in_the_study_under_another_session_is_refused(client):
    batch = prolific_batch()
    client.get(arrival(batch))
    client.logout()
    response = client.get(arrival(batch, session="62cc00dd11ee22ff3300aa11"))
    assert response.status_code == 409
    assert "already took part" in response.context["message"]
    other = client.get(arrival(batch, pid="5f1e2d3c4b5a69788796ffff"))  # someone else with that session id
    assert other.status_code == 409
    assert ProviderWorker.objects.count() == ProviderSession.objects.count() == 1


def test_a_link_for_another_study_is_refused_when_the_batch_names_its_study(client):
    batch = prolific_batch(study_id="60aa00bb11cc22dd33ee0000")
    response = client.get(arrival(batch))
    assert response.status_code == 409 and "another Prolific study" in response.context["message"]
    assert not ProviderSession.objects.exists()


def test_the_link_backend_never_accepts_a_password_and_the_log_in_form_is_untouched(client):
    batch = prolific_batch()
    client.get(arrival(batch))
    user = ProviderWorker.objects.get().user
    request = RequestFactory().post("/accounts/login/")
    assert authenticate(request, username=user.username, password="") is None
    client.logout()
    form = client.post("/accounts/login/", {"username": user.username, "password": "guess"})
    assert form.status_code == 200 and not form.wsgi_request.user.is_authenticated
    assert AccessAttempt.objects.filter(username=user.username).exists()  # axes still counts failures


# --- Settling decisions on Prolific's API -------------------------------------------------------


@pytest.fixture
def completed(client):
    """A Prolific session whose two tasks were submitted."""
    batch = prolific_batch()
    work_through(client, client.get(arrival(batch)))
    return ProviderSession.objects.get()


def decide(django_capture_on_commit_callbacks, decision, **kwargs):
    with django_capture_on_commit_callbacks(execute=True):
        return decision(**kwargs)


@pytest.mark.usefixtures("jobs_run_at_once")
def test_approving_every_task_approves_the_submission_on_prolific(
    completed, reviewer, prolific_api, django_capture_on_commit_callbacks
):
    first, second = Assignment.objects.order_by("id")
    decide(django_capture_on_commit_callbacks, hits.approve_assignment, assignment_id=first.pk, actor=reviewer)
    assert prolific_api.requests == []  # one task still waits for its decision
    decide(django_capture_on_commit_callbacks, hits.approve_assignment, assignment_id=second.pk, actor=reviewer)

    (request,) = prolific_api.requests
    assert (request.method, request.path) == ("POST", f"/api/v1/submissions/{SESSION}/transition/")
    assert request.headers["Authorization"] == "Token prolific-test-token"
    assert request.json == {"action": "APPROVE"}
    call = ProviderCall.objects.get()
    assert (call.provider, call.purpose, call.method, call.state, call.status) == (
        "prolific", "approve", "POST", "done", 200,
    )  # fmt: skip
    assert call.request_body == {"action": "APPROVE"} and '"APPROVED"' in call.response_excerpt
    assert call.sent_at and call.milliseconds is not None
    completed.refresh_from_db()
    assert completed.decision == "approved"


@pytest.mark.usefixtures("jobs_run_at_once")
def test_a_rejected_task_rejects_the_submission_once_with_the_feedback(
    completed, reviewer, prolific_api, django_capture_on_commit_callbacks
):
    first, second = Assignment.objects.order_by("id")
    feedback = "The answers do not come from the passages."
    decide(
        django_capture_on_commit_callbacks,
        hits.reject_assignment,
        assignment_id=first.pk,
        actor=reviewer,
        feedback=feedback,
    )
    decide(django_capture_on_commit_callbacks, hits.approve_assignment, assignment_id=second.pk, actor=reviewer)
    (request,) = prolific_api.requests
    assert request.path == f"/api/v1/submissions/{SESSION}/transition/"
    assert request.json == {"action": "REJECT", "message": feedback, "rejection_category": "OTHER"}


@pytest.mark.usefixtures("jobs_run_at_once")
def test_a_bonus_is_set_up_then_paid_on_prolific(completed, reviewer, prolific_api, django_capture_on_commit_callbacks):
    first = Assignment.objects.order_by("id").first()
    decide(
        django_capture_on_commit_callbacks,
        hits.grant_bonus,
        assignment_id=first.pk,
        actor=reviewer,
        amount="0.50",
        reason="Careful answers",
    )
    set_up, pay = prolific_api.requests
    assert (set_up.method, set_up.path) == ("POST", "/api/v1/submissions/bonus-payments/")
    assert set_up.json == {"study_id": STUDY, "csv_bonuses": f"{PID},0.50"}
    assert (pay.method, pay.path) == ("POST", "/api/v1/bulk-bonus-payments/65f0c0ffee0000000000b0b0/pay/")
    assert pay.headers["Authorization"] == "Token prolific-test-token"
    calls = list(ProviderCall.objects.order_by("id").values_list("purpose", "state", "status"))
    assert calls == [("bonus", "done", 201), ("bonus_pay", "done", 202)]
    assert ProviderCall.objects.get(purpose="bonus_pay").follows.purpose == "bonus"
    assert Assignment.objects.get(pk=first.pk).bonus == Decimal("0.50")


@pytest.mark.usefixtures("jobs_run_at_once")
def test_an_unreachable_api_is_recorded_and_the_call_can_be_sent_again(
    completed, reviewer, prolific_api, settings, django_capture_on_commit_callbacks
):
    settings.PROLIFIC_API_URL = "http://127.0.0.1:9"  # nothing listens there
    for assignment in Assignment.objects.order_by("id"):
        decide(django_capture_on_commit_callbacks, hits.approve_assignment, assignment_id=assignment.pk, actor=reviewer)
    call = ProviderCall.objects.get()
    assert call.state == "failed" and call.status is None and "Connection refused" in call.error
    assert Assignment.objects.filter(state="approved").count() == 2  # the decision itself stands

    settings.PROLIFIC_API_URL = prolific_api.url
    with django_capture_on_commit_callbacks(execute=True):
        assert services.retry_call(call=call)
    call.refresh_from_db()
    assert (call.state, call.status, call.attempts) == ("done", 200, 2)
    assert len(prolific_api.requests) == 1
    assert services.send_call(call_id=call.pk) is None  # a job run twice sends nothing more


def test_stopping_after_the_open_task_expired_still_ends_the_session_returned(client):
    batch = prolific_batch()
    client.get(client.get(arrival(batch)).url)  # the first task is handed out
    Assignment.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    session = ProviderSession.objects.get()
    ended = client.post(f"/providers/prolific/sessions/{session.token}/stop/")
    assert ended.status_code == 200 and ended.context["code"] == "CRETURNED"
