"""Mining runs through the real machinery: the Redis broker, a Celery worker in its own
process and PostgreSQL."""

import pytest
from django.db import transaction

from corpus.models import QAPair
from mining import services
from mining.models import Distractor, MiningChunk, MiningRun
from tests.concurrency import wait_for

from . import factories as make

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _finished(run):
    return lambda: MiningRun.objects.get(pk=run.pk).state in (MiningRun.State.DONE, MiningRun.State.FAILED)


@pytest.fixture
def pool_and_pairs():
    for number in range(12):
        make.snippet(f"Lighthouse {number}", f"The lighthouse number {number} stands on a rocky coast.")
        make.image(f"Lighthouse {number}", f"A lighthouse on the coast, view {number}.")
    trap = make.snippet("Lighthouse keeper", "The lighthouse keeper was Grace Darling.")
    pairs = [
        make.qa_pair(
            f"Who kept lighthouse {n} on the rocky coast?",
            "Grace Darling kept it.",
            keyword_answer="Grace Darling",
            split_kind="image",
            evidence=[make.image(f"Longstone lighthouse {n}", "The Longstone lighthouse.")],
        )  # fmt: skip
        for n in range(5)
    ]
    return pairs, trap


def test_a_run_on_the_worker_mines_every_chunk_and_a_second_run_changes_nothing(celery_worker, pool_and_pairs):
    pairs, trap = pool_and_pairs
    run = services.start_run(job=MiningRun.Job.MINE, chunk_size=2)
    assert wait_for(_finished(run), seconds=60), "the run never finished"
    run.refresh_from_db()
    assert run.state == MiningRun.State.DONE, run.message
    assert (run.total, run.processed, run.chunks.count()) == (5, 5, 3)
    for pair in pairs:
        assert Distractor.objects.filter(qa_pair=pair, kind="text").count() == 12
        # 12 pool images and the other questions' 4 evidence images, capped at the default 15.
        assert Distractor.objects.filter(qa_pair=pair, kind="image").count() == 15
    assert not Distractor.objects.filter(snippet=trap).exists(), "the trap names the answer"
    for pair in pairs:
        mined_images = set(Distractor.objects.filter(qa_pair=pair).values_list("image_id", flat=True))
        assert pair.evidence.get().image_id not in mined_images, "a positive is never a distractor"
    before = list(Distractor.objects.order_by("pk").values_list("pk", "created_at", "rank", "score"))

    again = services.start_run(job=MiningRun.Job.MINE, scope=MiningRun.Scope.ALL, chunk_size=2)
    assert wait_for(_finished(again), seconds=60)
    again.refresh_from_db()
    assert again.state == MiningRun.State.DONE and again.changed == 0
    assert list(Distractor.objects.order_by("pk").values_list("pk", "created_at", "rank", "score")) == before


def test_a_failing_chunk_is_retried_alone(celery_worker, pool_and_pairs):
    pairs, _ = pool_and_pairs
    run = services.start_run(job=MiningRun.Job.MINE, chunk_size=2)
    # Hold the middle chunk's first pair: its write waits out the lock timeout and fails.
    with transaction.atomic():
        QAPair.objects.select_for_update().get(pk=pairs[2].pk)
        held_failed = lambda: MiningChunk.objects.filter(run=run, number=1).exclude(error="").exists()  # noqa: E731
        assert wait_for(held_failed, seconds=60), "the held chunk never failed"
        held = MiningChunk.objects.get(run=run, number=1)
        assert held.attempts == 1 and held.state == MiningChunk.State.QUEUED
    assert wait_for(_finished(run), seconds=60)
    run.refresh_from_db()
    assert run.state == MiningRun.State.DONE, run.message
    chunks = {chunk.number: chunk for chunk in run.chunks.all()}
    assert chunks[1].attempts == 2 and chunks[1].error == ""
    assert chunks[0].attempts == 1 and chunks[2].attempts == 1, "the other chunks were not redone"
    assert all(chunk.state == MiningChunk.State.DONE for chunk in chunks.values())
    assert Distractor.objects.filter(qa_pair=pairs[2]).exists()
