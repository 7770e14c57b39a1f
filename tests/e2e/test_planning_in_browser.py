"""A worker plans their time: the deadline counts down in their own clock, and each
batch says how long its tasks take."""

import re
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from hits import services
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD, open_batch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_deadline_counts_down_in_the_workers_own_time(browser, live_server, rater):
    batch = open_batch(tasks=2, name="Passages to plan", assignment_minutes=45)
    assignment, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    context = browser.new_context(timezone_id="Asia/Tokyo", locale="en-GB")
    page = context.new_page()
    try:
        log_in(page, live_server.url, rater.username, PASSWORD)
        tokyo = assignment.expires_at.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%H:%M")
        due = page.get_by_test_id("current-assignments").get_by_test_id("due")
        expect(due).to_have_text(re.compile(rf"^(44|45) min left · due at {tokyo}$"))
        expect(page.get_by_test_id("current-assignments")).to_contain_text("Passages to plan — task 1")
        expect(page.get_by_test_id("estimate")).to_have_text("no estimate yet")

        page.get_by_test_id("current-assignments").get_by_role("link").click()
        expect(page.get_by_test_id("due")).to_have_text(re.compile(rf"min left · due at {tokyo}$"))
        expect(page.locator(".task-head")).to_contain_text("task 1 ·")
    finally:
        context.close()
