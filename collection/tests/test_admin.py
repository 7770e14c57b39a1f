import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from collection.models import Site

pytestmark = pytest.mark.django_db


def _import(client, text, encoding="utf-8"):
    upload = SimpleUploadedFile("sites.csv", text.encode(encoding), content_type="text/csv")
    return client.post(reverse("admin:collection_site_import"), {"file": upload}, follow=True)


def test_admin_imports_sites_from_csv_and_sees_line_numbered_errors(client, admin_user):
    client.force_login(admin_user)
    assert "Import from CSV" in client.get(reverse("admin:collection_site_changelist")).content.decode()
    bad = _import(client, "category,name,url\nShopping,Shop,https://shop.test/\nNowhere,X,https://x.test/\n")
    assert "Line 3: Unknown category" in bad.content.decode() and not Site.objects.exists()
    good = _import(client, "category,name,url\nShopping,Shop,https://shop.test/\nHotel,Stay,https://stay.test/\n")
    assert "2 sites added, 0 updated." in good.content.decode()
    assert Site.objects.count() == 2
    latin = _import(client, "category,name,url\nShopping,Café,https://cafe.test/\n", encoding="latin-1")
    assert "not UTF-8" in latin.content.decode()


def test_raters_cannot_import_sites(client, rater):
    client.force_login(rater)
    response = client.post(reverse("admin:collection_site_import"))
    assert response.status_code == 302 and "login" in response["Location"]


def test_capture_admin_pages_render(client, admin_user):
    client.force_login(admin_user)
    for model in ("category", "site", "screen", "qapair"):
        assert client.get(f"/admin/collection/{model}/").status_code == 200, model
