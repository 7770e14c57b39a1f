"""The mining lists' filters are checked: a value outside the choices is a field error,
never an empty page or a database error."""

import pytest

from mining.models import MiningRun
from tests.api import api_error

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("mining-runs/?job=dig", "job"),
        ("mining-runs/?state=running-ish", "state"),
        ("distractors/?kind=sound", "kind"),
        ("reasoning-checks/?state=closed", "state"),
    ],
)
def test_a_filter_outside_its_choices_is_a_field_error(reviewer, api_for, query, field):
    error = api_error(api_for(reviewer).get(f"/api/v1/{query}"), 400, "invalid")
    assert set(error["fields"]) == {field}


@pytest.mark.parametrize("query", ["mining-runs/?state=%00", "reasoning-checks/?state=closed%00"])
def test_a_nul_in_a_filter_is_refused_before_any_view(reviewer, api_for, query):
    error = api_error(api_for(reviewer).get(f"/api/v1/{query}"), 400, "invalid")
    assert "NUL" in error["message"]


def test_filters_still_filter(reviewer, admin_user, api_for):
    run = MiningRun.objects.create(job="mine", scope="all", chunk_size=10, created_by=admin_user)
    client = api_for(reviewer)
    assert client.get("/api/v1/mining-runs/?job=mine&state=queued").json()["count"] == 1
    assert client.get("/api/v1/mining-runs/?job=categorise").json()["count"] == 0
    assert client.get("/api/v1/mining-runs/?job=&state=").json()["results"][0]["id"] == run.pk


def test_a_query_string_on_a_start_or_a_read_is_not_a_filter(admin_user, api_for):
    client = api_for(admin_user)
    started = client.post("/api/v1/mining-runs/?state=done", {"job": "mine", "scope": "all"}, format="json")
    assert started.status_code == 202, started.json()
    assert client.get(f"/api/v1/mining-runs/{started.json()['id']}/?job=categorise").status_code == 200
