"""Webhooks end to end over real HTTP: a local receiver checks signatures, a failing one
gets retries with growing delays and its endpoint is disabled, redelivery works, and the
platform's events (a batch done, a queue over its limit, an evaluation) are emitted."""

import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core import mail
from django.utils import timezone

from dashboards.alerts import watch
from hits import services as hits
from tests.factories import UserFactory, open_batch
from webhooks import services
from webhooks.models import Delivery, Endpoint
from webhooks.signing import HEADER, sign, verify

pytestmark = pytest.mark.django_db


class Receiver:
    """A local HTTP server that answers with the statuses it is given (then 200) and keeps
    every request it got, with whether its signature checked out against ``secret``."""

    def __init__(self):
        self.requests, self.statuses, self.delay, self.secret = [], [], 0, ""
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                time.sleep(receiver.delay)
                valid = verify(receiver.secret, body, self.headers.get(HEADER, ""))
                receiver.requests.append({"body": body, "headers": dict(self.headers), "valid": valid})
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok" if status < 300 else b"no")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    running = Receiver()
    yield running
    running.close()


@pytest.fixture
def endpoint(receiver, admin_user):
    made = Endpoint.objects.create(url=receiver.url, events=["batch.completed", "queue.threshold",
                                                             "evaluation.finished"], created_by=admin_user)  # fmt: skip
    receiver.secret = made.secret
    return made


def test_a_delivery_is_signed_and_the_receiver_verifies_it(endpoint, receiver):
    (delivery,) = services.emit("batch.completed", {"batch": 7})
    assert services.deliver(delivery.pk).state == "delivered"
    (request,) = receiver.requests
    assert request["valid"] and request["headers"]["Trailmark-Event"] == "batch.completed"
    body = json.loads(request["body"])
    assert body["event"] == "batch.completed" and body["data"] == {"batch": 7} and body["id"] == delivery.event_id
    # A tampered body, an old timestamp or another secret fail the check.
    header = request["headers"][HEADER]
    assert not verify(endpoint.secret, request["body"].replace(b"7", b"8"), header)
    assert not verify("another secret", request["body"], header)
    stale = sign(endpoint.secret, request["body"], timestamp=time.time() - 3600)
    assert not verify(endpoint.secret, request["body"], stale)


def test_only_subscribed_active_endpoints_get_an_event(endpoint, receiver, admin_user):
    Endpoint.objects.create(url=receiver.url, events=["release.published"])
    Endpoint.objects.create(url=receiver.url, events=["batch.completed"], active=False)
    assert [d.endpoint for d in services.emit("batch.completed", {})] == [endpoint]
    with pytest.raises(ValueError):
        services.emit("no.such.event", {})


def test_a_failing_receiver_gets_retries_with_growing_delays_then_is_disabled(endpoint, receiver, settings,
                                                                               django_capture_on_commit_callbacks):  # fmt: skip
    settings.WEBHOOK_RETRY_SECONDS, settings.WEBHOOK_DISABLE_AFTER, settings.WEBHOOK_MAX_ATTEMPTS = 10, 4, 6
    type(endpoint.created_by).objects.filter(pk=endpoint.created_by_id).update(email="admin@example.org")
    receiver.statuses = [500] * 10
    (delivery,) = services.emit("batch.completed", {"batch": 1})
    delays = []
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(4):
            attempted = services.deliver(delivery.pk, force=True)
            delays.append(round((attempted.next_attempt_at - timezone.now()).total_seconds()))
    assert delays[:3] == [10, 20, 40]  # doubling
    endpoint.refresh_from_db()
    assert endpoint.disabled_at is not None and "4 attempts in a row failed" in endpoint.disabled_reason
    assert "HTTP 500" in endpoint.disabled_reason
    assert len(mail.outbox) == 1 and receiver.url in mail.outbox[0].subject
    assert mail.outbox[0].to == ["admin@example.org"]
    assert services.deliver(delivery.pk, force=True) is None  # nothing goes to a disabled endpoint
    assert len(receiver.requests) == 4 and all(r["valid"] for r in receiver.requests)
    log = list(Delivery.objects.get(pk=delivery.pk).attempt_log.values_list("status", flat=True))
    assert log == [500, 500, 500, 500]

    # Fixed and enabled again: the waiting delivery goes out at the next sweep.
    services.enable(endpoint=endpoint)
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    receiver.statuses = []
    assert services.send_due() == 1
    assert Delivery.objects.get(pk=delivery.pk).state == "delivered"


def test_a_delivery_out_of_attempts_fails_and_can_be_redelivered(endpoint, receiver, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    receiver.statuses = [503, 503]
    (delivery,) = services.emit("batch.completed", {})
    services.deliver(delivery.pk, force=True)
    assert services.deliver(delivery.pk, force=True).state == "failed"
    services.redeliver(delivery=delivery)
    assert services.deliver(delivery.pk).state == "delivered"  # due at once
    assert [r["valid"] for r in receiver.requests] == [True, True, True]


def test_timeouts_redirects_and_refused_connections_are_failed_attempts(endpoint, receiver, settings):
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.3
    receiver.delay = 1
    (slow,) = services.emit("batch.completed", {})
    assert "timed out" in services.deliver(slow.pk).last_error.lower()
    receiver.delay = 0
    receiver.statuses = [302]
    (moved,) = services.emit("batch.completed", {})
    assert services.deliver(moved.pk).last_status == 302
    Endpoint.objects.filter(pk=endpoint.pk).update(url="http://127.0.0.1:9/closed")
    (refused,) = services.emit("batch.completed", {})
    attempted = services.deliver(refused.pk)
    assert attempted.state == "pending" and attempted.last_status is None and attempted.last_error


def test_send_due_leaves_deliveries_that_are_not_due(endpoint, receiver):
    (now,) = services.emit("batch.completed", {"n": 1})
    (later,) = services.emit("batch.completed", {"n": 2})
    Delivery.objects.filter(pk=later.pk).update(next_attempt_at=timezone.now() + timedelta(minutes=5))
    assert services.send_due() == 1
    assert Delivery.objects.get(pk=now.pk).state == "delivered" and Delivery.objects.get(pk=later.pk).state == "pending"


def test_a_completed_batch_is_announced_once(endpoint, rater):
    batch = open_batch(tasks=1, wanted=1)
    assert watch() == []
    assignment, _ = hits.request_next_task(worker=rater, batch_id=batch.pk)
    hits.submit_assignment(assignment_id=assignment.pk, worker=rater, data={"answer": "seven", "confidence": "high"})
    from dashboards import services as dashboards

    dashboards.fold_changes()
    assert watch() == [("batch.completed", batch.pk)]
    assert watch() == []
    (delivery,) = Delivery.objects.filter(event="batch.completed")
    assert json.loads(delivery.body)["data"]["batch"] == batch.pk


def test_a_queue_over_its_limit_is_announced_once_per_crossing(endpoint):
    from corpus.models import QAPair

    Endpoint.objects.filter(pk=endpoint.pk).update(queue_depth_limit=1)
    author = UserFactory()
    QAPair.objects.create(family="webquest", question="Q1?", answer="1", author=author)
    assert watch() == []
    second = QAPair.objects.create(family="webquest", question="Q2?", answer="2", author=author)
    assert watch() == [("queue.threshold", "Validation (QA pairs waiting)")]
    assert watch() == []  # still over: no news
    second.delete()
    assert watch() == []  # back under
    QAPair.objects.create(family="webquest", question="Q3?", answer="3", author=author)
    assert watch() == [("queue.threshold", "Validation (QA pairs waiting)")]


def test_admins_manage_endpoints_over_the_api_and_others_are_refused(api_for, admin_user, rater, receiver):
    admin = api_for(admin_user)
    assert api_for(rater).get("/api/v1/webhooks/").status_code == 403
    bad = admin.post("/api/v1/webhooks/", {"url": receiver.url, "events": ["nope"]}, format="json")
    assert bad.status_code == 400
    made = admin.post("/api/v1/webhooks/", {"url": receiver.url, "events": ["batch.completed"]}, format="json")
    assert made.status_code == 201 and len(made.json()["secret"]) == 64
    receiver.secret = made.json()["secret"]
    (delivery,) = services.emit("batch.completed", {"batch": 3})
    services.deliver(delivery.pk)
    listed = admin.get("/api/v1/webhook-deliveries/").json()
    assert listed["results"][0]["state"] == "delivered" and listed["results"][0]["attempt_log"][0]["status"] == 200
    again = admin.post(f"/api/v1/webhook-deliveries/{delivery.pk}/redeliver/")
    assert again.status_code == 202 and again.json()["state"] == "pending"
    assert api_for(rater).post(f"/api/v1/webhook-deliveries/{delivery.pk}/redeliver/").status_code == 403


def test_a_published_release_and_a_failed_build_each_produce_their_event(receiver, admin_user, rater, monkeypatch):
    from releases import build
    from releases.tests import data
    from releases.tests.helpers import build_now, release

    endpoint = Endpoint.objects.create(url=receiver.url, events=["release.published", "release.failed"])
    receiver.secret = endpoint.secret
    data.screen_pair(rater)
    built = build_now(release(admin_user, families=["webquest"]))
    (published,) = Delivery.objects.filter(event="release.published")
    body = json.loads(published.body)["data"]
    assert body["release"] == built.pk and body["version"] == "1.0.0" and body["counts"]["items"] == 1
    assert services.deliver(published.pk).state == "delivered" and receiver.requests[-1]["valid"]

    def broken(**kwargs):
        raise OSError("the storage is full")

    monkeypatch.setattr(build, "write_release", broken)
    with pytest.raises(OSError):
        build_now(release(admin_user, version="1.0.1", families=["webquest"]))
    (failed,) = Delivery.objects.filter(event="release.failed")
    assert json.loads(failed.body)["data"]["message"] == "OSError: the storage is full"
