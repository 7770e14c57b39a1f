"""Repeated failed log-ins lock the account and the address for a while, with a clear
message; failed API token checks are counted per address too."""

import uuid

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def _try(client, username, password):
    return client.post(reverse("accounts:login"), {"username": username, "password": password})


def test_five_wrong_passwords_lock_the_account_even_with_the_right_one_then(settings):
    user = UserFactory()
    client = Client(REMOTE_ADDR="10.0.0.1")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _try(client, user.username, "wrong").status_code == 200  # the form says they do not match
    locked = _try(client, user.username, "wrong")
    assert locked.status_code == 429 and "log-in is paused for 15 minutes" in locked.content.decode()
    assert locked["Retry-After"] == "900"
    again = _try(Client(REMOTE_ADDR="10.0.0.2"), user.username, PASSWORD)  # another address, same account
    assert again.status_code == 429
    assert not again.wsgi_request.user.is_authenticated


def test_an_admin_lifts_a_lockout_by_deleting_the_attempts(settings):
    from axes.models import AccessAttempt

    user = UserFactory()
    client = Client(REMOTE_ADDR="10.0.0.3")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _try(client, user.username, "wrong")
    assert _try(client, user.username, PASSWORD).status_code == 429
    AccessAttempt.objects.filter(username=user.username).delete()
    assert _try(client, user.username, PASSWORD).status_code == 302  # logged in


def test_a_few_mistakes_then_the_right_password_logs_in_and_resets_the_count(settings):
    user = UserFactory()
    client = Client(REMOTE_ADDR="10.0.0.4")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _try(client, user.username, "wrong")
    assert _try(client, user.username, PASSWORD).status_code == 302
    client.logout()
    assert _try(client, user.username, "wrong").status_code == 200  # counting starts again


def test_guessing_api_tokens_is_slowed_per_address(settings):
    from rest_framework.test import APIClient

    settings.TOKEN_FAILURE_LIMIT = 3
    address = f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"  # counts live in Redis
    guesser = APIClient(REMOTE_ADDR=address)
    guesser.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    codes = [guesser.get("/api/v1/me/").status_code for _ in range(4)]
    assert codes == [401, 401, 401, 429]
    body = guesser.get("/api/v1/me/").json()["error"]
    assert body["code"] == "too_many_failures" and "Wait" in body["message"]
