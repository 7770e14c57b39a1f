"""Requests the capture API refuses, and how: the error body, never a 500; and what its
answers hold where a value can be missing."""

import json
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from assets.tests.samples import png_bytes
from corpus.models import Screen
from tests.api import api_error
from tests.factories import make_category

pytestmark = pytest.mark.django_db


def _step(client, trace_id):
    step = {
        "client_id": str(uuid.uuid4()),
        "position": 0,
        "url": "https://shop-a.test/",
        "captured_at": "2026-11-29T14:03:11.250Z",
        "viewport": {"width": 1280, "height": 800},
        "action": {"type": "navigate"},
    }
    upload = SimpleUploadedFile("step.png", png_bytes(size=(640, 400), seed=7), content_type="image/png")
    response = client.post(
        f"/api/v1/traces/{trace_id}/steps/", {"screenshot": upload, "step": json.dumps(step)}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    return response.json()


def test_a_screen_recorded_in_a_trace_cannot_be_removed_on_its_own(rater, api_for):
    make_category("shopping")
    client = api_for(rater)
    trace = client.post("/api/v1/traces/", {"client_id": str(uuid.uuid4()), "category": "shopping"}, format="json")
    step = _step(client, trace.json()["id"])
    error = api_error(client.delete(f"/api/v1/screens/{step['screen']}/"), 409, "screen_in_use")
    assert "recorded trace" in error["message"]
    assert Screen.objects.filter(pk=step["screen"]).exists()
    assert client.get(f"/api/v1/traces/{trace.json()['id']}/").json()["steps"][0]["screen"] == step["screen"]


def test_a_screen_without_a_category_says_so_and_the_schema_allows_it(rater, api_for, client):
    upload = SimpleUploadedFile("shot.png", png_bytes(seed=3), content_type="image/png")
    created = api_for(rater).post("/api/v1/screens/", {"file": upload}, format="multipart")
    assert created.status_code == 201 and created.json()["category"] is None
    assert api_for(rater).get("/api/v1/screens/").json()["results"][0]["category"] is None
    schemas = client.get("/api/v1/schema/?format=json").json()["components"]["schemas"]
    for component in ("Screen", "QAPair"):
        assert schemas[component]["properties"]["category"].get("nullable") is True, component


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("a" * 256 + ".jsonl", "255 bytes"),
        ("folder/" + "é" * 128 + "/manifest.jsonl", "255 bytes"),
        ("/".join(["é" * 100] * 6), "1000 bytes"),
        ("manifest\x00.jsonl", "Null characters"),
        ("line\nbreak.jsonl", "control characters"),
        ("tab\there", "control characters"),
        ("s3://Not_A_Bucket/manifest.jsonl", "bucket"),
        ("s3:///manifest.jsonl", "bucket"),
    ],
)
def test_a_pool_import_source_no_file_system_or_bucket_could_name_is_a_field_error(admin_user, api_for, source, says):
    response = api_for(admin_user).post("/api/v1/pool-imports/", {"kind": "images", "source": source}, format="json")
    error = api_error(response, 400, "invalid")
    assert set(error["fields"]) == {"source"} and says in " ".join(error["fields"]["source"])


def test_list_filters_refuse_what_they_cannot_look_up(rater, api_for):
    client = api_for(rater)
    wrong = client.get("/api/v1/screens/?assignment=abc")
    assert wrong.status_code == 400 and "takes an assignment id" in wrong.json()["error"]["message"]
    for url in ("/api/v1/screens/?assignment=%00", "/api/v1/sites/?category=a%00b", "/api/v1/qa-pairs/?state=%00",
                "/api/v1/snippets/?topic=x%00"):  # fmt: skip
        refused = client.get(url)
        assert refused.status_code == 400 and "NUL" in refused.json()["error"]["message"], url
