"""Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright."""

import os

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def playwright():
    """One Playwright for the whole run: its sync API allows one at a time."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/services installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="session")
def browser(playwright):
    # launch() gives Chromium a fresh, throw-away profile of its own.
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def page(browser):
    """A page in a fresh context. Any Content-Security-Policy violation the platform's
    pages cause (a blocked script, style or image) fails the test that saw it."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15000)
    violations = []
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None,
    )
    yield page
    context.close()
    assert violations == [], violations


def log_in(page, base_url, username, password):
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base_url}/")
