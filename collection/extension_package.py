"""The Chrome extension's zip, for raters: built from ``extension/`` with the version in
its manifest. Used by ``scripts/build-extension`` and by the download page; plain
Python, no Django, so the script runs anywhere."""

import json
import zipfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "extension"
EXCLUDED_DIRS = {"tests", "node_modules", "__pycache__"}
EXCLUDED_FILES = {"package.json", "package-lock.json", "README.md"}
FIXED_DATE = (2020, 1, 1, 0, 0, 0)  # the same sources always give the same zip


def manifest():
    return json.loads((SOURCE / "manifest.json").read_text(encoding="utf-8"))


def named_files(spec):
    """The files manifest.json refers to: they must be in the zip."""
    named = [spec["background"]["service_worker"], spec["action"]["default_popup"], spec["options_ui"]["page"]]
    for script in spec.get("content_scripts", []):
        named += script.get("js", []) + script.get("css", [])
    named += spec.get("icons", {}).values()
    named += spec["action"].get("default_icon", {}).values()
    return named


def _packaged(path):
    relative = path.relative_to(SOURCE)
    if any(part in EXCLUDED_DIRS or part.startswith(".") for part in relative.parts):
        return False
    return path.is_file() and path.name not in EXCLUDED_FILES


def write_zip(target):
    """Writes the zip to ``target`` (a path or a binary file object); returns
    ``(version, number of files)``. Raises ``FileNotFoundError`` if the manifest names
    a file that is not there."""
    spec = manifest()
    missing = [name for name in named_files(spec) if not (SOURCE / name).is_file()]
    if missing:
        raise FileNotFoundError(f"manifest.json names missing files: {', '.join(missing)}")
    files = sorted(path for path in SOURCE.rglob("*") if _packaged(path))
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            info = zipfile.ZipInfo(path.relative_to(SOURCE).as_posix(), date_time=FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return spec["version"], len(files)
