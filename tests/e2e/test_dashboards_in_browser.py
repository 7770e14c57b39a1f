"""An admin reads every dashboard in a real browser; a rater is turned away. Charts of
sparse work show their bars, and the figures lead to the lists behind them."""

import pytest
from playwright.sync_api import expect

from corpus.models import QAPair
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
        [
            "Dashboard batch",
            "Answer a question about a passage",
            "Open",
            "4",
            "4",
            "0",
            "2",
            "1",
            "0",
            "0",
            "0",
            "75%",
            "3",
            "8.0",
        ]
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


# The centre of the chart's tallest bar, in canvas pixels, and the colour painted there.
TALLEST_BAR = """canvas => {
    const chart = Chart.getChart(canvas);
    const values = chart.data.datasets[0].data;
    const index = values.indexOf(Math.max(...values));
    const bar = chart.getDatasetMeta(0).data[index];
    const scale = canvas.width / canvas.getBoundingClientRect().width;
    const [r, g, b, a] = canvas.getContext("2d")
        .getImageData(Math.round(bar.x * scale), Math.round((bar.y + bar.base) / 2 * scale), 1, 1).data;
    return {bars: values.length, value: values[index], height: bar.base - bar.y, colour: [r, g, b, a]};
}"""


def test_sparse_work_is_charted_by_the_hour_and_figures_open_their_lists(page, live_server, admin_user):
    batch = open_batch(tasks=3, wanted=1, name="Sparse batch")
    workers = UserFactory.create_batch(2)
    for worker in workers:  # both within the same hour: a daily line would be one point, or nothing
        assignment, _ = services.request_next_task(worker=worker, batch_id=batch.pk)
        services.submit_assignment(assignment_id=assignment.pk, worker=worker, data=GOOD_ANSWER, active_seconds=20)
    QAPair.objects.bulk_create(
        QAPair(family="webqa", split_kind="single_screen", question=f"Which one {i}?", answer="This one",
               author=workers[0], state="pending_validation" if i else "accepted")
        for i in range(3)
    )  # fmt: skip

    log_in(page, live_server.url, admin_user.username, PASSWORD)
    page.goto(f"{live_server.url}/dashboards/throughput/")
    expect(page.get_by_test_id("recent-chart").get_by_role("heading")).to_have_text(
        "Submissions per hour, last 48 hours"
    )
    for chart in ("recent-chart", "month-chart"):
        drawn = page.get_by_test_id(chart).locator("canvas").evaluate(TALLEST_BAR)
        # One hour's bar between two empty hours, tall and painted in the first colour (#1a5fd0).
        assert drawn["bars"] == 3 and drawn["value"] == 2 and drawn["height"] > 20, drawn
        assert drawn["colour"] == [0x1A, 0x5F, 0xD0, 255], drawn

    page.goto(f"{live_server.url}/dashboards/batches/")
    drawn = page.get_by_test_id("completion-chart").locator("canvas").evaluate(TALLEST_BAR)
    assert drawn["value"] == 2 and drawn["height"] > 20, drawn
    row = page.get_by_test_id("batch-row").filter(has_text="Sparse batch")
    # Submitted: the batch's two submissions, in the admin's list of assignments.
    row.locator("td").nth(6).get_by_role("link", name="2").click()
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    assert f"batch__id__exact={batch.pk}&state__exact=submitted" in page.url
    page.go_back()
    row.locator("td").nth(3).get_by_role("link", name="3").click()  # the tasks
    expect(page.locator("#result_list tbody tr")).to_have_count(3)
    page.go_back()
    row.get_by_role("link", name="67%").click()  # done (2 of 3): the batch in the console
    expect(page.get_by_role("heading", name="Sparse batch")).to_be_visible()

    page.goto(f"{live_server.url}/dashboards/queues/")
    waiting = page.get_by_test_id("queue-row").filter(has_text="Validation (QA pairs waiting)")
    waiting.get_by_role("link", name="2").click()
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    expect(page.locator("#result_list")).to_contain_text("Which one 1?")

    page.goto(f"{live_server.url}/dashboards/dataset/")
    page.get_by_test_id("by-family").get_by_role("row", name="WebQA").get_by_role("link", name="3").click()
    expect(page.locator("#result_list tbody tr")).to_have_count(3)
