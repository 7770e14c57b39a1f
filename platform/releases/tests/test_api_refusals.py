"""Release definitions the database could not store are refused as field errors."""

import pytest

from releases.models import Release
from tests.api import api_error

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"version": "99999999999.0.0"}, "version"),
        ({"version": "1.2147483648.0"}, "version"),
        ({"seed": 2**40}, "seed"),
    ],
)
def test_a_version_or_seed_too_large_to_store_is_a_field_error(admin_user, api_for, fields, field):
    body = {"name": "trail", "version": "1.0.0", "build": False, **fields}
    error = api_error(api_for(admin_user).post("/api/v1/releases/", body, format="json"), 400, "invalid")
    assert set(error["fields"]) == {field}
    assert not Release.objects.exists()


def test_the_largest_storable_version_is_accepted(admin_user, api_for):
    body = {"name": "trail", "version": "2147483647.0.1", "seed": 2147483647, "build": False}
    created = api_for(admin_user).post("/api/v1/releases/", body, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["version"] == "2147483647.0.1"


def test_the_name_filter_is_checked_and_still_filters(admin_user, api_for):
    client = api_for(admin_user)
    client.post("/api/v1/releases/", {"name": "trail", "version": "1.0.0", "build": False}, format="json")
    api_error(client.get("/api/v1/releases/?name=tr%00ail"), 400, "invalid")
    assert client.get("/api/v1/releases/?name=trail").json()["count"] == 1
    assert client.get("/api/v1/releases/?name=other").json()["count"] == 0
