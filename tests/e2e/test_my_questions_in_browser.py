"""An author learns in the browser that a question was rejected, and why."""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import log_in
from tests.factories import PASSWORD
from validation.tests.factories import written_pair
from validation.tests.test_my_questions import _reject

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_author_sees_a_validators_rejection_reason_on_their_page(page, live_server, rater):
    pair = written_pair(author=rater)
    _reject(pair)
    log_in(page, live_server.url, rater.username, PASSWORD)
    expect(page.get_by_test_id("decisions-to-read")).to_have_text("1")
    page.get_by_test_id("my-questions-link").click()
    row = page.get_by_test_id("my-question").first
    expect(row).to_contain_text("Rejected")
    expect(row.get_by_test_id("reason")).to_contain_text("not $34.50")
    expect(page.get_by_test_id("decisions-to-read")).to_have_count(0)
