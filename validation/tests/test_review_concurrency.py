"""Reviewers working one queue at the same time never get the same item."""

import threading

import pytest
from assets.tests.samples import png_bytes
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, connections

from collection.screens import capture_screen
from tests.factories import UserFactory
from validation import review

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks (FOR UPDATE SKIP LOCKED) need PostgreSQL"),
]


def test_concurrent_reviewers_each_hold_a_different_item(rater):
    for seed in range(12):
        screen = capture_screen(
            file=SimpleUploadedFile("s.png", png_bytes(size=(200, 120), seed=seed), content_type="image/png"),
            author=rater,
        )
        review.record_prescreen(
            asset_id=screen.asset_id, result={"findings": [], "pii_risk": seed / 20, "safety_risk": 0}
        )
    reviewers = [UserFactory(role="reviewer") for _ in range(8)]
    start = threading.Barrier(len(reviewers))
    held, errors = {}, []

    def work(reviewer):
        try:
            start.wait()
            item = review.claim_next(reviewer=reviewer, queue="pii")
            held[reviewer.pk] = item.pk
        except Exception as error:  # reported below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(reviewer,)) for reviewer in reviewers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(held) == 8 and len(set(held.values())) == 8
