"""The README's run command on a fresh copy of the project, then a browser signs in, takes
a task and submits it."""

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import log_in

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.browser


def _run_command():
    """The command in the README's Quick start that runs the platform."""
    readme = (ROOT / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = [block.split("\n", 1)[1].strip() for block in quick_start.split("```")[1::2]]
    assert len(blocks) == 2, "the Quick start holds exactly two commands"
    return blocks[0]


def _fresh_copy(target):
    """What a fresh clone holds: tracked files plus new files not ignored by git."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_up(url, process, log, seconds=300):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail("The run command stopped:\n" + log.read_text()[-4000:])
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail("The platform did not come up:\n" + log.read_text()[-4000:])


def test_fresh_copy_runs_on_the_embedded_default_and_the_demo_rater_signs_in(page, tmp_path):
    project = tmp_path / "trailmark"
    _fresh_copy(project)
    port = _free_port()
    keep = (
        "PATH",
        "HOME",
        "LANG",
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "PIP_CONFIG_FILE",
        "PYENV_ROOT",
        "PYENV_VERSION",
    )
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env["PORT"] = str(port)
    log = tmp_path / "run.log"
    with open(log, "w") as output:
        process = subprocess.Popen(
            ["bash", "-c", _run_command()],
            cwd=project,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(f"{base}/accounts/login/", process, log)
        assert "rater" in log.read_text() and "trailmark-demo" in log.read_text()
        log_in(page, base, "rater", "trailmark-demo")
        expect(page.get_by_test_id("signed-in-as")).to_contain_text("rater")
        expect(page.get_by_test_id("available-work")).to_contain_text("Demo: questions about short passages")
        assert (project / "var" / "trailmark.sqlite3").exists()
        # The work engine's SQLite path: take a task, submit it, get the next one.
        row = page.get_by_test_id("available-work").locator("tr", has_text="Demo: questions about short passages")
        row.get_by_role("button", name="Start").click()
        page.get_by_label("Your answer").fill("seven")
        page.get_by_label("Certain").check()
        page.get_by_role("button", name="Submit and take the next task").click()
        expect(page.get_by_role("status").first).to_contain_text("Submitted")
        expect(page.get_by_label("Your answer")).to_have_value("")
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
