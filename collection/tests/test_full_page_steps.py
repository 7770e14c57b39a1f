"""Full-page trace steps: the screenshot is the whole page and boxes are page-absolute."""

import json
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from assets.tests.samples import full_page_png, png_bytes
from corpus.models import TraceStep
from tests.api import api_error
from tests.factories import make_category, site

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def shop(db):
    make_category("shopping")
    return site(category="shopping", url="https://shop-a.test/")


def _trace(client):
    response = client.post("/api/v1/traces/", {"client_id": str(uuid.uuid4()), "category": "shopping"}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def _step(position=0, **fields):
    return {
        "client_id": str(uuid.uuid4()),
        "position": position,
        "url": "https://shop-a.test/long",
        "title": "A long page",
        "captured_at": "2026-11-29T14:03:11.250Z",
        "viewport": {"width": 1280, "height": 800},
        "device_pixel_ratio": 1,
        "scroll": {"x": 0, "y": 0},
        "action": {"type": "navigate", "target": None},
        "clickables": [{"tag": "button", "text": "Buy", "bbox": [40, 25600, 200, 80], "selector": "#buy"}],
        **fields,
    }


def _send(client, trace_id, step, image, name="step.png"):
    upload = SimpleUploadedFile(name, image, content_type="image/png")
    return client.post(
        f"/api/v1/traces/{trace_id}/steps/", {"screenshot": upload, "step": json.dumps(step)}, format="multipart"
    )


def test_a_1280x30000_full_page_step_is_stored_whole_and_says_it_is_full_page(rater, api_for):
    client = api_for(rater)
    trace_id = _trace(client)
    step = _step(full_page=True)

    response = _send(client, trace_id, step, full_page_png(1280, 30000))

    assert response.status_code == 201, response.json()
    assert response.json()["full_page"] is True
    stored = TraceStep.objects.select_related("screen__asset").get(client_id=step["client_id"])
    assert stored.full_page is True
    assert (stored.screen.asset.width, stored.screen.asset.height) == (1280, 30000)
    assert stored.clickables[0]["bbox"] == [40.0, 25600.0, 200.0, 80.0]
    listed = client.get(f"/api/v1/traces/{trace_id}/").json()["steps"]
    assert [s["full_page"] for s in listed] == [True]


def test_a_step_that_does_not_say_is_a_viewport_step(rater, api_for):
    client = api_for(rater)
    trace_id = _trace(client)
    step = _step()

    response = _send(client, trace_id, step, png_bytes(size=(640, 400), seed=3))

    assert response.status_code == 201, response.json()
    assert response.json()["full_page"] is False
    assert TraceStep.objects.get(client_id=step["client_id"]).full_page is False


def test_full_page_must_be_a_boolean(rater, api_for):
    client = api_for(rater)
    response = _send(client, _trace(client), _step(full_page="sometimes"), png_bytes(size=(64, 40), seed=4))
    assert api_error(response, 400, "invalid")["fields"] == {"step.full_page": ["Must be a valid boolean."]}
    assert TraceStep.objects.count() == 0
