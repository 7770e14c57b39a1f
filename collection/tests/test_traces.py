"""Trace ingestion (what the extension calls) and questions on traces."""

import json
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from assets.tests.samples import png_bytes
from corpus.models import QAPair, TraceStep
from hits.models import Task
from tests.factories import capture_batch, make_category, site

pytestmark = pytest.mark.django_db


def _start(client, **fields):
    body = {"client_id": str(uuid.uuid4()), "category": "shopping", **fields}
    return client.post("/api/v1/traces/", body, format="json")


def _step_json(position, **overrides):
    return {
        "client_id": str(uuid.uuid4()),
        "position": position,
        "url": f"https://shop-a.test/page/{position}",
        "title": f"Page {position}",
        "captured_at": "2026-11-29T14:03:11.250Z",
        "viewport": {"width": 1280, "height": 800},
        "device_pixel_ratio": 1,
        "scroll": {"x": 0, "y": 40 * position},
        "action": {
            "type": "click" if position else "navigate",
            "target": {
                "tag": "a",
                "text": f"Page {position}",
                "role": "link",
                "href": f"https://shop-a.test/page/{position}",
                "bbox": [10, 20, 100, 30],
                "selector": "nav a:nth-of-type(2)",
            }
            if position
            else None,
        },  # fmt: skip
        "clickables": [
            {
                "text": "Next",
                "href": "https://shop-a.test/next",
                "bbox": [5, 5, 50, 20],
                "selector": "a.next",
                "tag": "a",
            }
        ],
        **overrides,
    }


def _send(client, trace_id, step, data=None):
    upload = SimpleUploadedFile(
        "step.png", data or png_bytes(size=(640, 400), seed=step["position"] + 100), content_type="image/png"
    )
    return client.post(
        f"/api/v1/traces/{trace_id}/steps/", {"screenshot": upload, "step": json.dumps(step)}, format="multipart"
    )


def _recorded(client, steps=6, **fields):
    trace = _start(client, **fields).json()
    sent = [_step_json(n) for n in range(steps)]
    for step in sent:
        assert _send(client, trace["id"], step).status_code == 201
    finished = client.post(f"/api/v1/traces/{trace['id']}/finish/", {"step_count": steps}, format="json")
    assert finished.status_code == 200, finished.json()
    return finished.json(), sent


@pytest.fixture(autouse=True)
def shop(db):
    make_category("shopping")
    return site(category="shopping", url="https://shop-a.test/")


def test_a_recorded_trace_is_stored_step_by_step_with_actions_and_clickables(rater, api_for):
    client = api_for(rater)
    trace, sent = _recorded(client, steps=4)
    assert trace["state"] == "finished" and [s["client_id"] for s in trace["steps"]] == [s["client_id"] for s in sent]
    step = TraceStep.objects.get(client_id=sent[1]["client_id"])
    assert (step.action, step.target["text"], step.target["bbox"], step.scroll_y) == (
        "click",
        "Page 1",
        [10.0, 20.0, 100.0, 30.0],
        40,
    )
    assert step.clickables[0]["href"] == "https://shop-a.test/next"
    assert step.screen.site.host == "shop-a.test" and step.screen.review_state == "pending_review"
    assert step.description == "Clicked “Page 1”"


def test_retried_creates_and_steps_are_not_duplicated(rater, api_for):
    client = api_for(rater)
    client_id = str(uuid.uuid4())
    first, again = _start(client, client_id=client_id), _start(client, client_id=client_id)
    assert (first.status_code, again.status_code) == (201, 200) and first.json()["id"] == again.json()["id"]
    step = _step_json(0)
    stored, repeated = _send(client, first.json()["id"], step), _send(client, first.json()["id"], step)
    assert (stored.status_code, repeated.status_code) == (201, 200)
    assert stored.json()["id"] == repeated.json()["id"] and TraceStep.objects.count() == 1


def test_finishing_needs_every_step(rater, api_for):
    client = api_for(rater)
    trace = _start(client).json()
    _send(client, trace["id"], _step_json(0))
    missing = client.post(f"/api/v1/traces/{trace['id']}/finish/", {"step_count": 2}, format="json")
    assert missing.status_code == 409 and missing.json()["error"]["code"] == "missing_steps"
    assert "1 of 2" in missing.json()["error"]["message"]
    _send(client, trace["id"], _step_json(1))
    assert client.post(f"/api/v1/traces/{trace['id']}/finish/", {"step_count": 2}, format="json").status_code == 200
    late = _send(client, trace["id"], _step_json(2))
    assert late.status_code == 409 and late.json()["error"]["code"] == "trace_finished"
    assert TraceStep.objects.count() == 2


def test_steps_for_someone_elses_trace_are_refused(rater, other_rater, api_for):
    trace = _start(api_for(rater)).json()
    refused = _send(api_for(other_rater), trace["id"], _step_json(0))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_your_trace"
    assert api_for(other_rater).get(f"/api/v1/traces/{trace['id']}/").status_code == 404
    assert not TraceStep.objects.exists()


@pytest.mark.parametrize(
    ("data", "code"),
    [(b"not an image at all", "not_an_image"), (b"", "empty_file"), (png_bytes(seed=4)[:300], "truncated_image")],
    ids=["text", "empty", "truncated"],
)
def test_bad_screenshots_are_refused_and_nothing_is_stored(rater, api_for, data, code):
    client = api_for(rater)
    trace = _start(client).json()
    upload = SimpleUploadedFile("step.png", data, content_type="image/png")
    response = client.post(
        f"/api/v1/traces/{trace['id']}/steps/",
        {"screenshot": upload, "step": json.dumps(_step_json(0))},
        format="multipart",
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == code
    assert not TraceStep.objects.exists()


def test_oversized_screenshot_is_refused(rater, api_for, settings):
    settings.ASSET_MAX_BYTES = 1000
    client = api_for(rater)
    trace = _start(client).json()
    response = _send(client, trace["id"], _step_json(0))
    assert response.status_code == 400 and response.json()["error"]["code"] == "file_too_large"


def test_malformed_step_metadata_gets_field_errors(rater, api_for):
    client = api_for(rater)
    trace = _start(client).json()
    upload = SimpleUploadedFile("step.png", png_bytes(seed=1), content_type="image/png")
    not_json = client.post(
        f"/api/v1/traces/{trace['id']}/steps/", {"screenshot": upload, "step": "{oops"}, format="multipart"
    )
    assert not_json.status_code == 400 and "step" in not_json.json()["error"]["fields"]
    bad = _step_json(0, url="nowhere", action={"type": "teleport"})
    fields = _send(client, trace["id"], bad).json()["error"]["fields"]
    assert {"step.url", "step.action.type"} <= set(fields)


def test_block_list_is_served(rater, api_for):
    blocks = api_for(rater).get("/api/v1/blocklist/").json()
    assert "mail.google.com" in blocks["hosts"] and "/account" in blocks["patterns"]


def _trace_batch(**settings):
    batch = capture_batch(kind="trace_qa", categories=(), per_category=0, kind_settings=settings)
    return batch


def test_finishing_a_trace_gives_its_recorder_the_question_task(rater, other_rater, api_for):
    batch = _trace_batch()
    trace, _ = _recorded(api_for(rater), steps=6, batch=batch.pk)
    task = Task.objects.get(batch=batch)
    assert task.payload == {"trace": trace["id"]} and task.reserved_for == rater
    taken = api_for(other_rater).post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert taken.status_code == 409
    assert api_for(rater).post("/api/v1/assignments/", {"batch": batch.pk}, format="json").status_code == 201


def test_trace_questions_need_three_to_five_of_its_steps(rater, other_rater, api_for, client):
    batch = _trace_batch(questions_by="anyone")
    trace, _ = _recorded(api_for(rater), steps=7, batch=batch.pk)
    thumb = f"/assets/{TraceStep.objects.get(pk=trace['steps'][0]['id']).screen.asset_id}/thumb/"
    client.force_login(other_rater)
    assert client.get(thumb).status_code == 404  # not theirs, and no task on it yet
    writer = api_for(other_rater)
    assignment = writer.post("/api/v1/assignments/", {"batch": batch.pk}, format="json").json()
    steps = [s["id"] for s in trace["steps"]]
    assert client.get(thumb).status_code == 200  # the writer now sees the trace's screens

    def submit(*pairs):
        return writer.post(
            f"/api/v1/assignments/{assignment['id']}/submit/", {"answer": {"pairs": list(pairs)}}, format="json"
        )

    def pair(chosen, **extra):
        return {
            "steps": chosen,
            "question": "How many pages list a kettle under $30?",
            "answer": "2",
            "reasoning_types": ["counting"],
            **extra,
        }

    two = submit(pair(steps[:2])).json()["error"]["fields"]
    assert "you ticked 2" in " ".join(two["answer.pairs.0.steps"])
    foreign = submit(pair([steps[0], steps[1], 999999])).json()["error"]["fields"]
    assert "not part of this trace" in " ".join(foreign["answer.pairs.0.steps"])
    no_reasoning = submit(pair(steps[:3], reasoning_types=[])).json()["error"]["fields"]
    assert "answer.pairs.0.reasoning_types" in no_reasoning
    assert not QAPair.objects.exists()

    done = submit(
        pair([steps[4], steps[1], steps[2]]), pair(steps[3:7], question="Which page is cheapest?", answer="Page 5")
    )
    assert done.status_code == 200, done.json()
    first, second = QAPair.objects.order_by("id")
    assert (first.split_kind, first.trace_id, first.answer_type) == ("trace", trace["id"], "integer")
    assert list(first.evidence.values_list("step_id", flat=True)) == [steps[1], steps[2], steps[4]]
    assert second.evidence.count() == 4


def test_trace_qa_task_needs_a_finished_trace(rater, admin_user, api_for):
    client = api_for(rater)
    trace = _start(client).json()
    batch = _trace_batch()
    refused = api_for(admin_user).post(
        f"/api/v1/batches/{batch.pk}/tasks/", {"payloads": [{"trace": trace["id"]}]}, format="json"
    )
    assert refused.status_code == 400 and "payloads.0.trace" in refused.json()["error"]["fields"]


def test_page_html_is_kept_in_storage_not_in_the_row(rater, api_for, media):
    client = api_for(rater)
    trace = _start(client).json()
    html = "<html><body><h1>Kettles</h1>" + "<p>row</p>" * 1000 + "</body></html>"
    assert _send(client, trace["id"], _step_json(0, html=html)).status_code == 201
    step = TraceStep.objects.get()
    assert step.html_key and (media / step.html_key).read_text() == html


def test_unknown_trace_ids_are_not_found(rater, api_for):
    client = api_for(rater)
    missing = _send(client, 999999, _step_json(0))
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    not_a_number = client.post("/api/v1/traces/abc/finish/", {"step_count": 1}, format="json")
    assert not_a_number.status_code == 404 and "abc" in not_a_number.json()["error"]["message"]
