"""The capture setting a batch gives the browser extension (``kind_settings.capture``)."""

import pytest

from tests.factories import open_batch

pytestmark = pytest.mark.django_db


def _capture_of(client, batch):
    results = client.get("/api/v1/batches/available/").json()["results"]
    return next(row["capture"] for row in results if row["id"] == batch.pk)


@pytest.mark.parametrize("mode", ["stitch", "debugger"])
def test_available_batches_say_which_full_page_mode_the_batch_asks_for(rater, api_for, mode):
    batch = open_batch(tasks=1, kind_settings={"capture": {"full_page": mode}})
    assert _capture_of(api_for(rater), batch) == {"full_page": mode}


@pytest.mark.parametrize(
    "kind_settings",
    [{}, {"questions_by": "anyone"}, {"capture": {}}, {"capture": {"full_page": ""}}, {"capture": "stitch"}],
)
def test_a_batch_without_a_full_page_mode_captures_the_viewport(rater, api_for, kind_settings):
    batch = open_batch(tasks=1, kind_settings=kind_settings)
    assert _capture_of(api_for(rater), batch) == {"full_page": ""}


@pytest.mark.parametrize("mode", ["magic", ["stitch"], {"stitch": True}, True])
def test_an_unknown_full_page_mode_is_the_viewport_not_an_error(rater, api_for, mode):
    batch = open_batch(tasks=1, kind_settings={"capture": {"full_page": mode}})
    assert _capture_of(api_for(rater), batch) == {"full_page": ""}


def test_the_schema_types_the_capture_setting(client):
    schema = client.get("/api/v1/schema/?format=json").json()["components"]["schemas"]
    capture = schema["AvailableBatch"]["properties"]["capture"]
    assert capture["allOf"] == [{"$ref": "#/components/schemas/CaptureSetting"}]
    assert schema["CaptureSetting"]["required"] == ["full_page"]
    assert set(schema["FullPageEnum"]["enum"]) == {"stitch", "debugger"}
