"""What a worker sees to plan their time: typical minutes and hourly pay per batch, task
numbers within a batch, and the deadline as a countdown."""

from decimal import Decimal

import pytest
from django.urls import reverse

from hits import planning, services
from hits.models import Assignment, Task
from tests.factories import GOOD_ANSWER, UserFactory, open_batch

pytestmark = pytest.mark.django_db


def _submitted(batch, seconds):
    """One submission per entry of ``seconds``, each by a new worker, with that active time."""
    for value in seconds:
        worker = UserFactory()
        assignment, _ = services.request_next_task(worker=worker, batch_id=batch.pk)
        services.submit_assignment(assignment_id=assignment.pk, worker=worker, data=GOOD_ANSWER, active_seconds=0)
        Assignment.objects.filter(pk=assignment.pk).update(active_seconds=value)


def test_estimate_is_the_median_active_time_and_the_hourly_rate_it_gives():
    batch = open_batch(tasks=5, reward="0.50")
    _submitted(batch, [120, 180, 3600])  # one tab left open all hour does not move the median
    estimate = planning.estimates_for([batch])[batch.pk]
    assert estimate.known and estimate.minutes == 3 and estimate.submissions == 3
    assert estimate.hourly == Decimal("10.00")  # $0.50 per 3 minutes


def test_too_few_submissions_give_no_estimate():
    batch = open_batch(tasks=5)
    _submitted(batch, [60, 90])
    estimate = planning.estimates_for([batch])[batch.pk]
    assert not estimate.known and estimate.minutes is None and estimate.hourly is None


def test_estimates_for_many_batches_take_one_query(django_assert_num_queries):
    batches = [open_batch(tasks=4) for _ in range(4)]
    _submitted(batches[0], [60, 60, 60])
    with django_assert_num_queries(1):
        found = planning.estimates_for(batches)
    assert found[batches[0].pk].minutes == 1 and not found[batches[1].pk].known


def test_task_numbers_count_within_each_batch():
    first, second = open_batch(tasks=3), open_batch(tasks=2)
    tasks = list(Task.objects.filter(batch__in=[first, second]).order_by("batch_id", "id"))
    numbers = planning.task_numbers([tasks[2].pk, tasks[4].pk])
    assert numbers == {tasks[2].pk: 3, tasks[4].pk: 2}
    assert planning.task_numbers([]) == {}


def test_home_page_shows_estimates_task_numbers_and_a_countdown(client, rater):
    timed = open_batch(tasks=6, name="Timed passages", reward="0.25")
    open_batch(tasks=2, name="New passages")
    _submitted(timed, [300, 300, 360])
    assignment, _ = services.request_next_task(worker=rater, batch_id=timed.pk)
    client.force_login(rater)
    page = client.get(reverse("hits:home")).content.decode()
    assert "about 5 min" in page and "$3.00 an hour" in page
    assert "no estimate yet" in page
    assert "Timed passages — task 4<" in page  # the fourth task of its batch, not its global id
    assert f'datetime="{assignment.expires_at.isoformat()}"' in page and "data-countdown" in page

    task_page = client.get(reverse("hits:task", args=[assignment.pk])).content.decode()
    assert "Timed passages · task 4 ·" in task_page and "data-countdown" in task_page


def test_spot_checks_name_work_by_its_task_number_in_the_batch(client, rater, reviewer):
    open_batch(tasks=3)  # an earlier batch: global ids run ahead of the numbers in a batch
    batch = open_batch(tasks=2, name="Sampled passages", spot_check_percent=100)
    assignment, _ = services.request_next_task(worker=rater, batch_id=batch.pk)
    services.submit_assignment(assignment_id=assignment.pk, worker=rater, data=GOOD_ANSWER, active_seconds=30)
    client.force_login(reviewer)
    page = client.get(reverse("hits:spot_check", args=[batch.pk])).content.decode()
    assert f"<strong>Task 1</strong> by {rater.username}" in page
    done = client.post(reverse("hits:decide", args=[assignment.pk]), {"action": "approve"}, follow=True)
    assert f"Approved task 1 by {rater.username}." in done.content.decode()
