"""Pre-screens that never ran are queued again, for a day; then reviewers take over."""

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from assets.services import store_image
from assets.tests.samples import png_bytes
from moderation.models import ReviewItem
from moderation.sweeps import sweep_unscreened
from outbox.models import Job

pytestmark = pytest.mark.django_db


def _item(rater, seed, *, minutes_ago, **fields):
    asset, _ = store_image(file=SimpleUploadedFile("s.png", png_bytes(seed=seed), "image/png"), uploaded_by=rater)
    ReviewItem.objects.filter(asset=asset).update(created_at=timezone.now() - timedelta(minutes=minutes_ago), **fields)
    return asset


def test_the_sweeper_queues_lost_prescreens_again_for_a_day(rater):
    lost = _item(rater, 1, minutes_ago=10)
    _item(rater, 2, minutes_ago=1)  # its own job may still be on its way
    _item(rater, 3, minutes_ago=10, prescreened_at=timezone.now())
    _item(rater, 4, minutes_ago=10, decided_at=timezone.now())
    _item(rater, 5, minutes_ago=25 * 60)  # a day of failures: left to the reviewers
    Job.objects.all().delete()  # the jobs the uploads themselves queued
    assert sweep_unscreened() == 1
    assert list(Job.objects.values_list("task", "args")) == [("moderation.tasks.prescreen_asset", [lost.pk, ""])]
