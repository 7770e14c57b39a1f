"""An admin reads every dashboard in a real browser; a rater is turned away."""

import pytest
from playwright.sync_api import expect

from hits import services
from tests.e2e.conftest import log_in
from tests.factories import GOOD_ANSWER, PASSWORD, UserFactory, open_batch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_admin_sees_the_numbers_and_a_rater_gets_403(page, live_server, admin_user, rater):
    batch = open_batch(tasks=4, wanted=1, name="Dashboard batch")
    workers = UserFactory.create_batch(3)
    for worker in workers:
        assignment, _ = services.request_next_task(worker=worker, batch_id=batch.pk)
        services.submit_assignment(assignment_id=assignment.pk, worker=worker, data=GOOD_ANSWER, active_seconds=42)
    batch.assignments.update(active_seconds=42)  # as the task page would have counted
    first = workers[0].assignments.get()
    services.approve_assignment(assignment_id=first.pk, actor=admin_user)

    log_in(page, live_server.url, admin_user.username, PASSWORD)
    page.get_by_role("link", name="Dashboards").click()
    tabs = page.get_by_test_id("dashboard-tabs")
    tabs.get_by_role("link", name="Batches").click()
    row = page.get_by_test_id("batch-row").filter(has_text="Dashboard batch")
    # 4 tasks wanted once; 2 submitted, 1 approved: 75% done; 3 submissions in the last day,
    # so the 1 slot left takes 24 / 3 = 8 hours at that pace
    expect(row.locator("td")).to_have_text(
        ["Dashboard batch", "demo_question", "open", "4", "4", "0", "2", "1", "0", "0", "0", "75%", "3", "8.0"]
    )
    assert page.evaluate("() => typeof Chart") == "function"
    assert page.locator("canvas").first.evaluate("c => c.width") > 0

    tabs.get_by_role("link", name="Queues").click()
    expect(page.get_by_test_id("queue-row").filter(has_text="Submissions waiting")).to_contain_text("2")
    tabs.get_by_role("link", name="Workers").click()
    expect(page.get_by_test_id("worker-row")).to_have_count(3)
    expect(page.get_by_test_id("worker-row").filter(has_text=workers[0].username)).to_contain_text("42 s")
    expect(page.get_by_test_id("worker-row").filter(has_text=workers[0].username)).to_contain_text(
        "$17.14"
    )  # $0.20 for 42 s
    page.get_by_role("link", name=workers[0].username).click()
    expect(page.get_by_test_id("submission-table")).to_contain_text("Approved")
    tabs.get_by_role("link", name="Throughput").click()
    expect(page.locator("canvas")).to_have_count(2)
    tabs.get_by_role("link", name="Dataset").click()
    expect(page.get_by_test_id("screens-per-trace")).to_be_visible()

    # A batch's name leads to its spot check.
    tabs.get_by_role("link", name="Batches").click()
    page.get_by_role("link", name="Dashboard batch").click()
    expect(page.get_by_role("heading", name="Spot check: Dashboard batch")).to_be_visible()

    page.get_by_role("button", name="Log out").click()
    log_in(page, live_server.url, rater.username, PASSWORD)
    response = page.goto(f"{live_server.url}/dashboards/workers/")
    assert response.status == 403
