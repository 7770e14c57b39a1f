"""The staff console in a real browser: an admin is refused an empty release, defines
one with its counts previewed, builds it and watches it publish, downloads it as one zip,
compares two versions, and picks test items for reference answers — never opening the
Django admin or the API. A rater is shown the 403 page."""

import hashlib
import re
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from corpus.models import QAPair, ReferenceSet
from releases import build, tasks
from releases.models import Release
from releases.tests import data
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def queued(monkeypatch):
    """Builds the pages queue, recorded instead of sent to the session's worker (which has
    a storage folder of its own): the test runs them, as the worker would."""
    sent = []
    monkeypatch.setattr(tasks.build_release, "apply_async", lambda args, **options: sent.append(args))
    return sent


@pytest.fixture
def corpus(rater):
    data.screen_pair(rater)
    data.screen_pair(rater, screens=2)
    for _ in range(5):  # colour answers split by answer: white to train, teal and pink to test
        data.webqa_image_pair(rater, keyword="white", negatives=0)
    for colour in ("teal", "pink"):
        data.webqa_image_pair(rater, keyword=colour, negatives=0, question=f"What colour is the {colour} roof?")


@pytest.fixture
def watched(page):
    """Every address the page asks the server for."""
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    return asked


def _define(page, *, families, action="save-release", **fields):
    for family in ("webquest", "webqa", "webvln"):
        box = page.get_by_test_id("release-form").get_by_label(family, exact=True)
        box.check() if family in families else box.uncheck()
    for label, value in fields.items():
        page.get_by_label(label, exact=True).fill(value)
    page.get_by_test_id(action).click()


def _build_and_watch(page, queued):
    page.get_by_test_id("console-build-release").click()
    expect(page.get_by_role("status")).to_contain_text("is queued")
    expect(page.get_by_test_id("release-progress")).to_contain_text("Queued")
    release_id, attempt = queued.pop()
    build.run_build(release_id=release_id, attempt=attempt)  # what the worker does with it
    # The page polls while the build runs, and reloads once the release is published.
    expect(page.get_by_test_id("console-release-files")).to_contain_text("manifest.json", timeout=15000)
    expect(page.get_by_test_id("release-progress")).to_contain_text("Published")
    expect(page.get_by_test_id("release-progress")).not_to_contain_text("Queued")
    return Release.objects.get(pk=release_id)


def test_an_admin_runs_a_release_from_the_console(page, live_server, admin_user, corpus, queued, watched, rater):
    log_in(page, live_server.url, admin_user.username, PASSWORD)
    page.get_by_role("link", name="Console", exact=True).first.click()
    expect(page.get_by_test_id("release-summary")).to_contain_text("0 published, 0 draft or failed, 0 building.")
    page.locator(".console-nav").get_by_role("link", name="Releases").click()
    page.get_by_test_id("define-release").click()

    # Nothing of WebVLN is collected yet: that release would be empty, and is refused.
    _define(page, families=["webvln"], Name="shops", Version="1.0.0")
    expect(page.get_by_test_id("form-error")).to_contain_text("This release would be empty: it selects no QA pair.")
    assert not Release.objects.exists()
    expect(page.get_by_label("Name", exact=True)).to_have_value("shops")  # the form keeps what was typed

    _define(page, families=["webquest", "webqa"], action="preview-release", Notes="First cut, *with* notes.")
    expect(page.get_by_test_id("release-preview")).to_contain_text("9 of the 9 QA pairs it selects go into a split")
    header = page.get_by_test_id("preview-counts").locator("thead th")
    expect(header).to_have_text(["Split", "webqa", "webquest"])
    assert not Release.objects.exists()  # a preview saves nothing
    page.get_by_test_id("save-release").click()
    expect(page.get_by_role("heading", name="shops 1.0.0")).to_be_visible()
    expect(page.get_by_test_id("release-progress")).to_contain_text("Draft")

    first = _build_and_watch(page, queued)
    assert first.state == "published", first.message
    datasheet = page.get_by_test_id("console-datasheet")
    expect(datasheet.get_by_role("heading", name="shops 1.0.0", level=2)).to_be_visible()  # Markdown, rendered
    expect(datasheet.locator("em")).to_have_text("with")

    with page.expect_download() as download:
        page.get_by_test_id("download-all").click()
    assert download.value.suggested_filename == "shops-1.0.0.zip"
    with zipfile.ZipFile(Path(download.value.path())) as archive:
        assert archive.testzip() is None
        expected = {f"shops-1.0.0/{f.path}": f.sha256 for f in first.files.all()}
        assert set(archive.namelist()) == set(expected)
        for name, sha256 in expected.items():
            assert hashlib.sha256(archive.read(name)).hexdigest() == sha256

    # A new version with one more pair, from the list's "New version".
    data.screen_pair(rater)
    page.locator(".console-nav").get_by_role("link", name="Releases").click()
    page.get_by_test_id("console-release-row").filter(has_text="shops 1.0.0").get_by_role(
        "link", name="New version"
    ).click()
    expect(page.get_by_label("Version", exact=True)).to_have_value("1.1.0")
    page.get_by_test_id("save-release").click()
    second = _build_and_watch(page, queued)
    assert (second.version, second.parent) == ("1.1.0", first)

    # Compare the two, newest first in the form: the comparison runs from the older.
    compare = page.get_by_test_id("compare-form")
    compare.get_by_label("From").select_option(label="1.1.0")
    compare.get_by_label("To").select_option(label="1.0.0")
    page.get_by_test_id("compare").click()
    expect(page.get_by_text("From 1.0.0 to 1.1.0:")).to_be_visible()
    added = page.get_by_test_id("console-release-diff").locator("tbody tr td:nth-child(2)")
    assert sum(int(cell) for cell in added.all_inner_texts()) == 1

    # The next WebQA release, defined and not built, decides the test items.
    page.locator(".console-nav").get_by_role("link", name="Releases").click()
    page.get_by_test_id("define-release").click()
    _define(page, families=["webqa"], Name="colours", Version="0.1.0", **{"Train percent": "50", "Val percent": "0"})
    expect(page.get_by_role("heading", name="colours 0.1.0")).to_be_visible()
    page.locator(".console-nav").get_by_role("link", name="Reference answers").click()
    form = page.get_by_test_id("candidates-form")
    teal = QAPair.objects.get(keyword_answer="teal")
    form.get_by_label(re.compile("teal roof")).check()
    form.get_by_label("Or type QA pair ids").fill("987654")
    page.get_by_test_id("choose-candidates").click()
    expect(page.get_by_test_id("field-error")).to_have_text("No QA pair has the id 987654. Nothing was chosen.")
    assert not ReferenceSet.objects.exists()
    expect(form.get_by_label(re.compile("teal roof"))).to_be_checked()  # the tick survives the refusal
    form.get_by_label("Or type QA pair ids").fill("")
    page.get_by_test_id("choose-candidates").click()
    expect(page.get_by_role("status")).to_contain_text("1 pair of the test split of colours 0.1.0 now collect")
    assert list(ReferenceSet.objects.values_list("qa_pair", flat=True)) == [teal.pk]
    expect(page.get_by_test_id("reference-sets")).to_contain_text("What colour is the teal roof?")

    assert [url for url in watched if "/admin/" in url or "/api/" in url] == []


def test_a_rater_is_shown_the_403_page(page, live_server, rater):
    log_in(page, live_server.url, rater.username, PASSWORD)
    expect(page.get_by_role("link", name="Console")).to_have_count(0)
    response = page.goto(f"{live_server.url}/console/releases/")
    assert response.status == 403
    expect(page.get_by_role("heading", name="This page is not for your account")).to_be_visible()
    expect(page.get_by_text("The console is for staff only.")).to_be_visible()
