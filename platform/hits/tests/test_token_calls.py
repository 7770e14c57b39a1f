"""API calls made with a token pass over the browsers' middleware (sessions, CSRF, the
signed-in user, messages); calls from a signed-in browser keep all of it."""

import pytest
from django.test import Client

from tests.api import api_error
from tests.factories import open_batch

pytestmark = pytest.mark.django_db


def test_a_token_call_gets_no_session_and_no_cookie(rater, api_for):
    response = api_for(rater).post("/api/v1/assignments/", {"batch": open_batch(tasks=1).pk}, format="json")
    assert response.status_code == 201
    assert not response.cookies and "Cookie" not in response.get("Vary", "")
    assert not hasattr(response.wsgi_request, "session")


def test_a_signed_in_browser_still_needs_its_csrf_token_for_the_api(rater):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(rater)
    batch = open_batch(tasks=1)
    refused = browser.post("/api/v1/assignments/", {"batch": batch.pk}, content_type="application/json")
    assert "CSRF" in api_error(refused, 403, "permission_denied")["message"]
    page = browser.get("/")  # any page sets the CSRF cookie
    token = browser.cookies["csrftoken"].value if "csrftoken" in browser.cookies else page.cookies["csrftoken"].value
    taken = browser.post(
        "/api/v1/assignments/", {"batch": batch.pk}, content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert taken.status_code == 201 and taken.json()["worker"] == rater.pk


def test_a_bad_token_under_the_api_is_refused_without_falling_back_to_the_session(rater):
    browser = Client()
    browser.force_login(rater)
    refused = browser.get("/api/v1/me/", HTTP_AUTHORIZATION="Token not-a-token")
    api_error(refused, 401, "authentication_failed")
