"""Releases in the console: a definition previews its counts per split and is refused
when it would be empty; a build reports what really happened; a published release
downloads as one zip holding every file; any two versions compare."""

import hashlib
import io
import zipfile

import pytest
from django.urls import reverse

from releases import build, services, tasks
from releases.diff import compare
from releases.models import Release
from releases.tests import data
from releases.tests.helpers import build_now, release

pytestmark = pytest.mark.django_db

DEFINITION = {"name": "shops", "version": "1.0.0", "families": ["webquest", "webqa"], "qa_states": ["accepted"],
              "split_strategy": "random", "webvln_setting": "seen", "seed": 0, "train_percent": 80,
              "val_percent": 10, "notes": "First cut."}  # fmt: skip


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture
def pairs(rater):
    data.screen_pair(rater)
    data.screen_pair(rater, screens=2)
    data.webqa_text_pair(rater, keyword="Lisbon")
    data.pair(rater, state="pending_validation")  # not accepted: never selected


def test_the_preview_counts_each_split_before_anything_is_saved(admin_client, pairs):
    response = admin_client.post(reverse("console:release-new"), {**DEFINITION, "action": "preview"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "3 of the 3 QA pairs it selects go into a split" in page
    assert 'data-testid="preview-counts"' in page
    assert 'value="shops"' in page and "First cut." in page  # the form is kept
    assert not Release.objects.exists()


def test_defining_saves_a_draft_and_an_empty_release_is_refused(admin_client, pairs):
    empty = {**DEFINITION, "families": ["webvln"], "action": "define"}
    response = admin_client.post(reverse("console:release-new"), empty)
    assert response.status_code == 400
    assert "This release would be empty: it selects no QA pair." in response.content.decode()
    assert not Release.objects.exists()

    response = admin_client.post(reverse("console:release-new"), {**DEFINITION, "action": "define"})
    draft = Release.objects.get()
    assert response["Location"] == reverse("console:release", args=[draft.pk])
    assert (draft.name, draft.version, draft.families, draft.state) == (
        "shops",
        "1.0.0",
        ["webqa", "webquest"],
        "draft",
    )


def test_a_definition_that_cannot_build_is_refused_beside_its_field(admin_client, admin_user, pairs):
    release(admin_user, name="shops", version="2.0.0", families=["webquest"])
    bad = {**DEFINITION, "version": "1.0", "train_percent": 95, "val_percent": 10, "action": "define"}
    page = admin_client.post(reverse("console:release-new"), bad).content.decode()
    assert "Train and val take 105%: leave some for test." in page
    response = admin_client.post(reverse("console:release-new"), {**DEFINITION, "version": "1.0", "action": "define"})
    assert response.status_code == 400
    assert "“1.0” is not a version: use major.minor.patch" in response.content.decode()
    response = admin_client.post(reverse("console:release-new"), {**DEFINITION, "action": "define"})
    assert "shops is already at 2.0.0: the new version must be higher." in response.content.decode()
    assert Release.objects.count() == 1


def test_building_an_empty_draft_is_refused(admin_client, admin_user, pairs):
    draft = release(admin_user, families=["webvln"])  # defined elsewhere, e.g. over the API
    response = admin_client.post(reverse("console:release-build", args=[draft.pk]), follow=True)
    assert "trail 1.0.0 would hold no QA pairs: there is nothing to build." in response.content.decode()
    assert Release.objects.get(pk=draft.pk).state == "draft"


def test_the_build_message_says_what_happened_not_queued(admin_client, admin_user, pairs):
    draft = release(admin_user, name="shops", families=["webquest", "webqa"])
    response = admin_client.post(reverse("console:release-build", args=[draft.pk]), follow=True)
    assert "The build of shops 1.0.0 is queued." in response.content.decode()  # no worker has it yet
    build.run_build(release_id=draft.pk, attempt=1)
    published = Release.objects.get(pk=draft.pk)
    assert services.build_started_message(published) == "shops 1.0.0 is built and published."
    page = admin_client.get(reverse("console:release", args=[draft.pk])).content.decode()
    assert "Published" in page and "Queued" not in page and "queued" not in page.lower().split("<main")[1]


@pytest.fixture
def versions(admin_user, rater, pairs):
    first = build_now(
        release(admin_user, name="shops", version="1.0.0", families=["webquest", "webqa"], notes="**Bold** <b>x</b>")
    )
    data.screen_pair(rater)
    second = build_now(release(admin_user, name="shops", version="1.1.0", families=["webquest", "webqa"]))
    data.webqa_text_pair(rater, keyword="Porto")
    third = build_now(release(admin_user, name="shops", version="1.2.0", families=["webquest", "webqa"]))
    assert {first.state, second.state, third.state} == {"published"}, (first.message, second.message, third.message)
    return first, second, third


def test_a_published_release_shows_its_datasheet_as_html_and_its_files(admin_client, versions):
    first, _second, _third = versions
    page = admin_client.get(reverse("console:release", args=[first.pk])).content.decode()
    assert "<h2>shops 1.0.0</h2>" in page  # the datasheet's title, under the page's
    assert "<strong>Bold</strong> &lt;b&gt;x&lt;/b&gt;" in page  # Markdown rendered, typed HTML shown as text
    for release_file in first.files.exclude(path__startswith="images/"):
        assert release_file.sha256 in page


def test_download_all_streams_one_zip_holding_every_file(admin_client, versions):
    first, _second, _third = versions
    response = admin_client.get(reverse("console:release-archive", args=[first.pk]))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Disposition"] == 'attachment; filename="shops-1.0.0.zip"'
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert archive.testzip() is None
    expected = {f"shops-1.0.0/{f.path}": f.sha256 for f in first.files.all()}
    assert set(archive.namelist()) == set(expected)
    for name, sha256 in expected.items():
        assert hashlib.sha256(archive.read(name)).hexdigest() == sha256


def test_a_draft_has_no_archive(admin_client, admin_user):
    draft = release(admin_user, families=["webquest"])
    assert admin_client.get(reverse("console:release-archive", args=[draft.pk])).status_code == 404


def test_any_two_versions_compare_in_either_order(admin_client, versions):
    first, second, third = versions
    url = reverse("console:release", args=[third.pk])
    page = admin_client.get(url).content.decode()
    assert "From 1.1.0 to 1.2.0:" in page  # with its parent by default
    page = admin_client.get(url, {"one": third.pk, "other": first.pk}).content.decode()
    assert "From 1.0.0 to 1.2.0:" in page
    diff = compare(one=third, other=first)
    assert sum(changes["added"]["count"] for changes in diff["splits"].values()) == 2  # a screen and a text pair
    for split, changes in diff["splits"].items():
        counts = [changes[change]["count"] for change in ("added", "removed", "changed")]
        assert "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(split, *counts) in page
    page = admin_client.get(url, {"one": first.pk, "other": first.pk}).content.decode()
    assert "Choose two different versions: both are shops 1.0.0." in page
    page = admin_client.get(url, {"one": first.pk, "other": 999999}).content.decode()
    assert "Select a valid choice" in page


def test_download_all_streams_from_s3_file_by_file(admin_client, admin_user, rater, s3):
    data.screen_pair(rater)
    data.webqa_text_pair(rater)
    published = build_now(release(admin_user, name="shops", families=["webquest", "webqa"]))
    assert published.state == "published", published.message
    client, bucket = s3
    keys = {item["Key"] for item in client.list_objects_v2(Bucket=bucket)["Contents"]}
    assert f"{published.storage_prefix}/manifest.json" in keys  # the files are in the bucket, not on disk
    response = admin_client.get(reverse("console:release-archive", args=[published.pk]))
    chunks = list(response.streaming_content)
    assert len(chunks) > published.files.count()  # sent as it is read, not gathered first
    archive = zipfile.ZipFile(io.BytesIO(b"".join(chunks)))
    for release_file in published.files.all():
        body = archive.read(f"shops-1.0.0/{release_file.path}")
        assert hashlib.sha256(body).hexdigest() == release_file.sha256


@pytest.mark.django_db(transaction=True)
def test_a_build_that_ran_at_once_is_reported_published_not_queued(client, admin_user, rater, monkeypatch):
    # No broker: the committed build job runs in the request itself, as outbox does then.
    monkeypatch.setattr(tasks.build_release, "apply_async",
                        lambda args, **options: build.run_build(release_id=args[0], attempt=args[1]))  # fmt: skip
    data.screen_pair(rater)
    draft = release(admin_user, name="shops", families=["webquest"])
    client.force_login(admin_user)
    response = client.post(reverse("console:release-build", args=[draft.pk]), follow=True)
    page = response.content.decode()
    assert "shops 1.0.0 is built and published." in page
    assert "queued" not in page.lower()
    assert Release.objects.get(pk=draft.pk).state == "published"
