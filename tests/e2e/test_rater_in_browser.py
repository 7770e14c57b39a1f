"""A rater's day in a real browser against a live server."""

import re

import pytest
from playwright.sync_api import expect

from hits.models import Assignment
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD, open_batch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_rater_finds_work_fixes_an_error_submits_and_sees_history(page, live_server, rater):
    open_batch(tasks=2, name="Passages for the browser", reward="0.25")
    open_batch(tasks=2, name="Spanish speakers", allowed_locales=["es-ES"])
    log_in(page, live_server.url, rater.username, PASSWORD)

    work = page.get_by_test_id("available-work")
    expect(work).to_contain_text("Passages for the browser")
    expect(page.get_by_test_id("ineligible-reason")).to_have_text(re.compile("es-ES"))

    work.get_by_role("button", name="Start").click()
    expect(page.get_by_test_id("passage")).to_contain_text("Passage number")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.locator(".field-error").first).to_contain_text("Write your answer.")

    page.get_by_label("Your answer").fill("seven")
    page.get_by_label("Certain").check()
    page.get_by_role("button", name="Submit and take the next task").click()
    expect(page.get_by_test_id("passage")).to_be_visible()
    page.get_by_role("button", name="Return and stop").click()

    expect(page.get_by_role("status").first).to_contain_text("returned")
    history = page.get_by_test_id("history")
    expect(history).to_contain_text("Submitted")
    expect(history).to_contain_text("Returned")
    submitted = Assignment.objects.get(worker=rater, state="submitted")
    assert submitted.answer == {"answer": "seven", "confidence": "high"}
    assert submitted.active_seconds is not None


def test_rater_creates_and_revokes_an_api_token(page, live_server, rater):
    log_in(page, live_server.url, rater.username, PASSWORD)
    page.get_by_role("link", name="Profile & API tokens").click()
    page.get_by_label("Name").fill("Chrome extension")
    page.get_by_role("button", name="Create token").click()
    key = page.get_by_test_id("new-token-key").inner_text().strip()
    assert len(key) > 30
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.get_by_test_id("copy-token").click()
    expect(page.get_by_test_id("copy-token")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == key

    me = page.request.get(f"{live_server.url}/api/v1/me/", headers={"Authorization": f"Token {key}"})
    assert me.ok and me.json()["username"] == rater.username

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Revoke").click()
    expect(page.get_by_test_id("token-table")).to_contain_text("revoked")
    again = page.request.get(f"{live_server.url}/api/v1/me/", headers={"Authorization": f"Token {key}"})
    assert again.status == 401
