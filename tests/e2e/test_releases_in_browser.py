"""The release pages in a real browser: an admin reads a published release and builds a
draft; a researcher (any signed-in user) reads and downloads the same, and builds nothing."""

import hashlib
from pathlib import Path

import pytest
from playwright.sync_api import expect

from releases import build, services, tasks
from releases.models import Release
from releases.tests import data
from releases.tests.helpers import build_now, release
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def published(admin_user, rater, queued):
    # ``queued`` first: in these committing tests a build would otherwise go to the
    # session's Celery worker too, which has a storage folder of its own.
    data.screen_pair(rater)
    data.screen_pair(rater, screens=2)
    data.webqa_image_pair(rater, keyword="white")
    data.webqa_text_pair(rater, keyword="Lisbon")
    built = build_now(release(admin_user, name="shops", families=["webquest", "webqa"], notes="First cut."))
    assert built.state == "published", built.message
    queued.clear()  # that build ran here; the tests look at what the pages queue
    return built


@pytest.fixture
def queued(monkeypatch):
    """Builds the pages queue, recorded instead of sent to a worker: the test runs them."""
    sent = []
    monkeypatch.setattr(tasks.build_release, "apply_async", lambda args, **options: sent.append(args))
    return sent


def _counts_row(page, split):
    return page.get_by_test_id("release-counts").locator("tbody tr").filter(has_text=split)


def _reads_the_published_release(page, base_url, published, *, admin=False):
    page.get_by_role("link", name="Releases").click()
    page.get_by_role("link", name="shops 1.0.0").click()
    expect(page.get_by_role("heading", name="shops 1.0.0", level=1)).to_be_visible()
    expect(page.get_by_test_id("release-progress")).to_contain_text("Published")
    splits = published.counts["splits"]
    header = page.get_by_test_id("release-counts").locator("thead th")
    expect(header).to_have_text(["Split", "webqa", "webquest"])
    for split in ("train", "val", "test"):
        cells = [split] + [str(splits[split].get(family, "")) for family in ("webqa", "webquest")]
        expect(_counts_row(page, split).locator("td")).to_have_text(cells)
    files = page.get_by_test_id("release-files")
    shown = published.files.all() if admin else published.files.filter(private=False)
    for entry in shown.exclude(path__startswith="images/"):
        row = files.locator("tr").filter(has=page.get_by_role("link", name=entry.path, exact=True))
        expect(row).to_contain_text(entry.sha256)
    if not admin:  # the evaluation set (gold, test answers) is not offered, nor served
        expect(files.get_by_role("link", name="evaluation/", exact=False)).to_have_count(0)
        for hidden in published.files.filter(private=True):
            assert page.request.get(f"{base_url}/releases/{published.pk}/files/{hidden.path}").status == 404
    expect(files).to_contain_text(f"images/ ({published.files.filter(path__startswith='images/').count()} files")
    expect(page.get_by_test_id("release-datasheet")).to_contain_text("First cut.")
    # The datasheet is Markdown, shown rendered: its title a heading, no "#" left over.
    title = published.datasheet.splitlines()[0].removeprefix("# ")
    expect(page.get_by_test_id("release-datasheet").get_by_role("heading", name=title, level=2)).to_be_visible()
    expect(page.get_by_test_id("release-datasheet")).not_to_contain_text("# ")

    manifest = published.files.get(path="manifest.json")
    with page.expect_download() as download:
        files.get_by_role("link", name="manifest.json", exact=True).click()
    saved = Path(download.value.path())
    assert download.value.suggested_filename == "manifest.json"
    assert hashlib.sha256(saved.read_bytes()).hexdigest() == manifest.sha256


def test_an_admin_reads_a_published_release_and_builds_a_draft(page, live_server, admin_user, published, queued):
    draft = services.create_release(name="shops", version="1.1.0", families=["webquest"], created_by=admin_user)
    log_in(page, live_server.url, admin_user.username, PASSWORD)
    _reads_the_published_release(page, live_server.url, published, admin=True)
    expect(page.get_by_test_id("build-release")).to_have_count(0)  # published: a change is a new version

    page.get_by_role("link", name="All releases").click()
    rows = page.get_by_test_id("release-row")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="shops 1.1.0")).to_contain_text("Draft")
    rows.get_by_role("link", name="shops 1.1.0").click()
    expect(page.get_by_test_id("release-progress")).to_contain_text("Draft")
    page.get_by_test_id("build-release").click()
    expect(page.get_by_text("The build of shops 1.1.0 is queued.")).to_be_visible()
    expect(page.get_by_test_id("release-progress")).to_contain_text("Queued")
    assert queued == [[draft.pk, 1]]

    build.run_build(release_id=draft.pk, attempt=1)  # what the worker does with it
    # The page polls while the build is queued, and shows the release once it is published.
    expect(page.get_by_test_id("release-progress")).to_contain_text("Published", timeout=10000)
    expect(page.get_by_test_id("release-files")).to_contain_text("manifest.json")
    assert Release.objects.get(pk=draft.pk).parent == published


def test_a_researcher_reads_and_downloads_but_cannot_build(page, live_server, admin_user, rater, published, queued):
    draft = services.create_release(name="shops", version="1.1.0", families=["webquest"], created_by=admin_user)
    log_in(page, live_server.url, rater.username, PASSWORD)
    _reads_the_published_release(page, live_server.url, published)
    expect(page.get_by_test_id("build-release")).to_have_count(0)

    page.get_by_role("link", name="All releases").click()
    expect(page.get_by_test_id("release-row")).to_have_count(1)  # drafts are the admins' business
    assert page.goto(f"{live_server.url}/releases/{draft.pk}/").status == 404
    # Starting a build by hand, with the page's own CSRF token, is refused too.
    page.goto(f"{live_server.url}/releases/{published.pk}/")
    status = page.evaluate(
        """async (url) => {
            const token = document.cookie.split("; ").find((c) => c.startsWith("csrftoken=")).split("=")[1];
            const response = await fetch(url, {method: "POST", headers: {"X-CSRFToken": token}});
            return response.status;
        }""",
        f"{live_server.url}/releases/{draft.pk}/build/",
    )
    assert status == 404
    assert queued == [] and Release.objects.get(pk=draft.pk).state == "draft"
