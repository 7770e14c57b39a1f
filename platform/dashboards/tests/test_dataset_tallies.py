"""The tallies behind the dataset page and the batches' task counts: whatever changes the
QA pairs, their evidence, the traces' steps or the tasks, folded in or not, every number
equals a direct count."""

import uuid
from collections import Counter

import pytest
from django.db import connection, transaction
from django.db.models import Count, Sum
from django.utils import timezone

from assets.models import Asset
from corpus.models import Evidence, QAPair, ReasoningType, Screen, Trace, TraceStep
from dashboards import selectors, services, triggers
from dashboards.models import QAPairChange, ScreenChange, TaskChange
from hits import services as hits
from hits.models import Batch, Task
from tests.factories import UserFactory, make_category, open_batch

pytestmark = pytest.mark.django_db

MULTI = QAPair.SplitKind.MULTI_SCREEN


def _expected():
    """The dataset page's numbers counted from the rows themselves."""
    pairs = list(QAPair.objects.values_list("family", "split_kind", "category__name", "state", "question_category",
                                            "reasoning_types"))  # fmt: skip
    by = {}
    for index, name in enumerate(["family", "split_kind", "category", "state", "question_category"]):
        by[name] = dict(Counter(row[index] for row in pairs))
    by["reasoning_type"] = {value: sum(1 for row in pairs if value in (row[5] or [])) for value in ReasoningType.values}
    steps = TraceStep.objects.values("trace").annotate(n=Count("id")).values_list("n", flat=True)
    evidence = (
        Evidence.objects.filter(qa_pair__split_kind=MULTI).values("qa_pair").annotate(n=Count("id")).values_list("n", flat=True)
    )  # fmt: skip
    return by, dict(Counter(steps)), dict(Counter(evidence))


def _shown():
    by, per_trace, per_example = selectors.dataset()
    keys = {"category": "category__name"}
    shown = {name: {row[keys.get(name, name)]: row["n"] for row in rows} for name, rows in by.items()}
    return (
        shown,
        {row["screens"]: row["traces"] for row in per_trace},
        {row["screens"]: row["examples"] for row in per_example},
    )


def assert_dataset_matches_the_rows():
    assert _shown() == _expected()


def _tasks_match():
    expected = {
        row["batch"]: (row["n"], row["wanted"])
        for row in Task.objects.values("batch").annotate(n=Count("id"), wanted=Sum("assignments_wanted")).order_by()
    }
    shown = {row["id"]: (row["tasks"], row["wanted"]) for row in selectors.batch_progress() if row["tasks"]}
    assert shown == expected


def _screen(author, n):
    asset = Asset.objects.create(sha256=f"{n:064x}", format="png", width=10, height=10, byte_size=100,
                                 phash="0" * 16, storage_key=f"k/{n}", thumbnail_key=f"t/{n}")  # fmt: skip
    return Screen.objects.create(asset=asset, author=author, url=f"https://example.com/{n}")


def _trace(author, category, steps, first):
    trace = Trace.objects.create(client_id=uuid.uuid4(), author=author, category=category)
    for position in range(steps):
        TraceStep.objects.create(
            trace=trace, client_id=uuid.uuid4(), position=position, screen=_screen(author, first + position),
            url="https://example.com/", captured_at=timezone.now(), viewport_width=10, viewport_height=10,
            action="click",
        )  # fmt: skip
    return trace


def _pairs(author):
    shopping, news = make_category("shopping"), make_category("news")
    reasoning = [[], ["arithmetic"], ["counting", "comparison"], ["filtering", "arithmetic"]]
    pairs = QAPair.objects.bulk_create(
        QAPair(family=["webquest", "webqa"][i % 2], split_kind=[MULTI, "single_screen"][i % 3 == 0],
               question=f"q{i}", answer="a", author=author, reasoning_types=reasoning[i % 4],
               question_category=["YesNo", "number", ""][i % 3], category=[shopping, news, None][i % 3],
               state=["accepted", "pending_validation", "rejected"][i % 3])
        for i in range(12)
    )  # fmt: skip
    Evidence.objects.bulk_create(
        Evidence(qa_pair=pair, position=position, fact=f"fact {position}", url="https://example.com/fact")
        for i, pair in enumerate(pairs)
        for position in range(1 + i % 4)
    )
    return pairs, (shopping, news)


def test_dataset_numbers_match_the_rows_through_every_kind_of_change_folded_or_not():
    author = UserFactory()
    pairs, (shopping, news) = _pairs(author)
    traces = [_trace(author, shopping, steps, first=100 * n) for n, steps in enumerate([2, 3, 3, 5])]
    assert QAPairChange.objects.exists() and ScreenChange.objects.exists()
    assert_dataset_matches_the_rows()  # all logged, nothing folded
    assert services.fold_changes() > 0
    assert not QAPairChange.objects.exists() and not ScreenChange.objects.exists()
    assert_dataset_matches_the_rows()

    # Changes to the counted values, one by one and in bulk; a pair moves in and out of
    # the multi-screen histogram.
    QAPair.objects.filter(pk=pairs[0].pk).update(split_kind=MULTI, state="accepted")
    QAPair.objects.filter(pk=pairs[1].pk).update(split_kind="single_screen")
    QAPair.objects.filter(category=news).update(category=shopping, reasoning_types=["counting"])
    pairs[2].question_category = "color"
    pairs[2].save()
    Evidence.objects.filter(qa_pair=pairs[4], position=0).update(qa_pair=pairs[5], position=9)
    assert_dataset_matches_the_rows()
    services.fold_changes()
    assert_dataset_matches_the_rows()

    # Steps and evidence added and taken away; deletions that cascade.
    TraceStep.objects.filter(trace=traces[3], position=4).delete()
    _trace(author, make_category("travel"), 1, first=900)
    Evidence.objects.create(qa_pair=pairs[7], position=8, fact="more", url="https://example.com/more")
    assert_dataset_matches_the_rows()
    services.fold_changes()
    QAPair.objects.filter(pk__in=[pairs[3].pk, pairs[7].pk]).delete()  # their evidence goes with them
    traces[0].delete()  # and its steps
    news.delete()  # its pairs keep going without a category
    assert_dataset_matches_the_rows()
    services.fold_changes()
    assert_dataset_matches_the_rows()
    assert services.fold_changes() == 0
    # Emptied bars and combinations leave no rows behind.
    QAPair.objects.all().delete()
    Trace.objects.all().delete()
    services.fold_changes()
    assert _shown() == (
        {name: {} for name in _expected()[0]} | {"reasoning_type": dict.fromkeys(ReasoningType.values, 0)},
        {},
        {},
    )


def test_a_change_to_nothing_counted_logs_nothing():
    pairs, _ = _pairs(UserFactory())
    services.fold_changes()
    QAPair.objects.filter(pk=pairs[0].pk).update(question="Reworded?", answer="b")
    Evidence.objects.filter(qa_pair=pairs[0]).update(note="A note.")
    assert not QAPairChange.objects.exists() and not ScreenChange.objects.exists()


def test_task_counts_match_the_tasks_folded_or_not():
    batches = [open_batch(tasks=4, wanted=2), open_batch(tasks=3, wanted=5)]
    assert TaskChange.objects.exists()
    _tasks_match()
    services.fold_changes()
    assert not TaskChange.objects.exists()
    _tasks_match()
    hits.add_tasks(batch=batches[0], payloads=[{"passage": "One more.", "question": "Which?"}], assignments_wanted=7)
    Task.objects.filter(batch=batches[1]).update(assignments_wanted=1)
    _tasks_match()
    services.fold_changes()
    Batch.objects.filter(pk=batches[1].pk).delete()
    _tasks_match()
    services.fold_changes()
    _tasks_match()


def test_missing_triggers_are_put_back_and_the_dataset_tallies_rebuilt():
    author = UserFactory()
    pairs, (shopping, _news) = _pairs(author)
    _trace(author, shopping, 3, first=0)
    open_batch(tasks=2)
    services.fold_changes()
    triggers.uninstall()
    QAPair.objects.filter(pk=pairs[0].pk).update(state="draft")  # logged by nobody
    Evidence.objects.filter(qa_pair=pairs[1]).delete()
    assert triggers.ensure_installed() is True
    assert_dataset_matches_the_rows()
    _tasks_match()
    services.fold_changes()
    assert_dataset_matches_the_rows()
    _tasks_match()


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="SQLite has no column types to alter")
def test_a_counted_column_of_a_corpus_table_can_still_change_type():
    with transaction.atomic(), connection.cursor() as cursor:
        # What another app's migration may do; a WHEN clause naming the column would refuse it.
        cursor.execute("ALTER TABLE corpus_qapair ALTER COLUMN question_category TYPE varchar(40)")
        cursor.execute("ALTER TABLE hits_task ALTER COLUMN assignments_wanted TYPE integer")
        transaction.set_rollback(True)
