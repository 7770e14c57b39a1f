"""The release admin: defining a release, and reading one that exists."""

import pytest

from releases.models import Release

from .helpers import release

pytestmark = pytest.mark.django_db


def test_a_release_page_in_the_admin_answers_and_is_read_only(client, admin_user):
    made = release(admin_user)
    client.force_login(admin_user)
    page = client.get(f"/admin/releases/release/{made.pk}/change/")
    assert page.status_code == 200
    assert "trail 1.0.0" in page.content.decode() and 'name="name"' not in page.content.decode()


def test_defining_a_release_in_the_admin_says_its_version_and_lands_on_its_page(client, admin_user):
    client.force_login(admin_user)
    form = {"name": "shops", "version": "1.2.0", "families": ["webquest"], "qa_states": ["accepted"],
            "split_strategy": "random", "webvln_setting": "seen", "seed": "3", "train_percent": "80",
            "val_percent": "10", "notes": "", "_continue": "1"}  # fmt: skip
    response = client.post("/admin/releases/release/add/", form, follow=True)
    made = Release.objects.get(name="shops")
    assert response.status_code == 200 and response.redirect_chain[-1][0].endswith(f"/{made.pk}/change/")
    text = response.content.decode()
    assert "shops 1.2.0" in text and "None.None.None" not in text
