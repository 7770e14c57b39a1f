"""The lean path of the hand-out and the submission (hits/fastpath.py): taken on the
happy path, and answering every refusal with the status, body and headers DRF's view
gives; anything off the plain path still reaches the DRF view."""

import pytest
from django.urls import resolve

from config.api import WriteThrottle
from hits import fastpath
from hits.api import AssignmentViewSet
from hits.models import Assignment
from tests.factories import GOOD_ANSWER, open_batch

pytestmark = pytest.mark.django_db

COMPARED_HEADERS = ("Content-Type", "Allow", "Vary", "Retry-After", "WWW-Authenticate")


@pytest.fixture
def lean_only(monkeypatch):
    """DRF's view of assignments refuses to run: whatever answers, answered on the lean path."""

    def refuse(*args, **kwargs):
        raise AssertionError("the DRF view answered a call the lean path should have")

    monkeypatch.setattr(AssignmentViewSet, "dispatch", refuse)


@pytest.fixture
def drf_only(monkeypatch):
    """Returns a switch: once called, every call goes to the DRF view."""
    return lambda: monkeypatch.setattr(fastpath, "_json_body", lambda request: None)


def _cached_client(api_for, user):
    client = api_for(user)
    assert client.get("/api/v1/me/").status_code == 200  # the token is now in the cache
    return client


def _answer(response):
    return response.status_code, response.content, {name: response.get(name) for name in COMPARED_HEADERS}


def test_the_routes_and_the_schema_still_see_the_drf_views():
    for path, action in (("/api/v1/assignments/", "create"), ("/api/v1/assignments/7/submit/", "submit")):
        view = resolve(path).func
        assert view.cls is AssignmentViewSet and action in view.actions.values()
        assert view.__wrapped__ is not view and view.csrf_exempt


def test_a_whole_cycle_takes_the_lean_path(rater, api_for, lean_only):
    client = _cached_client(api_for, rater)
    batch = open_batch(tasks=2)
    taken = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert taken.status_code == 201 and taken["Content-Type"] == "application/json"
    held = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert held.status_code == 200 and held.json() == taken.json()
    done = client.post(
        f"/api/v1/assignments/{taken.json()['id']}/submit/", {"answer": GOOD_ANSWER, "active_seconds": 2}, format="json"
    )
    assert done.status_code == 200 and done.json()["state"] == "submitted" and done.json()["answer"] == GOOD_ANSWER
    assert Assignment.objects.get(pk=taken.json()["id"]).state == "submitted"


def test_the_lean_answers_are_the_drf_views_answers(rater, other_rater, api_for, drf_only):
    client = _cached_client(api_for, rater)
    batch = open_batch(tasks=2)
    first = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert first.status_code == 201
    other_batch = open_batch(tasks=1)
    others = _cached_client(api_for, other_rater).post("/api/v1/assignments/", {"batch": other_batch.pk}, format="json")
    submit = f"/api/v1/assignments/{first.json()['id']}/submit/"
    calls = [
        ("/api/v1/assignments/", {"batch": batch.pk}),  # held: 200
        ("/api/v1/assignments/", {"batch": 999999}),  # no such batch: 404
        ("/api/v1/assignments/", {"batch": open_batch(tasks=1, allowed_locales=["fr-FR"]).pk}),  # 403
        (submit, {"answer": {"answer": "", "confidence": "sure"}}),  # the kind's fields: 400
        ("/api/v1/assignments/999999/submit/", {"answer": GOOD_ANSWER}),  # 404
        ("/api/v1/assignments/abc/submit/", {"answer": GOOD_ANSWER}),  # 404
        (f"/api/v1/assignments/{others.json()['id']}/submit/", {"answer": GOOD_ANSWER}),  # 403
    ]
    lean = [_answer(client.post(path, body, format="json")) for path, body in calls]
    drf_only()
    drf = [_answer(client.post(path, body, format="json")) for path, body in calls]
    assert [status for status, _, _ in lean] == [200, 404, 403, 400, 404, 404, 403]
    assert lean == drf


def test_a_submission_and_its_repeat_answer_as_the_drf_view_does(rater, api_for, drf_only):
    client = _cached_client(api_for, rater)
    batch = open_batch(tasks=2)
    answers = []
    for switch in (lambda: None, drf_only):
        switch()
        taken = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").json()
        url = f"/api/v1/assignments/{taken['id']}/submit/"
        done = client.post(url, {"answer": GOOD_ANSWER}, format="json")
        again = client.post(url, {"answer": GOOD_ANSWER}, format="json")
        body = done.json()
        answers.append((_answer(again), done.status_code, sorted(body), body["state"], body["answer"]))
    assert answers[0][0][0] == 409
    assert answers[0] == answers[1]


def test_a_throttled_call_on_the_lean_path_is_refused_as_on_the_drf_view(rater, api_for, monkeypatch, drf_only):
    monkeypatch.setattr(WriteThrottle, "THROTTLE_RATES", {"writes": "2/min"})
    client = _cached_client(api_for, rater)
    batch = open_batch(tasks=1)
    codes = [client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").status_code for _ in range(3)]
    assert codes == [201, 200, 429]
    lean = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    drf_only()
    drf = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert lean.status_code == drf.status_code == 429
    assert lean.json()["error"]["code"] == drf.json()["error"]["code"] == "throttled"
    # The wait counts down between the two calls; everything else is the same.
    assert abs(int(lean["Retry-After"]) - int(drf["Retry-After"])) <= 1
    assert {name: lean.get(name) for name in ("Content-Type", "Allow", "Vary")} == {
        name: drf.get(name) for name in ("Content-Type", "Allow", "Vary")
    }


@pytest.mark.parametrize(
    ("kwargs", "status"),
    [
        ({"data": '{"batch": NaN}', "content_type": "application/json"}, 400),  # not strict JSON
        ({"data": '{"batch": ', "content_type": "application/json"}, 400),  # malformed
        ({"data": '{"batch": "BATCH"}', "content_type": "application/json"}, None),  # a string: the serializer's
        ({"data": "batch=BATCH", "content_type": "application/x-www-form-urlencoded"}, None),  # a form
        ({"data": '{"batch": BATCH}', "content_type": "application/json", "HTTP_ACCEPT": "text/html"}, None),
    ],
    ids=["nan", "malformed", "string-id", "form", "html"],
)
def test_calls_off_the_plain_path_reach_the_drf_view(rater, api_for, monkeypatch, kwargs, status):
    client = _cached_client(api_for, rater)
    batch = open_batch(tasks=1)
    body = kwargs.pop("data").replace("BATCH", str(batch.pk))
    reached = []
    dispatch = AssignmentViewSet.dispatch
    monkeypatch.setattr(AssignmentViewSet, "dispatch", lambda *a, **k: reached.append(1) or dispatch(*a, **k))
    response = client.generic("POST", "/api/v1/assignments/", body, **kwargs)
    assert reached == [1]
    assert response.status_code == (status or 201)


def test_an_uncached_or_refused_token_reaches_the_drf_view(rater, api_for, monkeypatch):
    client = api_for(rater)  # its token not read yet: not in the cache
    reached = []
    dispatch = AssignmentViewSet.dispatch
    monkeypatch.setattr(AssignmentViewSet, "dispatch", lambda *a, **k: reached.append(1) or dispatch(*a, **k))
    batch = open_batch(tasks=1)
    assert client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").status_code == 201
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    refused = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "authentication_failed"
    assert reached == [1, 1]


def _writes_counted(user):
    """The writes counted for ``user`` in this moment's window of the write throttle."""
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    from config.cache import redis_client

    window = WriteThrottle().window()
    key = f"{window.prefix}{user.pk}:{window.number}"
    cache = caches["default"]
    if isinstance(cache, RedisCache):
        return int(redis_client(cache).get(key) or 0)
    return cache.get(key, 0)


def test_lean_and_drf_calls_count_in_the_same_throttle_window(rater, api_for, monkeypatch, drf_only):
    monkeypatch.setattr(WriteThrottle, "THROTTLE_RATES", {"writes": "3/day"})
    client = _cached_client(api_for, rater)
    batch = open_batch(tasks=1)
    codes = [client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").status_code for _ in range(2)]
    assert codes == [201, 200] and _writes_counted(rater) == 2
    drf_only()
    codes = [client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").status_code for _ in range(2)]
    assert codes == [200, 429] and _writes_counted(rater) == 4


def test_a_token_cached_without_its_user_id_is_still_counted(rater, api_for, monkeypatch, lean_only):
    from django.core.cache import cache

    from accounts.authentication import TOKEN_USER_PREFIX
    from accounts.models import ApiToken

    monkeypatch.setattr(WriteThrottle, "THROTTLE_RATES", {"writes": "2/day"})
    client = _cached_client(api_for, rater)
    (digest,) = ApiToken.objects.filter(user=rater).values_list("digest", flat=True)
    assert cache.get(TOKEN_USER_PREFIX + digest) == rater.pk
    cache.delete(TOKEN_USER_PREFIX + digest)  # as an entry written before the id was kept beside it
    batch = open_batch(tasks=1)
    codes = [client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").status_code for _ in range(3)]
    assert codes == [201, 200, 429] and _writes_counted(rater) == 3


def test_an_address_over_its_failure_limit_is_refused_and_nothing_is_counted(rater, api_for, settings):
    from django.core.cache import cache

    client = _cached_client(api_for, rater)
    cache.set("trailmark:token-failures:127.0.0.1", settings.TOKEN_FAILURE_LIMIT)
    batch = open_batch(tasks=1)
    refused = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "too_many_failures"
    assert _writes_counted(rater) == 0 and not Assignment.objects.filter(worker=rater).exists()
