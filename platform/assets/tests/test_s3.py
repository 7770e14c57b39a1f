"""Assets on S3: a real S3-compatible server (moto in server mode, in its own process),
reached by django-storages exactly as production reaches its object store."""

import hashlib
import urllib.parse
import urllib.request

import pytest
from django.test import Client

from assets import services
from assets.errors import ImageRefused
from assets.models import Asset

from . import samples

pytestmark = pytest.mark.django_db


def _keys(s3):
    client, bucket = s3
    return sorted(item["Key"] for item in client.list_objects_v2(Bucket=bucket).get("Contents", []))


def _object(s3, key):
    client, bucket = s3
    return client.get_object(Bucket=bucket, Key=key)


def _upload(api_for, user, data):
    return api_for(user).post("/api/v1/assets/", {"file": samples.upload(data)}, format="multipart")


def test_an_upload_lands_in_the_bucket_once(s3, rater, other_rater, api_for):
    data = samples.png_bytes()
    first = _upload(api_for, rater, data)
    assert first.status_code == 201, first.content
    asset = Asset.objects.get()
    assert _keys(s3) == sorted([asset.storage_key, asset.thumbnail_key])
    stored = _object(s3, asset.storage_key)
    assert stored["ContentType"] == "image/png"
    assert hashlib.sha256(stored["Body"].read()).hexdigest() == asset.sha256
    assert _object(s3, asset.thumbnail_key)["ContentType"] == "image/webp"

    again = _upload(api_for, other_rater, data)
    assert again.status_code == 200 and again.json()["id"] == asset.pk
    assert Asset.objects.count() == 1 and _keys(s3) == sorted([asset.storage_key, asset.thumbnail_key])


def test_viewing_redirects_to_a_short_lived_signed_link_that_serves_the_bytes(s3, rater):
    asset, _ = services.store_image(file=samples.upload(samples.png_bytes()), uploaded_by=rater)
    browser = Client()
    browser.force_login(rater)

    for path, key in ((f"/assets/{asset.pk}/", asset.storage_key), (f"/assets/{asset.pk}/thumb/", asset.thumbnail_key)):
        response = browser.get(path)
        assert response.status_code == 302
        link = urllib.parse.urlsplit(response["Location"])
        query = urllib.parse.parse_qs(link.query)
        assert link.path.endswith("/" + key)
        assert query["X-Amz-Expires"] == ["120"] and query["X-Amz-Signature"]
        assert "no-store" in response["Cache-Control"]
        with urllib.request.urlopen(response["Location"], timeout=10) as fetched:
            assert fetched.read() == _object(s3, key)["Body"].read()
    assert hashlib.sha256(_object(s3, asset.storage_key)["Body"].read()).hexdigest() == asset.sha256


def test_someone_else_gets_no_link(s3, rater, other_rater):
    asset, _ = services.store_image(file=samples.upload(samples.png_bytes()), uploaded_by=rater)
    browser = Client()
    browser.force_login(other_rater)
    response = browser.get(f"/assets/{asset.pk}/")
    assert response.status_code == 404 and "Location" not in response


def test_delete_asset_bytes_removes_both_objects(s3, rater):
    asset, _ = services.store_image(file=samples.upload(samples.png_bytes()), uploaded_by=rater)
    kept, _ = services.store_image(file=samples.upload(samples.png_bytes()), uploaded_by=rater)
    services.delete_asset_bytes(asset=asset)
    assert _keys(s3) == sorted([kept.storage_key, kept.thumbnail_key])


def test_a_refused_upload_puts_nothing_in_the_bucket(s3, rater):
    with pytest.raises(ImageRefused):
        services.store_image(file=samples.upload(samples.png_bytes()[:4000]), uploaded_by=rater)
    assert _keys(s3) == [] and Asset.objects.count() == 0
