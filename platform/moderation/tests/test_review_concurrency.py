"""Reviewers working one queue at the same time never get the same item."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from assets.tests.samples import png_bytes
from collection.services import capture_screen
from moderation import services as review
from tests.concurrency import at_once
from tests.factories import UserFactory

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
    held, errors = at_once(lambda reviewer: review.claim_next(reviewer=reviewer, queue="pii").pk, reviewers)
    assert errors == []
    assert len(held) == 8 and len(set(held)) == 8
