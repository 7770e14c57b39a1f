"""API tokens are named after where they are used, so that their owner can tell them apart."""

import pytest

from accounts.models import ApiToken
from tests.api import api_error

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", ["0", 0, 12.5, "", "   ", "\u200b", "2024", "---", "laptop\nextension", None, True])
def test_a_token_name_without_words_or_on_more_than_one_line_is_refused(rater, api_for, name):
    client = api_for(rater)
    error = api_error(client.post("/api/v1/tokens/", {"name": name}, format="json"), 400, "invalid")
    assert set(error["fields"]) == {"name"}
    assert list(ApiToken.objects.filter(user=rater).values_list("name", flat=True)) == ["tests"]


def test_a_token_name_is_stored_trimmed(rater, api_for):
    created = api_for(rater).post("/api/v1/tokens/", {"name": "  Chrome extension 2 "}, format="json")
    assert created.status_code == 201 and created.json()["name"] == "Chrome extension 2"
