import pytest


@pytest.mark.django_db
def test_api_docs_page_links_back_to_the_site_and_loads_nothing_from_elsewhere(client):
    page = client.get("/api/v1/docs/")

    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="docs-back"' in html
    assert 'href="/"' in html
    assert "/api/v1/schema/" in html
    # Every script and style comes from the site itself (the policy forbids other origins).
    assert "fonts.googleapis.com" not in html
