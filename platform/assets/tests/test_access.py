"""Who sees an asset's bytes, through the web routes and the REST API."""

import pytest
from django.test import Client

from accounts.models import Role
from assets import services
from assets.models import Asset, AssetUpload
from tests.api import api_error
from tests.factories import UserFactory

from . import samples
from .conftest import stored_files

pytestmark = pytest.mark.django_db


@pytest.fixture
def asset(rater):
    asset, _ = services.store_image(file=samples.upload(samples.png_bytes()), uploaded_by=rater)
    return asset


def _browser(user=None):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _upload(client, data, name="screen.png", content_type="image/png"):
    return client.post("/api/v1/assets/", {"file": samples.upload(data, name, content_type)}, format="multipart")


def test_uploader_gets_the_stored_bytes_with_safe_headers(rater, asset, media):
    response = _browser(rater).get(f"/assets/{asset.pk}/")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == (media / asset.storage_key).read_bytes()
    assert response["Content-Type"] == "image/png"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Cache-Control"] == "private"

    thumbnail = _browser(rater).get(f"/assets/{asset.pk}/thumb/")
    assert thumbnail.status_code == 200 and thumbnail["Content-Type"] == "image/webp"
    assert b"".join(thumbnail.streaming_content) == (media / asset.thumbnail_key).read_bytes()


@pytest.mark.parametrize("path", ["/assets/{}/", "/assets/{}/thumb/", "/api/v1/assets/{}/"])
def test_another_rater_cannot_tell_the_asset_exists(other_rater, asset, api_for, path):
    url = path.format(asset.pk)
    client = api_for(other_rater) if url.startswith("/api/") else _browser(other_rater)
    seen = client.get(url)
    missing = client.get(path.format(asset.pk + 1000))
    assert seen.status_code == missing.status_code == 404
    if url.startswith("/api/"):
        assert seen.json() == missing.json()


@pytest.mark.parametrize("role", [Role.REVIEWER, Role.ADMIN])
def test_reviewers_and_admins_can_view_any_asset(asset, api_for, role):
    user = UserFactory(role=role)
    assert _browser(user).get(f"/assets/{asset.pk}/").status_code == 200
    assert _browser(user).get(f"/assets/{asset.pk}/thumb/").status_code == 200
    assert api_for(user).get(f"/api/v1/assets/{asset.pk}/").json()["sha256"] == asset.sha256


def test_a_validator_who_did_not_upload_it_cannot_view_it(asset):
    validator = UserFactory(role=Role.VALIDATOR)
    assert _browser(validator).get(f"/assets/{asset.pk}/").status_code == 404


@pytest.mark.parametrize("path", ["/assets/{}/", "/assets/{}/thumb/"])
def test_anonymous_visitors_are_sent_to_log_in(asset, path):
    response = _browser().get(path.format(asset.pk))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/") and f"assets/{asset.pk}" in response["Location"]


def test_purged_bytes_are_not_found(rater, asset):
    services.delete_asset_bytes(asset=asset)
    assert _browser(rater).get(f"/assets/{asset.pk}/").status_code == 404


def test_upload_over_the_api_then_again_gives_the_same_asset(rater, other_rater, api_for, media):
    data = samples.png_bytes()
    created = _upload(api_for(rater), data)
    assert created.status_code == 201, created.content
    body = created.json()
    asset = Asset.objects.get()
    assert body == {
        "id": asset.pk,
        "sha256": asset.sha256,
        "width": 320,
        "height": 200,
        "format": "png",
        "bytes": asset.byte_size,
        "phash": asset.phash,
        "review_state": "pending_review",
        "url": f"http://testserver/assets/{asset.pk}/",
        "thumbnail_url": f"http://testserver/assets/{asset.pk}/thumb/",
    }
    assert api_for(rater).get(f"/api/v1/assets/{asset.pk}/").json() == body

    again = _upload(api_for(other_rater), data, name="same-picture.png")
    assert again.status_code == 200 and again.json()["id"] == asset.pk
    # Uploading it made it theirs to see too.
    assert _browser(other_rater).get(f"/assets/{asset.pk}/").status_code == 200
    assert AssetUpload.objects.count() == 2 and len(stored_files(media)) == 2


def test_declared_content_type_and_name_do_not_matter(rater, api_for):
    jpeg = samples.encode(samples.screenshot(), "JPEG")
    response = _upload(api_for(rater), jpeg, name="notes.txt", content_type="text/plain")
    assert response.status_code == 201 and response.json()["format"] == "jpeg"


def test_a_bad_file_gets_the_error_body_and_stores_nothing(rater, api_for, media):
    error = api_error(_upload(api_for(rater), b"<html>not a picture</html>"), 400, "not_an_image")
    assert "PNG, JPEG or WebP" in error["message"] and error["fields"] == {}
    assert Asset.objects.count() == 0 and stored_files(media) == []


def test_an_upload_without_a_file_names_the_missing_field(rater, api_for):
    error = api_error(api_for(rater).post("/api/v1/assets/", {}, format="multipart"), 400, "invalid")
    assert set(error["fields"]) == {"file"}


def test_an_oversized_body_is_refused_from_its_declared_length(rater, api_for, media, settings):
    """The declared Content-Length decides before the body is read: the small PNG
    below would be stored if it were."""
    settings.ASSET_MAX_BYTES = 100_000
    client = api_for(rater)
    response = client.post(
        "/api/v1/assets/",
        {"file": samples.upload(samples.png_bytes())},
        format="multipart",
        CONTENT_LENGTH=str(50 * 1024 * 1024),
    )
    error = api_error(response, 413, "file_too_large")
    assert "50.0 MB" in error["message"]
    assert Asset.objects.count() == 0 and stored_files(media) == []


def test_anonymous_api_upload_is_refused(media):
    response = Client().post("/api/v1/assets/", {"file": samples.upload(samples.png_bytes())})
    assert response.status_code in (401, 403)
    assert Asset.objects.count() == 0 and stored_files(media) == []


def test_the_schema_lists_the_asset_endpoints(client):
    paths = client.get("/api/v1/schema/?format=json").json()["paths"]
    assert {"/api/v1/assets/", "/api/v1/assets/{id}/"} <= set(paths)
    assert "multipart/form-data" in paths["/api/v1/assets/"]["post"]["requestBody"]["content"]
