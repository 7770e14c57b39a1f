"""The same image uploaded by several people at the same moment is still one asset."""

import pytest
from django.db import connection

from assets import services
from assets.models import Asset, AssetUpload
from tests.concurrency import at_once
from tests.factories import UserFactory

from . import samples
from .conftest import stored_files

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="concurrent writers need a database server (PostgreSQL)"
    ),
]


def _store_all_at_once(users, data):
    results, errors = at_once(lambda user: services.store_image(file=samples.upload(data), uploaded_by=user), users)
    assert not errors, errors
    return results


@pytest.mark.parametrize("storage", ["local", "s3"])
def test_simultaneous_uploads_of_one_image_make_one_asset_and_one_blob(request, media, storage):
    users = UserFactory.create_batch(6)
    if storage == "s3":
        request.getfixturevalue("s3")
    data = samples.png_bytes(size=(800, 500))

    results = _store_all_at_once(users, data)

    assert len(results) == len(users)
    assert len({asset.pk for asset, _created in results}) == 1
    assert sorted(created for _asset, created in results) == [False] * 5 + [True]
    asset = Asset.objects.get()
    assert AssetUpload.objects.filter(asset=asset).count() == len(users)
    if storage == "s3":
        client, bucket = request.getfixturevalue("s3")
        keys = sorted(item["Key"] for item in client.list_objects_v2(Bucket=bucket)["Contents"])
    else:
        keys = stored_files(media)
    assert keys == sorted([asset.storage_key, asset.thumbnail_key])
