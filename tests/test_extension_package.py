"""The extension's zip, as raters get it."""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_build_extension_zips_what_chrome_loads_under_the_manifest_version():
    result = subprocess.run(
        [sys.executable, "scripts/build-extension"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((ROOT / "extension" / "manifest.json").read_text())
    package = ROOT / "var" / "dist" / f"trailmark-extension-{manifest['version']}.zip"
    with zipfile.ZipFile(package) as archive:
        names = set(archive.namelist())
        assert json.loads(archive.read("manifest.json"))["version"] == manifest["version"]
    assert {"manifest.json", "background.js", "content.js", "popup.html", "review.html", "lib/upload.js"} <= names
    assert not any(name.startswith("tests/") or name == "package.json" for name in names)
    with zipfile.ZipFile(package) as archive:
        worker = archive.read("background.js").decode()
    assert "globalThis.trailmark" not in worker, "the browser tests' hook must not ship"
    assert manifest["manifest_version"] == 3


def test_raters_download_the_same_extension_from_the_platform(client, rater):
    import io

    from django.urls import reverse

    assert client.get(reverse("collection:extension")).status_code == 302  # log in first
    client.force_login(rater)
    page = client.get(reverse("collection:extension")).content.decode()
    assert "Load unpacked" in page and reverse("accounts:profile") in page
    download = client.get(reverse("collection:extension-download"))
    version = json.loads((ROOT / "extension" / "manifest.json").read_text())["version"]
    assert download["Content-Disposition"] == f'attachment; filename="trailmark-extension-{version}.zip"'
    with zipfile.ZipFile(io.BytesIO(download.content)) as archive:
        assert json.loads(archive.read("manifest.json"))["version"] == version
        assert "background.js" in archive.namelist()
