"""The console is for staff: everyone else signed in gets the site's 403 page, and a
visitor is asked to log in; nothing is changed either way."""

import pytest
from django.urls import reverse

from hits.models import Batch
from releases.models import Release
from releases.tests.helpers import release

pytestmark = pytest.mark.django_db

PAGES = ["console:index", "console:batches", "console:reference-answers", "console:releases", "console:release-new",
         "console:runs"]  # fmt: skip


@pytest.mark.parametrize("name", PAGES)
def test_a_rater_gets_the_403_page_and_a_visitor_the_log_in(client, rater, name):
    assert client.get(reverse(name)).status_code == 302
    assert "/accounts/login/" in client.get(reverse(name))["Location"]
    client.force_login(rater)
    response = client.get(reverse(name))
    assert response.status_code == 403
    assert "The console is for staff only" in response.content.decode()
    assert "This page is not for your account" in response.content.decode()


def test_a_rater_cannot_build_define_or_download(client, rater, admin_user):
    draft = release(admin_user, families=["webquest"])
    client.force_login(rater)
    assert client.post(reverse("console:release-build", args=[draft.pk])).status_code == 403
    assert client.get(reverse("console:release-archive", args=[draft.pk])).status_code == 403
    form = {"name": "sneaky", "version": "1.0.0", "families": ["webquest"], "qa_states": ["accepted"],
            "split_strategy": "random", "webvln_setting": "seen", "seed": 0, "train_percent": 80,
            "val_percent": 10, "action": "define"}  # fmt: skip
    assert client.post(reverse("console:release-new"), form).status_code == 403
    assert client.post(reverse("console:batch-new", args=["demo_question"]), {"name": "x"}).status_code == 403
    assert Release.objects.get(pk=draft.pk).state == "draft"
    assert not Release.objects.filter(name="sneaky").exists()
    assert not Batch.objects.exists()


def test_an_admin_sees_every_part(client, admin_user):
    client.force_login(admin_user)
    for name in PAGES:
        response = client.get(reverse(name))
        assert response.status_code == 200, name
        assert 'href="/console/batches/"' in response.content.decode()


def test_the_front_page_lists_what_failed(client, admin_user):
    from mining.models import MiningRun

    Release.objects.create(name="shops", major=1, minor=0, patch=0, state="failed", message="ValueError: no disk")
    MiningRun.objects.create(job="mine", chunk_size=10, state="failed", message="The index is gone.")
    client.force_login(admin_user)
    page = client.get(reverse("console:index")).content.decode()
    assert "shops 1.0.0</a> failed to build: ValueError: no disk" in page
    assert "failed: The index is gone." in page
