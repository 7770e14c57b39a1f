"""The rater's pages, through Django's test client."""

import pytest
from django.urls import reverse

from hits import services
from hits.models import Assignment
from tests.factories import GOOD_ANSWER, open_batch

pytestmark = pytest.mark.django_db


def test_home_lists_work_with_reasons_for_what_i_cannot_take(client, rater):
    open_batch(tasks=2, name="Open to all")
    open_batch(tasks=2, name="German only", allowed_locales=["de-DE"])
    client.force_login(rater)
    page = client.get(reverse("hits:home")).content.decode()
    assert "Open to all" in page and "German only" in page
    assert "This batch is for workers in de-DE; your profile says en-US." in page
    assert page.count(">Start</button>") == 1


def test_anonymous_visitors_read_what_trailmark_is_with_a_way_to_log_in(client):
    response = client.get(reverse("hits:home"))
    assert response.status_code == 200
    assert response.templates[0].name == "landing.html"
    assert reverse("accounts:login").encode() in response.content
    # The pages behind it still ask visitors to log in.
    response = client.get(reverse("training:questions"))
    assert response.status_code == 302 and reverse("accounts:login") in response["Location"]


def test_start_submit_with_errors_then_submit_and_continue(client, rater):
    batch = open_batch(tasks=2, name="Passages")
    client.force_login(rater)
    started = client.post(reverse("hits:start", args=[batch.pk]))
    assignment = Assignment.objects.get(worker=rater)
    assert started["Location"] == reverse("hits:task", args=[assignment.pk])
    page = client.get(started["Location"])
    assert b"What number is passage" in page.content

    bad = client.post(started["Location"], {"answer": "", "active_seconds": "5"})
    assert bad.status_code == 400 and b"Write your answer." in bad.content and b"Say how sure you are." in bad.content
    assignment.refresh_from_db()
    assert assignment.state == "assigned"

    done = client.post(started["Location"], {**GOOD_ANSWER, "active_seconds": "5", "continue": "1"})
    assert done.status_code == 302
    assignment.refresh_from_db()
    assert assignment.state == "submitted" and assignment.active_seconds <= 5
    following = Assignment.objects.get(worker=rater, state="assigned")
    assert done["Location"] == reverse("hits:task", args=[following.pk])


def test_skip_hands_the_next_task_and_return_goes_home(client, rater):
    batch = open_batch(tasks=3)
    client.force_login(rater)
    client.post(reverse("hits:start", args=[batch.pk]))
    first = Assignment.objects.get(worker=rater)
    skipped = client.post(reverse("hits:return", args=[first.pk]), {"then": "next"})
    second = Assignment.objects.get(worker=rater, state="assigned")
    assert skipped["Location"] == reverse("hits:task", args=[second.pk]) and second.task_id != first.task_id
    returned = client.post(reverse("hits:return", args=[second.pk]))
    assert returned["Location"] == reverse("hits:home")
    assert set(Assignment.objects.filter(worker=rater).values_list("state", flat=True)) == {"returned"}


def test_someone_elses_task_page_does_not_exist_for_me(client, rater, other_rater):
    assignment, _ = services.request_next_task(worker=rater, batch_id=open_batch(tasks=1).pk)
    client.force_login(other_rater)
    assert client.get(reverse("hits:task", args=[assignment.pk])).status_code == 404
    assert client.post(reverse("hits:return", args=[assignment.pk])).status_code == 404


def test_history_and_earnings_show_decisions(client, rater, reviewer):
    batch = open_batch(tasks=2, reward="0.40", name="Paid batch")
    for _ in range(2):
        assignment, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
        services.submit_assignment(assignment_id=assignment.pk, worker=rater, data=GOOD_ANSWER)
    first, second = Assignment.objects.filter(worker=rater).order_by("id")
    services.approve_assignment(assignment_id=first.pk, actor=reviewer)
    services.grant_bonus(assignment_id=first.pk, actor=reviewer, amount="0.10", reason="Sharp question")
    services.reject_assignment(assignment_id=second.pk, actor=reviewer, feedback="Answer not in the passage")
    client.force_login(rater)
    page = client.get(reverse("hits:home")).content.decode()
    assert "$0.50" in page  # total earned: 0.40 pay + 0.10 bonus
    assert "Answer not in the passage" in page and "Sharp question" in page
    assert "50% of 2" in page


def test_closed_assignment_page_says_so_instead_of_a_form(client, rater):
    assignment, _ = services.request_next_task(worker=rater, batch_id=open_batch(tasks=1).pk)
    services.submit_assignment(assignment_id=assignment.pk, worker=rater, data=GOOD_ANSWER)
    client.force_login(rater)
    page = client.get(reverse("hits:task", args=[assignment.pk]))
    assert (
        b"This assignment is submitted." in page.content
        and b'<form method="post" class="card task-form"' not in page.content
    )
    resubmit = client.post(reverse("hits:task", args=[assignment.pk]), GOOD_ANSWER)
    assert resubmit.status_code == 302
    assert Assignment.objects.filter(worker=rater).count() == 1
