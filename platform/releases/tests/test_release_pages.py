"""A published release's page compares it with any other published version of the same
name, the parent by default, and shows its datasheet rendered from Markdown."""

import pytest

from . import data
from .helpers import build_now, release

pytestmark = pytest.mark.django_db


@pytest.fixture
def versions(admin_user, rater):
    data.screen_pair(rater)
    first = build_now(release(admin_user, name="shops", families=["webquest"], notes="A <script>x</script> note."))
    data.screen_pair(rater)
    second = build_now(release(admin_user, name="shops", version="1.1.0", families=["webquest"]))
    data.screen_pair(rater)
    data.screen_pair(rater)
    third = build_now(release(admin_user, name="shops", version="1.2.0", families=["webquest"]))
    assert {first.state, second.state, third.state} == {"published"}
    return first, second, third


def _added(page):
    table = page.split('data-testid="release-diff"')[1].split("</table>")[0]
    return sum(int(row.split("<td>")[2].split("</td>")[0]) for row in table.split("<tr>")[2:])


def test_a_release_compares_with_its_parent_or_any_other_version(client, rater, versions):
    first, second, third = versions
    client.force_login(rater)
    page = client.get(f"/releases/{third.pk}/").content.decode()
    assert "Changes from 1.1.0 to 1.2.0" in page and _added(page) == 2
    page = client.get(f"/releases/{third.pk}/", {"against": first.pk}).content.decode()
    assert "Changes from 1.0.0 to 1.2.0" in page and _added(page) == 3
    page = client.get(f"/releases/{first.pk}/", {"against": second.pk}).content.decode()
    assert "Changes from 1.0.0 to 1.1.0" in page and _added(page) == 1
    for wrong in (third.pk, 999999, "x"):
        page = client.get(f"/releases/{third.pk}/", {"against": wrong}).content.decode()
        assert "Choose another published version of this release." in page


def test_the_datasheet_is_rendered_and_typed_html_stays_text(client, rater, versions):
    first, _second, _third = versions
    client.force_login(rater)
    page = client.get(f"/releases/{first.pk}/").content.decode()
    sheet = page.split('data-testid="release-datasheet"')[1]
    assert "<h2>shops 1.0.0</h2>" in sheet and "<h3>Motivation</h3>" in sheet
    assert "A &lt;script&gt;x&lt;/script&gt; note." in sheet and "<script>x" not in sheet
