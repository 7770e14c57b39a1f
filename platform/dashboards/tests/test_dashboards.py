"""Dashboards: right numbers, staff only, CSV for every table, and a number of queries
that does not grow with the data."""

import csv
import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from corpus.models import Category, QAPair
from dashboards import services
from hits.models import Assignment, Task
from tests.factories import UserFactory, open_batch

pytestmark = pytest.mark.django_db

PAGES = ["/dashboards/", "/dashboards/batches/", "/dashboards/queues/", "/dashboards/throughput/",
         "/dashboards/workers/", "/dashboards/dataset/"]  # fmt: skip
STATES = ["submitted", "approved", "rejected", "returned", "expired"]


def _populate(n, workers):
    """``n`` assignments over ``workers`` workers and a batch of n/workers+1 tasks, n QA pairs."""
    batch = open_batch(tasks=n // workers + 1, wanted=workers)
    tasks = list(Task.objects.filter(batch=batch))
    people = UserFactory.create_batch(workers)
    now = timezone.now()
    rows = []
    for i in range(n):
        state = STATES[(i // workers) % len(STATES)]
        submitted = now - timedelta(hours=i % 40) if state in ("submitted", "approved", "rejected") else None
        rows.append(
            Assignment(
                task=tasks[i // workers], batch=batch, worker=people[i % workers], state=state, expires_at=now,
                submitted_at=submitted, active_seconds=30 + i % 60, pay=Decimal("0.20") if state == "approved" else 0,
                feedback="no" if state == "rejected" else "",
            )
        )  # fmt: skip
    Assignment.objects.bulk_create(rows)
    shopping = Category.objects.get_or_create(slug="shopping", defaults={"name": "Shopping"})[0]
    QAPair.objects.bulk_create(
        QAPair(family="webquest", split_kind="single_screen", question=f"q{i}", answer="1", author=people[0],
               reasoning_types=["arithmetic"] if i % 2 else ["counting", "comparison"], category=shopping)
        for i in range(n)
    )  # fmt: skip
    return batch, people


def _queries(client, path):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return len(queries)


@pytest.mark.parametrize("folded", [False, True], ids=["changes-not-folded-in", "folded-in"])
def test_query_count_does_not_grow_with_the_data(client, admin_user, folded):
    client.force_login(admin_user)
    _populate(10, workers=5)
    if folded:
        services.fold_changes()
    small = {page: _queries(client, page) for page in [*PAGES, "/dashboards/workers/?sort=median"]}
    _populate(1000, workers=20)
    if folded:
        services.fold_changes()
    large = {page: _queries(client, page) for page in [*PAGES, "/dashboards/workers/?sort=median"]}
    assert small == large


def test_batch_and_worker_numbers_are_right(client, admin_user):
    batch, people = _populate(100, workers=10)
    client.force_login(admin_user)
    rows = list(csv.DictReader(io.StringIO(client.get("/dashboards/batches/?format=csv").content.decode())))
    (row,) = [r for r in rows if r["id"] == str(batch.pk)]
    assert (row["submitted"], row["approved"], row["rejected"], row["returned"], row["expired"]) == ("20",) * 5
    assert row["tasks"] == "11" and row["wanted"] == "110"
    workers = list(csv.DictReader(io.StringIO(client.get("/dashboards/workers/?format=csv").content.decode())))
    assert len(workers) == 10 and {w["done"] for w in workers} == {"6"}  # 10 each, 6 of them done
    page = client.get(f"/dashboards/workers/{people[0].pk}/").content.decode()
    assert people[0].username in page


def test_queues_dataset_and_throughput(client, admin_user, reviewer):
    _populate(50, workers=5)
    client.force_login(admin_user)
    queues = list(csv.DictReader(io.StringIO(client.get("/dashboards/queues/?format=csv").content.decode())))
    assert {q["queue"]: q["depth"] for q in queues}["Validation (QA pairs waiting)"] == "50"
    reasoning = client.get("/dashboards/dataset/?format=csv&table=reasoning_type").content.decode()
    assert "arithmetic,25" in reasoning and "counting,25" in reasoning and "filtering,0" in reasoning
    throughput = client.get("/dashboards/throughput/?format=csv").content.decode().splitlines()
    assert throughput[0] == "granularity,period,kind,submitted"
    assert sum(int(line.rsplit(",", 1)[1]) for line in throughput[1:] if line.startswith("day")) == 30


def test_raters_get_403_and_reviewers_see_only_the_queues(client, rater, reviewer):
    client.force_login(rater)
    assert {client.get(page).status_code for page in PAGES} == {403}
    client.force_login(reviewer)
    assert client.get("/dashboards/queues/").status_code == 200
    assert client.get("/dashboards/workers/").status_code == 403


def test_workers_are_sorted_and_filtered(client, admin_user):
    _batch, people = _populate(40, workers=4)
    client.force_login(admin_user)
    filtered = client.get(f"/dashboards/workers/?q={people[1].username}&format=csv").content.decode()
    assert people[1].username in filtered and people[2].username not in filtered
    by_name = list(
        csv.DictReader(io.StringIO(client.get("/dashboards/workers/?sort=username&format=csv").content.decode()))
    )
    assert [w["username"] for w in by_name] == sorted(w["username"] for w in by_name)
