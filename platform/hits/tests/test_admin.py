"""Admins run the work engine from the Django admin."""

import pytest
from django.urls import reverse

from hits import services
from hits.models import Assignment, Batch
from tests.factories import GOOD_ANSWER, open_batch

pytestmark = pytest.mark.django_db


def _submitted(worker, batch):
    assignment, _ = services.request_next_task(worker=worker, batch_id=batch.pk)
    return services.submit_assignment(assignment_id=assignment.pk, worker=worker, data=GOOD_ANSWER)


def _act(client, model, action, ids, **form):
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    return client.post(url, {"action": action, "_selected_action": ids, **form}, follow=True)


def test_admin_approves_rejects_and_bonuses_from_the_assignment_list(client, admin_user, rater, other_rater):
    batch = open_batch(tasks=2)
    good, bad = _submitted(rater, batch), _submitted(other_rater, batch)
    client.force_login(admin_user)
    _act(client, Assignment, "approve", [good.pk], feedback="Nice")
    refused = _act(client, Assignment, "reject", [bad.pk], feedback="")
    assert "Say why" in refused.content.decode()
    _act(client, Assignment, "reject", [bad.pk], feedback="Off topic")
    _act(client, Assignment, "bonus", [good.pk], feedback="Inventive", amount="0.40")
    not_money = _act(client, Assignment, "bonus", [good.pk], feedback="x", amount="lots")
    assert not_money.status_code == 200
    good.refresh_from_db()
    bad.refresh_from_db()
    assert (good.state, str(good.bonus), bad.state, bad.feedback) == ("approved", "0.40", "rejected", "Off topic")


def test_admin_opens_and_closes_batches_and_blocks_workers(client, admin_user, rater):
    batch = services.create_batch(name="Draft batch", kind="demo_question")
    client.force_login(admin_user)
    _act(client, Batch, "open_batches", [batch.pk])
    batch.refresh_from_db()
    assert batch.state == "open"
    _act(client, Batch, "close_batches", [batch.pk])
    batch.refresh_from_db()
    assert batch.state == "closed"

    from accounts.models import RaterProfile

    refused = _act(client, RaterProfile, "block", [rater.profile.pk], reason="")
    assert "Say why" in refused.content.decode()
    _act(client, RaterProfile, "block", [rater.profile.pk], reason="Copied answers")
    rater.profile.refresh_from_db()
    assert rater.profile.blocked and rater.profile.blocked_reason == "Copied answers"


def test_raters_cannot_open_the_admin(client, rater):
    client.force_login(rater)
    response = client.get(reverse("admin:hits_assignment_changelist"))
    assert response.status_code == 302 and "login" in response["Location"]


def test_every_admin_page_renders(client, admin_user, rater):
    _submitted(rater, open_batch(tasks=1))
    client.force_login(admin_user)
    for model in ("hits/batch", "hits/task", "hits/assignment", "hits/workevent", "accounts/user", "accounts/raterprofile",
                  "accounts/qualification", "accounts/apitoken"):  # fmt: skip
        assert client.get(f"/admin/{model}/").status_code == 200, model
    assert client.get(f"/admin/hits/batch/{Batch.objects.get().pk}/change/").status_code == 200
    assert client.get("/admin/accounts/user/add/").status_code == 200
