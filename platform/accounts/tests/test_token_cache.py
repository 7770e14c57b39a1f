"""API tokens are read from the cache after their first use; every change to a token or
its user reaches the next call at once."""

from django.urls import reverse
from rest_framework.test import APIClient

from accounts import services
from accounts.authentication import TOKEN_CACHE_PREFIX
from accounts.models import digest_token


def _client(key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_used_token_is_checked_from_the_cache_without_a_query(rater, django_assert_num_queries):
    from django.core.cache import cache

    _, key = services.create_api_token(user=rater, name="script")
    client = _client(key)
    assert client.get("/api/v1/tokens/").status_code == 200  # first use: read and cached
    assert cache.get(TOKEN_CACHE_PREFIX + digest_token(key)) is not None
    with django_assert_num_queries(2):  # the page of tokens and its count; none for the token
        assert client.get("/api/v1/tokens/").status_code == 200


def test_a_cached_token_revoked_on_the_profile_page_stops_at_once(client, rater):
    token, key = services.create_api_token(user=rater, name="script")
    api = _client(key)
    assert api.get("/api/v1/tokens/").status_code == 200
    client.force_login(rater)
    client.post(reverse("accounts:revoke-token", args=[token.pk]))
    refused = api.get("/api/v1/tokens/")
    assert refused.status_code == 401 and "revoked" in refused.json()["error"]["message"]


def test_a_cached_token_revoked_through_the_api_stops_at_once(rater):
    token, key = services.create_api_token(user=rater, name="script")
    api = _client(key)
    assert api.delete(f"/api/v1/tokens/{token.pk}/").status_code == 204
    assert api.get("/api/v1/tokens/").status_code == 401


def test_a_cached_token_of_a_disabled_account_stops_at_once(rater):
    _, key = services.create_api_token(user=rater, name="script")
    api = _client(key)
    assert api.get("/api/v1/tokens/").status_code == 200
    rater.is_active = False
    rater.save()
    assert api.get("/api/v1/tokens/").status_code == 401


def test_a_role_change_reaches_a_cached_token_at_once(rater):
    _, key = services.create_api_token(user=rater, name="script")
    api = _client(key)
    assert api.get("/api/v1/assignments/?worker=1").status_code == 200
    rater.role = "reviewer"
    rater.save(update_fields=["role"])
    assert _client(key).get("/api/v1/me/").json()["role"] == "reviewer"


def test_a_deleted_token_stops_at_once(rater):
    token, key = services.create_api_token(user=rater, name="script")
    api = _client(key)
    assert api.get("/api/v1/tokens/").status_code == 200
    token.delete()
    assert api.get("/api/v1/tokens/").status_code == 401


def test_an_unreadable_cache_entry_is_read_again_from_the_database(rater):
    from django.core.cache import cache

    _, key = services.create_api_token(user=rater, name="script")
    cache.set(TOKEN_CACHE_PREFIX + digest_token(key), b"not a pickle", timeout=60)
    assert _client(key).get("/api/v1/tokens/").status_code == 200
