"""Hand-out under real concurrency: many HTTP clients at once against PostgreSQL."""

import json
import urllib.error
import urllib.request
from collections import Counter

import pytest
from django.db import connection

from accounts.services import create_api_token
from hits.models import Assignment, Task
from tests.concurrency import at_once
from tests.factories import GOOD_ANSWER, UserFactory, open_batch

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks (SELECT … FOR UPDATE SKIP LOCKED) need PostgreSQL"
    ),
]


def _call(base, key, path, body):
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Token {key}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_twenty_clients_fill_ten_tasks_of_two_exactly(live_server):
    batch = open_batch(tasks=10, wanted=2)
    keys = [create_api_token(user=user, name="load")[1] for user in UserFactory.create_batch(20)]
    outcomes, errors = [], []

    def client(key):
        while True:
            status, body = _call(live_server.url, key, "/api/v1/assignments/", {"batch": batch.pk})
            if status == 409 and body["error"]["code"] == "no_task_available":
                return
            if status not in (200, 201):
                errors.append((status, body))
                return
            outcomes.append(body["task"]["id"])
            status, body = _call(
                live_server.url, key, f"/api/v1/assignments/{body['id']}/submit/", {"answer": GOOD_ANSWER}
            )
            if status != 200:
                errors.append((status, body))
                return

    _results, crashes = at_once(client, keys, timeout=120)
    assert crashes == []

    assert errors == []
    assert len(outcomes) == 20
    assert Counter(outcomes) == {
        task_id: 2 for task_id in Task.objects.filter(batch=batch).values_list("id", flat=True)
    }
    assert Assignment.objects.filter(batch=batch).count() == 20
    pairs = list(Assignment.objects.filter(batch=batch).values_list("task_id", "worker_id"))
    assert len(set(pairs)) == 20  # no worker holds the same task twice
    assert set(Task.objects.filter(batch=batch).values_list("slots_taken", flat=True)) == {2}


def test_one_worker_asking_many_times_at_once_gets_one_assignment(live_server):
    batch = open_batch(tasks=10, wanted=1)
    key = create_api_token(user=UserFactory(), name="eager")[1]
    answers, errors = at_once(
        lambda _: _call(live_server.url, key, "/api/v1/assignments/", {"batch": batch.pk}), range(8)
    )
    assert errors == []
    assert len(answers) == 8 and {status for status, _ in answers} <= {200, 201}
    assert len({body["id"] for _, body in answers}) == 1
    assert Assignment.objects.filter(batch=batch).count() == 1


def test_one_assignment_submitted_many_times_at_once_is_recorded_once(live_server):
    batch = open_batch(tasks=2, wanted=1)
    key = create_api_token(user=UserFactory(), name="eager")[1]
    status, assignment = _call(live_server.url, key, "/api/v1/assignments/", {"batch": batch.pk})
    assert status == 201
    path = f"/api/v1/assignments/{assignment['id']}/submit/"
    answers, errors = at_once(lambda _: _call(live_server.url, key, path, {"answer": GOOD_ANSWER}), range(6))
    assert errors == []
    statuses = Counter(status for status, _ in answers)
    assert statuses == {200: 1, 409: 5}
    assert all("already submitted" in body["error"]["message"] for status, body in answers if status == 409)
    stored = Assignment.objects.get(pk=assignment["id"])
    assert stored.state == "submitted" and stored.answer == GOOD_ANSWER


def test_a_worker_blocked_while_asking_holds_no_open_task_afterwards(live_server):
    from hits import services

    batch = open_batch(tasks=20, wanted=1)
    worker, reviewer = UserFactory(), UserFactory(role="reviewer")
    key = create_api_token(user=worker, name="eager")[1]

    def ask_or_block(n):
        if n == 0:
            return services.block_worker(worker=worker, actor=reviewer, reason="Too fast to be true.")
        return _call(live_server.url, key, "/api/v1/assignments/", {"batch": batch.pk})

    _, errors = at_once(ask_or_block, range(6))
    assert errors == []
    assert not Assignment.objects.filter(worker=worker, state="assigned").exists()
