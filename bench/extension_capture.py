"""Extension capture overhead: how long the extension takes per step, in headless Chromium.

    .venv/bin/python bench/extension_capture.py [--pages 12]

Starts the platform (gunicorn + PostgreSQL, as bench/upload.py does) and a local demo
shop, loads the extension, signs in, starts recording, then follows links page by page.
Prints: the raw cost of one ``captureVisibleTab`` call, and per step the time from the
page's load event to the step being stored by the extension (that includes the
extension's deliberate wait for the page to settle, ~0.45 s, and the pacing that keeps
captures 0.55 s apart).
"""

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import upload as upload_bench  # noqa: E402  (sets the environment before Django loads)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
EXTENSION = ROOT / "extension"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=12)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from tests.e2e.servers import DemoSite

    (key,) = upload_bench.prepare(1)
    port = upload_bench.free_port()
    server = upload_bench.start_gunicorn(port, 2, 4)
    shop = DemoSite()
    try:
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path="/usr/bin/chromium", headless=True, viewport={"width": 1280, "height": 800},
                args=[*CHROMIUM_ARGS, f"--disable-extensions-except={EXTENSION}", f"--load-extension={EXTENSION}"],
            )  # fmt: skip
            worker = context.service_workers[0] if context.service_workers else context.wait_for_event("serviceworker")
            page = context.pages[0] if context.pages else context.new_page()
            page.goto(shop.url + "/")
            raw = []
            for _ in range(8):
                raw.append(
                    worker.evaluate(
                        "async () => { const t = performance.now(); await chrome.tabs.captureVisibleTab(null, {format: 'png'});"
                        " return performance.now() - t; }"
                    )
                )
                time.sleep(0.6)
            answer = worker.evaluate(
                "([url, token]) => trailmark.send({type: 'sign-in', platformUrl: url, token})",
                [f"http://127.0.0.1:{port}", key],
            )
            assert answer["ok"], answer
            answer = worker.evaluate("trailmark.send({type: 'start', category: 'shopping', batch: null})")
            assert answer["ok"], answer
            worker.evaluate("trailmark.send({type: 'flush'})")
            latencies = []
            for n in range(args.pages):
                before = worker.evaluate("trailmark.send({type: 'get-state'})")["recording"]["stepCount"]
                with page.expect_navigation(wait_until="load"):
                    page.get_by_role("link", name="Next kettle" if n else "Steel kettle", exact=True).click()
                loaded = time.perf_counter()
                while worker.evaluate("trailmark.send({type: 'get-state'})")["recording"]["stepCount"] == before:
                    time.sleep(0.01)
                latencies.append(time.perf_counter() - loaded)
                worker.evaluate("trailmark.send({type: 'flush'})")
            context.close()
    finally:
        shop.close()
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    latencies.sort()
    print(f"captureVisibleTab (1280×800 PNG): median {statistics.median(raw):.0f} ms, max {max(raw):.0f} ms")
    print(
        f"load event → step stored, {len(latencies)} steps: median {statistics.median(latencies) * 1000:.0f} ms, "
        f"p95 {latencies[int(len(latencies) * 0.95) - 1] * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
