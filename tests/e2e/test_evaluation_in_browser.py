"""A researcher scores a model on a release's private test split from its evaluation page,
in a real browser: a bad file is refused with the problem named, a good one is scored by
the job and lands on the leaderboard."""

import json

import pytest
from playwright.sync_api import expect

from releases import evaluation, services, tasks
from releases.tests import data
from releases.tests.helpers import build_now, release
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def scoring_jobs(monkeypatch):
    """The jobs the page queues, recorded instead of sent to a worker: the test runs them."""
    sent = []
    monkeypatch.setattr(tasks.run_evaluation, "apply_async", lambda args, **options: sent.append(args[0]))
    return sent


@pytest.fixture
def published(admin_user, rater, monkeypatch):
    monkeypatch.setattr(tasks.build_release, "apply_async", lambda args, **options: None)
    for n in range(4):
        data.screen_pair(rater, answer=f"{n + 2} shops")
    built = build_now(release(admin_user, name="shops", families=["webquest"], split_strategy="random",
                              train_percent=1, val_percent=0))  # fmt: skip
    assert built.state == "published", built.message
    return built


def _upload(page, payload):
    page.locator("input[name=predictions]").set_input_files(
        files=[{"name": "predictions.json", "mimeType": "application/json", "buffer": json.dumps(payload).encode()}]
    )


def test_a_researcher_scores_a_model_and_publishes_the_result(page, live_server, rater, published, scoring_jobs):
    gold = evaluation.load_gold(release=published, family="webquest", split="test")
    log_in(page, live_server.url, rater.username, PASSWORD)
    page.goto(f"{live_server.url}/releases/{published.pk}/")
    # The test answers are not offered for download, nor served when asked for by address.
    private = list(published.files.filter(private=True).values_list("path", flat=True))
    assert "evaluation/records/webquest/test.jsonl" in private
    expect(page.get_by_test_id("release-files")).not_to_contain_text("evaluation/")
    for path in private:
        assert page.request.get(f"{live_server.url}/releases/{published.pk}/files/{path}").status == 404
    page.get_by_test_id("evaluation-link").click()
    expect(page.get_by_role("heading", name="Evaluate on shops 1.0.0")).to_be_visible()

    page.get_by_label("Model or run name").fill("counting model")
    _upload(page, {"not-a-record": "3"})
    page.get_by_test_id("evaluate").click()
    errors = page.get_by_test_id("evaluation-errors")
    expect(errors).to_contain_text("not-a-record")
    expect(errors).to_contain_text("There is no item 'not-a-record' in this split.")
    expect(page.get_by_label("Model or run name")).to_have_value("counting model")  # kept for the next try
    assert scoring_jobs == []

    _upload(page, {item_id: item["answers"][0] for item_id, item in gold.items()})
    page.get_by_label("Show the result on the public leaderboard").check()
    page.get_by_test_id("evaluate").click()
    expect(page.get_by_text("“counting model” is being scored")).to_be_visible()
    run = page.get_by_test_id("evaluation-run")
    expect(run).to_contain_text("Queued")
    assert len(scoring_jobs) == 1
    services.run_evaluation(evaluation_id=scoring_jobs[0])
    expect(run).to_contain_text("Done", timeout=10000)  # the page polls while a run is waiting
    expect(run).to_contain_text("relaxed_accuracy 100%")
    page.reload()
    board = page.get_by_test_id("leaderboard")
    expect(board).to_contain_text("counting model")
    expect(board).to_contain_text(rater.username)
