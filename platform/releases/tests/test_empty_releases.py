"""A release that would hold no QA pair is refused, with what to change, wherever a build
starts: the API, the release's page; nothing is left behind."""

import pytest

from releases.models import Release
from tests.api import api_error

from . import data
from .helpers import release

pytestmark = pytest.mark.django_db


def test_the_api_refuses_to_create_and_build_an_empty_release_and_keeps_nothing(admin_user, rater, api_for):
    data.screen_pair(rater)  # WebQuest only
    client = api_for(admin_user)
    body = {"name": "trail", "version": "1.0.0", "families": ["webvln"]}
    error = api_error(client.post("/api/v1/releases/", body, format="json"), 400, "empty_release")
    assert "trail 1.0.0 would hold no QA pairs: there is nothing to build." in error["message"]
    assert not Release.objects.exists()
    draft = client.post("/api/v1/releases/", {**body, "build": False}, format="json")  # a draft may wait for pairs
    assert draft.status_code == 201
    api_error(client.post(f"/api/v1/releases/{draft.json()['id']}/build/"), 400, "empty_release")
    assert Release.objects.get().state == "draft"
    built = client.post("/api/v1/releases/", {**body, "version": "1.1.0", "families": ["webquest"]}, format="json")
    assert built.status_code == 201 and built.json()["state"] == "queued"


def test_the_release_page_refuses_to_build_an_empty_release(admin_user, rater, client):
    draft = release(admin_user, families=["webqa"])
    data.screen_pair(rater)
    client.force_login(admin_user)
    response = client.post(f"/releases/{draft.pk}/build/", follow=True)
    assert "trail 1.0.0 would hold no QA pairs: there is nothing to build." in response.content.decode()
    assert Release.objects.get(pk=draft.pk).state == "draft"
