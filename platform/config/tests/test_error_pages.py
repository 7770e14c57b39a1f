"""Pages that refuse or find nothing say so in the site's own look, with a way back."""

import pytest

pytestmark = pytest.mark.django_db


def test_missing_and_refused_pages_say_why_and_lead_back(client, rater, settings):
    settings.DEBUG = False
    client.force_login(rater)
    missing = client.get("/no/such/page/")
    assert missing.status_code == 404
    text = missing.content.decode()
    assert "There is nothing here" in text and 'href="/"' in text and 'class="skip-link"' in text
    refused = client.get("/capture/sites/")
    assert refused.status_code == 403 and "This page is not for your account" in refused.content.decode()
    assert 'rel="icon"' in text
    api = client.get("/api/v1/no-such-thing/")
    assert api.status_code == 404 and api.json()["error"]["code"] == "not_found"  # the API keeps its error body
