"""Charts that read well with little data: buckets from the data's span, no gaps, labels
for people, kinds by their names, and every figure a link to the list behind it."""

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from dashboards import charts
from hits import services as hits
from tests.factories import GOOD_ANSWER, UserFactory, open_batch

AT = datetime(2026, 11, 30, 14, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def utc(settings):
    settings.TIME_ZONE = "UTC"
    timezone.activate(UTC)
    yield
    timezone.deactivate()


def test_data_within_one_hour_is_one_bar_between_two_empty_ones():
    chart = charts.time_series({(AT, None): 5}, empty="Submissions")
    assert chart["bucket"] == "hour"
    assert chart["labels"] == ["Mon 30 Nov, 13:00", "Mon 30 Nov, 14:00", "Mon 30 Nov, 15:00"]
    assert chart["datasets"] == [{"label": "Submissions", "data": [0, 5, 0]}]


@pytest.mark.parametrize(
    ("span", "bucket", "buckets"),
    [(timedelta(hours=47), "hour", 48), (timedelta(days=20), "day", 21), (timedelta(days=200), "week", 30)],
)
def test_the_bucket_follows_the_span_and_every_bucket_between_is_there(span, bucket, buckets):
    chart = charts.time_series({(AT - span, "a"): 1, (AT, "a"): 2, (AT, "b"): 3}, names={"a": "Alpha", "b": "Beta"})
    assert chart["bucket"] == bucket
    assert len(chart["labels"]) == buckets
    assert [d["label"] for d in chart["datasets"]] == ["Alpha", "Beta"]
    assert [sum(d["data"]) for d in chart["datasets"]] == [3, 3]
    assert (
        chart["labels"][-1] == {"hour": "Mon 30 Nov, 14:00", "day": "Mon 30 Nov", "week": "Week of 30 Nov 2026"}[bucket]
    )


def test_no_data_is_an_empty_chart():
    assert charts.time_series({}) == {"bucket": "hour", "labels": [], "datasets": []}


@pytest.mark.django_db
def test_pages_chart_sparse_work_by_the_hour_with_names_and_link_their_figures(client, admin_user):
    batch = open_batch(tasks=2, wanted=1, name="Sparse batch")
    worker = UserFactory()
    assignment, _ = hits.request_next_task(worker=worker, batch_id=batch.pk)
    hits.submit_assignment(assignment_id=assignment.pk, worker=worker, data=GOOD_ANSWER, active_seconds=30)
    client.force_login(admin_user)

    page = client.get("/dashboards/throughput/").content.decode()
    recent = json.loads(re.search(r'<script type="application/json" id="recent">(.*?)</script>', page).group(1))
    assert recent["bucket"] == "hour" and len(recent["labels"]) == 3
    assert recent["datasets"] == [
        {"label": "Answer a question about a passage", "data": [0, 1, 0]}
    ]  # the kind's title, not its code
    assert "Submissions per hour" in page

    page = client.get("/dashboards/batches/").content.decode()
    assert "Submissions per hour" in page
    assert f"/admin/hits/task/?batch__id__exact={batch.pk}" in page
    assert f"/admin/hits/assignment/?batch__id__exact={batch.pk}&amp;state__exact=submitted" in page
    assert f"/console/batches/{batch.pk}/" in page
    assert "demo_question" not in page.split('id="completion"')[0]  # the kind by its name

    page = client.get("/dashboards/queues/").content.decode()
    assert "/admin/hits/assignment/?state__exact=submitted" in page and "/review/" in page
    assert "/admin/corpus/qapair/?state__exact=pending_validation" in page
    assert "/console/references/" in page


@pytest.mark.django_db
def test_reviewers_get_links_only_to_the_review_queues(client, reviewer):
    client.force_login(reviewer)
    page = client.get("/dashboards/queues/").content.decode()
    assert 'href="/review/"' in page
    assert "/admin/" not in page and "/console/" not in page
