"""Release definitions, splits, determinism, diffs, failures, and the researchers' API."""

import hashlib
import urllib.request

import pytest
from django.core.files.storage import default_storage
from django.test import Client

from config.errors import DomainError
from corpus.models import Trace
from releases import build, services
from releases.formats.records import RecordsWriter
from releases.models import Release, ReleaseFile, ReleaseItem
from tests import navigation

from . import data
from .helpers import build_now, paths, read, release

pytestmark = pytest.mark.django_db


def test_versions_must_increase_within_a_name_and_the_last_published_is_the_parent(admin_user, rater):
    data.screen_pair(rater)
    first = build_now(release(admin_user, version="1.2.0"))
    with pytest.raises(DomainError, match="must be higher"):
        release(admin_user, version="1.1.9")
    with pytest.raises(DomainError, match="must be higher"):
        release(admin_user, version="1.2.0")
    with pytest.raises(DomainError, match="not a version"):
        release(admin_user, version="1.2")
    second = release(admin_user, version="1.10.0")
    assert second.parent == first
    assert release(admin_user, name="other", version="0.1.0").parent is None


def test_splits_keep_traces_and_six_image_groups_together_and_are_adversarial(admin_user, rater):
    for _ in range(6):
        recorded, steps = data.trace(rater, ["/", "/a", "/b"])
        for _ in range(3):
            data.trace_pair(rater, recorded, steps)
    for n in range(8):
        group = data.image_group(f"group {n}")
        data.webqa_image_pair(rater, keyword=["white", "red", "blue", "green"][n % 4], group=group)
        data.webqa_image_pair(rater, category="YesNo", keyword="yes", group=group)
        data.webqa_image_pair(rater, category="Others", keyword="frog", group=group, images=2)
    for color, n in (("white", 10), ("red", 6), ("teal", 1), ("pink", 1), ("gray", 1), ("tan", 1)):
        for _ in range(n):
            data.webqa_image_pair(rater, keyword=color)
    built = build_now(release(admin_user, seed=7))
    items = ReleaseItem.objects.filter(release=built)
    by_group = {}
    for group, split in items.values_list("group_key", "split"):
        by_group.setdefault(group, set()).add(split)
    assert all(len(splits) == 1 for splits in by_group.values())
    assert any(key.startswith("image-group:") for key in by_group) and any(key.startswith("trace:") for key in by_group)
    answers = built.split_plan["answers"]["color"]
    assert answers["white"] == "train" and answers["red"] == "train"
    test_colors = {
        record["keyword_answer"] for record in items.filter(split="test", family="webqa").values_list("record", flat=True)
        if record["question_category"] == "color" and not record["image_group"]
    }  # fmt: skip
    assert test_colors and not test_colors & {"white", "red"}
    # The same snapshot and seed split the same way; another seed, another way.
    again = build_now(release(admin_user, version="1.0.1", seed=7))
    assert dict(items.values_list("guid", "split")) == dict(
        ReleaseItem.objects.filter(release=again).values_list("guid", "split")
    )


def test_a_traces_webvln_episodes_and_its_other_questions_share_a_split(admin_user, rater):
    """An episode written on a trace and the trace's other questions ship the trace's
    screens, so they must land in one split, whatever the seed."""
    for n in range(4):
        host = f"shop{n}.example"
        site = navigation.recorded_site(rater, host=host, traces=[("/", "/a", "/b")])
        recorded = Trace.objects.filter(steps__url=f"https://{host}/").distinct().get()
        navigation.episode(rater, site, "/b", trace=recorded)
        steps = list(recorded.steps.order_by("position"))
        data.trace_pair(rater, recorded, steps, family="webquest", relevant=(0, 1, 2))
    for seed in range(1, 11):
        built = build_now(release(admin_user, version=f"1.0.{seed}", seed=seed))
        by_trace = {}
        for split, record in ReleaseItem.objects.filter(release=built).values_list("split", "record"):
            by_trace.setdefault(record["trace"], set()).add(split)
        assert len(by_trace) == 4
        assert all(len(splits) == 1 for splits in by_trace.values()), (seed, by_trace)


def test_a_rebuild_is_byte_identical_and_later_data_does_not_leak_in(admin_user, rater):
    data.screen_pair(rater)
    data.webqa_image_pair(rater)
    navigation.episode(rater, navigation.recorded_site(rater), "/kettles/steel")
    built = build_now(release(admin_user))
    # A second release of the same definition over the same data: the same data files.
    twin = build_now(release(admin_user, version="2.0.0"))
    mine = dict(ReleaseFile.objects.filter(release=built).values_list("path", "sha256"))
    theirs = dict(ReleaseFile.objects.filter(release=twin).values_list("path", "sha256"))
    assert {path for path in mine.keys() | theirs.keys() if mine.get(path) != theirs.get(path)} == {
        "manifest.json",
        "README.md",
        "diff.json",  # the twin's parent is the first: its diff is empty
        "croissant.json",  # names the version
    }
    data.screen_pair(rater)  # accepted after the snapshot
    built.items.get(family="webqa").qa_pair.distractors.all().delete()
    result = build.check_rebuild(release_id=built.pk)
    assert result["identical"], result["differing"]
    assert result["files"] == len([path for path in mine if not path.startswith("images/")])
    assert ReleaseItem.objects.filter(release=built).count() == 3


def test_the_manifest_lists_every_file_with_size_and_hash(admin_user, rater):
    data.screen_pair(rater, screens=2)
    data.webqa_text_pair(rater)
    built = build_now(release(admin_user, notes="First cut."))
    import json

    manifest = json.loads(read(built, "manifest.json"))
    assert manifest["name"] == "trail" and manifest["version"] == "1.0.0" and manifest["parent"] is None
    assert manifest["counts"]["families"] == {"webqa": 1, "webquest": 1}
    listed = {entry["path"]: entry for entry in manifest["files"]}
    assert set(listed) == paths(built) - {"manifest.json"}
    for path, entry in listed.items():
        stored = read(built, path)
        assert entry["size"] == len(stored) and entry["sha256"] == hashlib.sha256(stored).hexdigest()
    readme = read(built, "README.md").decode()
    assert "First cut." in readme and "How it was collected" in readme and "Known limitations" in readme


def test_the_diff_against_the_parent_names_added_removed_and_changed_pairs(admin_user, rater):
    pairs = [data.screen_pair(rater) for _ in range(6)]
    first = build_now(release(admin_user))
    pairs[0].answer = "43"
    pairs[0].save()
    pairs[1].state = "rejected"
    pairs[1].save()
    added = data.screen_pair(rater)
    second = build_now(release(admin_user, version="1.1.0"))
    assert second.parent == first
    split_of = dict(ReleaseItem.objects.filter(release=second).values_list("qa_pair_id", "split"))
    old_split = dict(ReleaseItem.objects.filter(release=first).values_list("qa_pair_id", "split"))
    from releases.snapshot import guid_of

    diff = read(second, "diff.json")
    import json

    diff = json.loads(diff)
    assert diff["splits"][split_of[added.pk]]["added"] == [guid_of(added.pk)]
    assert diff["splits"][old_split[pairs[1].pk]]["removed"] == [guid_of(pairs[1].pk)]
    assert diff["splits"][split_of[pairs[0].pk]]["changed"] == [guid_of(pairs[0].pk)]
    total = sum(len(ids) for changes in diff["splits"].values() for ids in changes.values())
    assert total == 3


def test_a_build_that_fails_midway_publishes_nothing_and_a_rerun_succeeds(admin_user, rater, monkeypatch, settings):
    settings.RELEASE_CHUNK_SIZE = 2
    for _ in range(5):
        data.screen_pair(rater)
    definition = release(admin_user)
    calls = {"n": 0}
    original = RecordsWriter.add

    def failing(self, item, lookup):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("disk full")
        return original(self, item, lookup)

    monkeypatch.setattr(RecordsWriter, "add", failing)
    started = services.start_build(release=definition)
    with pytest.raises(OSError):
        build.run_build(release_id=started.pk, attempt=started.attempt)
    failed = Release.objects.get(pk=definition.pk)
    assert failed.state == "failed" and "disk full" in failed.message
    assert not ReleaseFile.objects.filter(release=failed).exists()
    browser = Client()
    browser.force_login(rater)
    assert browser.get(f"/api/v1/releases/{failed.pk}/").status_code == 404
    assert _api(rater).get("/api/v1/releases/").json()["results"] == []

    monkeypatch.setattr(RecordsWriter, "add", original)
    rebuilt = build_now(failed)
    assert rebuilt.state == "published" and rebuilt.attempt == 2
    assert rebuilt.storage_prefix.endswith("build-2")
    assert not default_storage.exists(
        rebuilt.storage_prefix.replace("build-2", "build-1") + "/records/webquest/train.jsonl"
    )
    with pytest.raises(DomainError, match="published"):
        services.start_build(release=rebuilt)


def _api(user):
    from conftest import token_client

    return token_client(user)


def _published(admin_user, rater):
    data.screen_pair(rater)
    data.webqa_image_pair(rater)
    return build_now(release(admin_user))


def test_researchers_list_and_read_published_releases_only(admin_user, rater):
    published = _published(admin_user, rater)
    release(admin_user, name="draft", version="0.0.1")
    api = _api(rater)
    listed = api.get("/api/v1/releases/").json()
    assert [row["id"] for row in listed["results"]] == [published.pk]
    detail = api.get(f"/api/v1/releases/{published.pk}/").json()
    assert detail["version"] == "1.0.0" and detail["state"] == "published"
    assert detail["counts"]["items"] == 2 and "Known limitations" in detail["datasheet"]
    assert detail["manifest"]["file_count"] == ReleaseFile.objects.filter(release=published).count()
    files = api.get(f"/api/v1/releases/{published.pk}/files/?page_size=500").json()
    public = set(published.files.filter(private=False).values_list("path", flat=True))
    assert {row["path"] for row in files["results"]} == public <= paths(published)
    everything = _api(admin_user).get(f"/api/v1/releases/{published.pk}/files/?page_size=500").json()
    assert {row["path"] for row in everything["results"]} == paths(published)
    assert len(_api(admin_user).get("/api/v1/releases/").json()["results"]) == 2
    assert Client().get("/api/v1/releases/").status_code in (401, 403)


def test_a_file_downloads_from_local_storage_with_its_checksum(admin_user, rater):
    published = _published(admin_user, rater)
    response = _api(rater).get(f"/api/v1/releases/{published.pk}/files/webqa/WebQA_train_val.json")
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    entry = ReleaseFile.objects.get(release=published, path="webqa/WebQA_train_val.json")
    assert hashlib.sha256(body).hexdigest() == entry.sha256 == response["X-Checksum-SHA256"]
    missing = _api(rater).get(f"/api/v1/releases/{published.pk}/files/nothing.json")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_a_file_downloads_from_s3_through_a_signed_link(s3, admin_user, rater):
    published = _published(admin_user, rater)
    client, bucket = s3
    keys = [item["Key"] for item in client.list_objects_v2(Bucket=bucket)["Contents"]]
    assert f"{published.storage_prefix}/manifest.json" in keys
    response = _api(rater).get(f"/api/v1/releases/{published.pk}/files/manifest.json")
    assert response.status_code == 302 and "X-Amz-Signature" in response["Location"]
    with urllib.request.urlopen(response["Location"], timeout=10) as fetched:
        body = fetched.read()
    assert hashlib.sha256(body).hexdigest() == ReleaseFile.objects.get(release=published, path="manifest.json").sha256


def test_admins_define_and_build_through_the_api_and_others_may_not(admin_user, rater):
    data.screen_pair(rater)
    refused = _api(rater).post("/api/v1/releases/", {"name": "api", "version": "1.0.0"})
    assert refused.status_code == 403
    created = _api(admin_user).post("/api/v1/releases/", {"name": "api", "version": "1.0.0", "families": ["webquest"]})
    assert created.status_code == 201, created.content
    assert created.json()["state"] == "queued"
    lower = _api(admin_user).post("/api/v1/releases/", {"name": "api", "version": "0.9.0"})
    assert lower.status_code == 400 and lower.json()["error"]["code"] == "version_not_higher"
    again = _api(admin_user).post(f"/api/v1/releases/{created.json()['id']}/build/")
    assert again.status_code == 409


def test_the_diff_endpoint_counts_changes_per_split(admin_user, rater):
    data.screen_pair(rater)
    first = build_now(release(admin_user))
    data.screen_pair(rater)
    second = build_now(release(admin_user, version="1.0.1"))
    diff = _api(rater).get(f"/api/v1/releases/{second.pk}/diff/").json()
    assert sum(changes["added"]["count"] for changes in diff["splits"].values()) == 1
    assert diff["from"] == first.version
    backwards = _api(rater).get(f"/api/v1/releases/{first.pk}/diff/?against={second.pk}").json()
    assert sum(changes["removed"]["count"] for changes in backwards["splits"].values()) == 1


def test_the_release_page_shows_counts_files_and_datasheet(admin_user, rater):
    published = _published(admin_user, rater)
    browser = Client()
    browser.force_login(rater)
    page = browser.get(f"/releases/{published.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert (
        "webqa/WebQA_train_val.json" in html and "Known limitations" in html and 'data-testid="release-counts"' in html
    )
    assert browser.get("/releases/").status_code == 200
    download = browser.get(f"/releases/{published.pk}/files/manifest.json")
    assert download.status_code == 200


def test_the_release_endpoints_are_in_the_openapi_schema(rater):
    schema = _api(rater).get("/api/v1/schema/", HTTP_ACCEPT="application/json").content.decode()
    for path in ("/api/v1/releases/", "/api/v1/releases/{id}/diff/", "/api/v1/releases/{id}/files/{path}"):
        assert path in schema


def test_publishing_sends_release_published_once_it_commits(admin_user, rater, django_capture_on_commit_callbacks):
    from releases.signals import release_published

    data.screen_pair(rater)
    seen = []

    def receive(*, release, **_signal):
        seen.append((release.pk, release.state))

    release_published.connect(receive)
    try:
        started = services.start_build(release=release(admin_user))  # its queued job never runs here
        with django_capture_on_commit_callbacks(execute=False) as waiting:
            build.run_build(release_id=started.pk, attempt=started.attempt)
        assert seen == []  # nothing is announced before the publishing transaction commits
        for callback in waiting:
            callback()
    finally:
        release_published.disconnect(receive)
    assert seen == [(started.pk, "published")]
