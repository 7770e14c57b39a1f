"""Batches published as MTurk HITs, workers doing them in MTurk's frame, and Trailmark's
decisions settled through MTurk's requester API (a local fake of its endpoint)."""

from decimal import Decimal
from xml.etree import ElementTree

import pytest

from hits import services as hits
from hits.models import Assignment
from providers import services
from providers.adapters.mturk import EXTERNAL_QUESTION
from providers.models import ProviderCall, ProviderSession, ProviderWorker, PublishedHit
from tests.factories import GOOD_ANSWER, open_batch

from .fakes import operations

pytestmark = pytest.mark.django_db

WORKER_SITE = "https://workersandbox.mturk.com"


def mturk_batch(**provider):
    return open_batch(
        tasks=3,
        reward="0.35",
        name="Passages on MTurk",
        min_approval_rate="0.95",
        min_approved_count=500,
        allowed_locales=["en-US", "en-GB"],
        assignment_minutes=20,
        kind_settings={"provider": {"name": "mturk", "keywords": "reading, questions", **provider}},
    )


def hit_url(batch, assignment="3ASSIGNFAKE000000000001", worker="A1WORKERFAKE01", hit="3HITFAKE000000000000"):
    return (
        f"/providers/mturk/{batch.pk}/?assignmentId={assignment}&hitId={hit}&workerId={worker}"
        f"&turkSubmitTo={WORKER_SITE}"
    )


@pytest.mark.usefixtures("jobs_run_at_once")
def test_publishing_creates_one_hit_per_task_with_an_external_question_and_the_batch_rules(
    mturk_api, django_capture_on_commit_callbacks
):
    batch = mturk_batch(title="Answer questions about passages", description="Read, then answer.")
    with django_capture_on_commit_callbacks(execute=True):
        services.publish(batch=batch, site_url="https://trailmark.example.org/")

    created = operations(mturk_api, "CreateHIT")
    assert len(created) == 3
    request = created[0]
    assert request.path == "/"
    assert request.headers["Content-Type"] == "application/x-amz-json-1.1"
    assert request.headers["X-Amz-Target"] == "MTurkRequesterServiceV20170117.CreateHIT"
    assert "AKIAFAKEFAKEFAKE" in request.headers["Authorization"]
    body = request.json
    question = body.pop("Question")
    assert body == {
        "MaxAssignments": 1,
        "AutoApprovalDelayInSeconds": 3 * 86400,
        "LifetimeInSeconds": 72 * 3600,
        "AssignmentDurationInSeconds": 20 * 60,
        "Reward": "0.35",
        "Title": "Answer questions about passages",
        "Keywords": "reading, questions",
        "Description": "Read, then answer.",
        "QualificationRequirements": [
            {
                "QualificationTypeId": "000000000000000000L0",
                "Comparator": "GreaterThanOrEqualTo",
                "IntegerValues": [95],
                "ActionsGuarded": "Accept",
            },
            {
                "QualificationTypeId": "00000000000000000040",
                "Comparator": "GreaterThanOrEqualTo",
                "IntegerValues": [500],
                "ActionsGuarded": "Accept",
            },
            {
                "QualificationTypeId": "00000000000000000071",
                "Comparator": "In",
                "LocaleValues": [{"Country": "US"}, {"Country": "GB"}],
                "ActionsGuarded": "Accept",
            },
        ],
        "UniqueRequestToken": f"trailmark-batch-{batch.pk}-hit-0",
    }
    xml = ElementTree.fromstring(question)
    assert xml.tag == f"{{{EXTERNAL_QUESTION}}}ExternalQuestion"
    assert xml.find(f"{{{EXTERNAL_QUESTION}}}ExternalURL").text == (
        f"https://trailmark.example.org/providers/mturk/{batch.pk}/"
    )
    assert xml.find(f"{{{EXTERNAL_QUESTION}}}FrameHeight").text == "0"
    assert [r.json["UniqueRequestToken"][-5:] for r in created] == ["hit-0", "hit-1", "hit-2"]
    assert sorted(PublishedHit.objects.values_list("hit_id", flat=True)) == [
        "3HITFAKE000000000000",
        "3HITFAKE000000000001",
        "3HITFAKE000000000002",
    ]
    assert set(ProviderCall.objects.values_list("path", "state", "status")) == {("CreateHIT", "done", 200)}

    # Publishing again adds only what is missing (here: nothing).
    with django_capture_on_commit_callbacks(execute=True):
        assert services.publish(batch=batch, site_url="https://trailmark.example.org/") == []
    assert len(operations(mturk_api, "CreateHIT")) == 3


def test_a_preview_shows_the_first_task_read_only_and_makes_no_account(client):
    batch = mturk_batch()
    response = client.get(f"/providers/mturk/{batch.pk}/?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=3HITFAKE")
    assert response.status_code == 200
    assert b"<fieldset disabled>" in response.content and b"Passage number 0." in response.content
    assert (
        "frame-ancestors https://www.mturk.com https://workersandbox.mturk.com" in response["Content-Security-Policy"]
    )
    assert "X-Frame-Options" not in response
    assert not ProviderWorker.objects.exists() and not Assignment.objects.exists()


def test_an_accepted_hit_is_done_and_posted_on_to_mturk_without_cookies(client):
    batch = mturk_batch(assignments_per_hit=2)
    batch.min_approved_count = 0  # the fresh linked account has no approved work in Trailmark
    batch.save()
    page = client.get(hit_url(batch))
    assert page.status_code == 200
    session = ProviderSession.objects.get()
    assert (session.provider, session.external_id, session.study_id, session.worker.external_id) == (
        "mturk", "3ASSIGNFAKE000000000001", "3HITFAKE000000000000", "A1WORKERFAKE01",
    )  # fmt: skip
    assert "A1WORKERFAKE01" not in session.worker.user.username
    assert f'action="/providers/mturk/sessions/{session.token}/"'.encode() in page.content

    client.cookies.clear()  # framed on MTurk's site: no cookies, no CSRF token
    refused = client.post(f"/providers/mturk/sessions/{session.token}/", {"answer": ""})
    assert refused.status_code == 400 and b"Write your answer." in refused.content
    done = client.post(f"/providers/mturk/sessions/{session.token}/", GOOD_ANSWER)
    assert done.status_code == 200
    assert f'action="{WORKER_SITE}/mturk/externalSubmit"'.encode() in done.content
    assert b'name="assignmentId" value="3ASSIGNFAKE000000000001"' in done.content
    assert b'name="answer" value="seven"' in done.content
    assert f"form-action 'self' {WORKER_SITE}" in done["Content-Security-Policy"]
    assignment = Assignment.objects.get()
    assert (assignment.state, assignment.answer) == ("submitted", GOOD_ANSWER)
    session.refresh_from_db()
    assert session.state == "completed"
    # Opening the HIT again only offers to send it again.
    again = client.get(hit_url(batch))
    assert b"/mturk/externalSubmit" in again.content and Assignment.objects.count() == 1


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("assignmentId=3A&hitId=3H&workerId=A1&turkSubmitTo=https://evil.example.org", 400, "not MTurk's"),
        ("assignmentId=3A&hitId=3H&turkSubmitTo=https://www.mturk.com", 400, "workerId"),
        ("assignmentId=3a-b&hitId=3H&workerId=A1&turkSubmitTo=https://www.mturk.com", 400, "assignmentId"),
    ],
)
def test_bad_hit_parameters_are_refused_and_nothing_is_made(client, query, status, words):
    batch = mturk_batch()
    response = client.get(f"/providers/mturk/{batch.pk}/?{query}")
    assert response.status_code == status and words in response.context["message"]
    assert not ProviderWorker.objects.exists() and not ProviderSession.objects.exists()


def test_an_assignment_id_arriving_with_another_worker_is_refused(client):
    batch = mturk_batch(min_approved_count=0)
    client.get(hit_url(batch))
    response = client.get(hit_url(batch, worker="A2SOMEONEELSE"))
    assert response.status_code == 409
    assert ProviderWorker.objects.count() == 1


def test_a_worker_trailmark_finds_ineligible_is_asked_to_return_the_hit(client):
    from tests.factories import QualificationFactory

    batch = mturk_batch()
    batch.required_qualifications.add(QualificationFactory(slug="kettle-experts", name="Kettle experts"))
    page = client.get(hit_url(batch))
    assert page.status_code == 200 and b"return the HIT" in page.content
    assert ProviderSession.objects.get().state == "screened_out"
    assert not Assignment.objects.exists()


def test_mturks_qualification_requirements_stand_for_the_batchs_standing_rules(client):
    batch = mturk_batch()  # 500 approved assignments: MTurk checked that before the worker could accept
    page = client.get(hit_url(batch))
    assert page.status_code == 200 and b"return the HIT" not in page.content
    assert Assignment.objects.count() == 1


@pytest.fixture
def submitted(client):
    batch = mturk_batch()
    batch.min_approved_count = 0
    batch.save()
    client.get(hit_url(batch))
    session = ProviderSession.objects.get()
    client.post(f"/providers/mturk/sessions/{session.token}/", GOOD_ANSWER)
    return Assignment.objects.get()


def _decide(capture, decision, **kwargs):
    with capture(execute=True):
        decision(**kwargs)


@pytest.mark.usefixtures("jobs_run_at_once")
def test_approval_and_bonus_reach_mturk(submitted, reviewer, mturk_api, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    _decide(capture, hits.approve_assignment, assignment_id=submitted.pk, actor=reviewer, feedback="Thanks!")
    _decide(capture, hits.grant_bonus, assignment_id=submitted.pk, actor=reviewer, amount="0.25", reason="Careful")
    (approve,) = operations(mturk_api, "ApproveAssignment")
    assert approve.json == {"AssignmentId": "3ASSIGNFAKE000000000001", "RequesterFeedback": "Thanks!"}
    (bonus,) = operations(mturk_api, "SendBonus")
    assert bonus.json == {
        "WorkerId": "A1WORKERFAKE01",
        "BonusAmount": "0.25",
        "AssignmentId": "3ASSIGNFAKE000000000001",
        "Reason": "Careful",
        "UniqueRequestToken": f"trailmark-assignment-{submitted.pk}-bonus-1",
    }
    calls = list(ProviderCall.objects.order_by("id").values_list("provider", "purpose", "path", "state", "status"))
    assert calls == [
        ("mturk", "approve", "ApproveAssignment", "done", 200),
        ("mturk", "bonus", "SendBonus", "done", 200),
    ]
    assert Assignment.objects.get().bonus == Decimal("0.25")


@pytest.mark.usefixtures("jobs_run_at_once")
def test_rejection_reaches_mturk_with_the_feedback(submitted, reviewer, mturk_api, django_capture_on_commit_callbacks):
    feedback = "The answer is not in the passage."
    _decide(
        django_capture_on_commit_callbacks,
        hits.reject_assignment,
        assignment_id=submitted.pk,
        actor=reviewer,
        feedback=feedback,
    )
    (reject,) = mturk_api.requests
    assert reject.headers["X-Amz-Target"] == "MTurkRequesterServiceV20170117.RejectAssignment"
    assert reject.json == {"AssignmentId": "3ASSIGNFAKE000000000001", "RequesterFeedback": feedback}
    assert ProviderSession.objects.get().decision == "rejected"


def test_work_done_outside_a_provider_sends_nothing(reviewer, rater, django_capture_on_commit_callbacks):
    batch = open_batch(tasks=1)
    assignment, _ = hits.request_next_task(worker=rater, batch_id=batch.pk)
    hits.submit_assignment(assignment_id=assignment.pk, worker=rater, data=GOOD_ANSWER)
    with django_capture_on_commit_callbacks(execute=True):
        hits.approve_assignment(assignment_id=assignment.pk, actor=reviewer)
        hits.grant_bonus(assignment_id=assignment.pk, actor=reviewer, amount="1", reason="Good")
    assert not ProviderCall.objects.exists()


@pytest.mark.usefixtures("jobs_run_at_once")
def test_admins_publish_from_the_batch_list_and_see_the_calls(
    admin_user, client, mturk_api, settings, django_capture_on_commit_callbacks
):
    settings.PROVIDERS_SITE_URL = "https://trailmark.example.org"
    batch = mturk_batch(hits=2)
    not_mturk = open_batch(tasks=1, name="Plain batch")
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/hits/batch/",
            {"action": "publish", "_selected_action": [batch.pk, not_mturk.pk]},
            follow=True,
        )
    shown = [str(message) for message in response.context["messages"]]
    assert f"{batch}: 2 HITs being published." in shown
    assert any("Plain batch" in message and "not set up" in message for message in shown)
    assert len(operations(mturk_api, "CreateHIT")) == 2
    assert PublishedHit.objects.filter(batch=batch).count() == 2
    calls = client.get("/admin/providers/providercall/")
    assert calls.status_code == 200 and b"CreateHIT" in calls.content
