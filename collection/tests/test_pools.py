"""Importing the image and snippet pools: from a folder with a CSV or JSON Lines
manifest, from an S3 prefix, and snippets from JSON Lines; bad rows are reported by
line, the rest imported; importing again adds nothing."""

import json
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assets.tests.conftest import s3, s3_server  # noqa: F401 (fixtures)
from collection.models import PoolImport
from collection.pools import run_import
from corpus.models import ImageSource, Snippet
from tests.api import api_error
from tests.pools import image_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def import_root(tmp_path, settings):
    settings.POOL_IMPORT_ROOT = tmp_path
    return tmp_path


def _image_folder(root, name="lighthouses"):
    folder = root / name
    folder.mkdir()
    for n in range(3):
        (folder / f"tower-{n}.png").write_bytes(image_bytes(f"tower-{n}"))
    (folder / "notes.txt").write_text("not an image")
    return folder


CSV_MANIFEST = """file,title,description,source_url,topic,licence
tower-0.png,Stone tower,A round stone lighthouse on a cliff.,https://example.org/wiki/Tower_0,lighthouses,CC BY-SA
tower-1.png,White tower,A white lighthouse with a red lantern.,https://example.org/wiki/Tower_1,lighthouses,CC BY-SA
tower-2.png,,No title on this row.,,lighthouses,
missing.png,Ghost tower,,,lighthouses,
notes.txt,Notes,,,lighthouses,
tower-2.png,Striped tower,Black and white stripes.,not-a-url,lighthouses,
../escape.png,Outside,,,lighthouses,
tower-2.png,Striped tower,Black and white stripes.,https://example.org/wiki/Tower_2,lighthouses,
"""


def _job(kind, source, user):
    return PoolImport.objects.create(kind=kind, source=str(source), created_by=user)


def test_image_import_reports_bad_rows_by_line_and_imports_the_rest(import_root, admin_user):
    folder = _image_folder(import_root)
    (folder / "manifest.csv").write_text(CSV_MANIFEST)
    job = run_import(_job("images", folder, admin_user).pk)
    assert (job.state, job.total, job.processed) == ("done", 8, 8)
    assert (job.created_count, job.existing_count, job.error_count) == (3, 0, 5)
    errors = {error["line"]: error["message"] for error in job.errors}
    assert errors[4] == "The row has no title."
    assert errors[5] == "There is no file “missing.png” next to the manifest."
    assert errors[6].startswith("notes.txt: ")
    assert errors[7] == "The source_url “not-a-url” is not an http(s) address."
    assert errors[8] == "“../escape.png” must be a path inside the manifest's folder."
    tower = ImageSource.objects.get(title="White tower")
    assert (tower.topic, tower.licence, tower.source_url) == (
        "lighthouses",
        "CC BY-SA",
        "https://example.org/wiki/Tower_1",
    )
    assert tower.asset.review_state == "pending_review"  # pool images are reviewed like any image

    again = run_import(_job("images", folder / "manifest.csv", admin_user).pk)
    assert (again.created_count, again.existing_count, again.error_count) == (0, 3, 5)
    assert ImageSource.objects.count() == 3


def test_image_import_reads_json_lines(import_root, admin_user):
    folder = _image_folder(import_root)
    rows = [
        {"file": "tower-0.png", "title": "Stone tower", "topic": "lighthouses"},
        "not an object",
        {"file": "tower-1.png", "title": 7},
    ]
    lines = [json.dumps(row) for row in rows] + ["{broken", ""]
    (folder / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    job = run_import(_job("images", folder, admin_user).pk)
    assert (job.created_count, job.error_count) == (1, 3)
    assert [error["line"] for error in job.errors] == [2, 3, 4]
    assert job.errors[0]["message"] == "Each line must be a JSON object."
    assert job.errors[1]["message"] == "“title” must be text."
    assert job.errors[2]["message"].startswith("Not valid JSON")


def test_a_source_outside_the_import_folder_or_missing_fails_clearly(import_root, admin_user, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere")
    (outside / "manifest.csv").write_text("file,title\n")
    job = run_import(_job("images", outside / "manifest.csv", admin_user).pk)
    assert job.state == "failed" and "outside it" in job.message
    job = run_import(_job("images", import_root / "nothing.csv", admin_user).pk)
    assert job.state == "failed" and job.message.startswith("There is no manifest at")
    (import_root / "list.txt").write_text("x")
    job = run_import(_job("images", import_root / "list.txt", admin_user).pk)
    assert job.state == "failed" and "must be a .jsonl or .csv file" in job.message
    (import_root / "bad.csv").write_text("name,caption\nx,y\n")
    job = run_import(_job("images", import_root / "bad.csv", admin_user).pk)
    assert job.state == "failed" and "header lacks file, title" in job.message


def test_snippet_import_is_idempotent_and_reports_bad_rows(import_root, admin_user):
    rows = [
        {
            "title": "Tower Bridge",
            "text": "Tower Bridge opened in 1894.",
            "url": "https://example.org/tb",
            "topic": "bridges",
        },
        {"title": "Tower Bridge", "text": "  Tower   Bridge opened in 1894. "},  # the same content
        {"title": "No text"},
        {"title": "Bad address", "text": "Some text.", "url": "ftp://example.org"},
        {"title": "Forth Bridge", "text": "The Forth Bridge is red.", "topic": "bridges"},
    ]
    (import_root / "snippets.jsonl").write_text("\n".join(json.dumps(row) for row in rows))
    job = run_import(_job("snippets", import_root / "snippets.jsonl", admin_user).pk)
    assert (job.created_count, job.existing_count, job.error_count) == (2, 1, 2)
    assert {error["line"]: error["message"] for error in job.errors} == {
        3: "The row has no text.",
        4: "The url “ftp://example.org” is not an http(s) address.",
    }
    again = run_import(_job("snippets", import_root, admin_user).pk)
    assert (again.created_count, again.existing_count) == (0, 3)
    assert Snippet.objects.count() == 2


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_import_api_is_for_admins_and_runs_the_job_on_the_worker(admin_user, rater, api_for, settings, celery_worker):
    settings.POOL_IMPORT_ROOT = import_root = celery_worker.import_root
    folder = _image_folder(import_root)
    (folder / "manifest.csv").write_text(CSV_MANIFEST)
    refused = api_for(rater).post("/api/v1/pool-imports/", {"kind": "images", "source": "lighthouses"}, format="json")
    api_error(refused, 403, "permission_denied")
    client = api_for(admin_user)
    bad = client.post("/api/v1/pool-imports/", {"kind": "images", "source": "/etc"}, format="json")
    assert "outside it" in api_error(bad, 400, "invalid_source")["message"]
    assert not PoolImport.objects.exists()
    started = client.post("/api/v1/pool-imports/", {"kind": "images", "source": "lighthouses"}, format="json")
    assert started.status_code == 202, started.json()
    deadline = time.monotonic() + 60
    while (job := client.get(f"/api/v1/pool-imports/{started.json()['id']}/").json())["state"] in ("queued", "running"):
        assert time.monotonic() < deadline, job
        time.sleep(0.2)
    assert (job["state"], job["created_count"], job["error_count"], job["total"]) == ("done", 3, 5, 8)
    assert job["errors"][0] == {"line": 4, "message": "The row has no title."}
    listed = client.get("/api/v1/pool-images/?topic=lighthouses").json()
    assert listed["count"] == 3
    api_error(client.get("/api/v1/pool-imports/999999/"), 404, "not_found")


def test_image_import_from_an_s3_prefix(s3, admin_user):  # noqa: F811 (fixture)
    client, bucket = s3
    for n in range(2):
        client.put_object(Bucket=bucket, Key=f"pools/towers/tower-{n}.png", Body=image_bytes(f"s3-{n}"))
    manifest = "\n".join(
        json.dumps({"file": f"tower-{n}.png", "title": f"Tower {n}", "topic": "lighthouses"}) for n in range(3)
    )
    client.put_object(Bucket=bucket, Key="pools/towers/manifest.jsonl", Body=manifest.encode())
    job = run_import(_job("images", f"s3://{bucket}/pools/towers/", admin_user).pk)
    assert (job.state, job.created_count, job.error_count) == ("done", 2, 1)
    assert job.errors == [{"line": 3, "message": "There is no file “tower-2.png” next to the manifest."}]
    job = run_import(_job("images", f"s3://{bucket}/nothing-here/", admin_user).pk)
    assert job.state == "failed" and "holds no manifest.jsonl or manifest.csv" in job.message


def test_import_command_prints_bad_rows_and_totals(tmp_path, admin_user, capsys):
    folder = _image_folder(tmp_path)
    (folder / "manifest.csv").write_text(CSV_MANIFEST)
    call_command("import_pool", "images", str(folder))
    out, err = capsys.readouterr()
    assert "3 added, 0 already there, 5 bad rows of 8." in out
    assert f"{folder}:4: The row has no title." in err
    with pytest.raises(CommandError, match="There is no manifest"):
        call_command("import_pool", "snippets", str(tmp_path / "none.jsonl"))


def test_admin_starts_an_import_and_sees_a_bad_source_refused(
    client, import_root, admin_user, monkeypatch, django_capture_on_commit_callbacks
):
    from collection import tasks

    folder = _image_folder(import_root)
    (folder / "manifest.csv").write_text(CSV_MANIFEST)
    queued = []
    monkeypatch.setattr(tasks.run_pool_import, "apply_async", lambda args, **options: queued.append(args[0]))
    client.force_login(admin_user)
    refused = client.post("/admin/collection/poolimport/add/", {"kind": "images", "source": "/etc"})
    assert refused.status_code == 200 and "outside it" in refused.content.decode()
    assert not PoolImport.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        started = client.post("/admin/collection/poolimport/add/", {"kind": "images", "source": "lighthouses"})
    assert started.status_code == 302
    job = PoolImport.objects.get()
    assert (job.source, job.created_by, queued) == ("lighthouses", admin_user, [job.pk])
    assert client.get(f"/admin/collection/poolimport/{job.pk}/change/").status_code == 200
