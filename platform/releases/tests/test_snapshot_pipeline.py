"""The build's faster paths lose nothing: a record's own texts are tested joined before
any is screened alone, and its items are copied to the database while the next chunk is
built, so a copy that fails still fails the snapshot, with the database's own error; the
records stage reads the next chunk of items while it writes one; the garbage collector
runs less often during a build and as before after it."""

import gc
import random

import pytest
from django.db import DataError, connection, transaction

from moderation.textscreen import might_hold_personal_data, text_findings
from moderation.textscreen import personal as personal_findings
from releases.build import write_items
from releases.heap import fewer_collections
from releases.models import ReleaseItem
from releases.snapshot import _ItemWriter, take_snapshot
from releases.textscreen import screen_record

from . import data
from .helpers import release
from .test_textscreen import _record, _screen, _step

PERSONAL = [
    "jane.doe@example.com",
    "+44 20 7946 0958",
    "221B Baker Street",
    "12 rue de Rivoli",
    "Hauptstraße 5",
    "Hello Jane",
    "DE89 3704 0044 0532 0130 00",
    "4111 1111 1111 1111",
    "078-05-1120",
]
PLAIN = ["Which kettle", "is the cheapest", "£39.99", "in 2019", "about", "He said", "Hi", "out of", "12", "7 days", ""]


def _random_text(rng):
    words = rng.choices(PLAIN + PERSONAL + ["Sign out"], k=rng.randint(0, 4))
    return rng.choice([" ", "\n", "\t", "\u00a0", ", "]).join(words)


def test_texts_joined_are_flagged_whenever_one_of_them_is():
    rng = random.Random(8)
    for _ in range(3000):
        texts = [_random_text(rng) for _ in range(rng.randint(1, 6))]
        if any(might_hold_personal_data(text) for text in texts):
            assert might_hold_personal_data("\n".join(texts)), texts


# Every own text field of a record, and how to put a text there.
FIELDS = {
    "question": lambda record, text: record.update(question=text),
    "answer": lambda record, text: record.update(answer=text),
    "keyword_answer": lambda record, text: record.update(keyword_answer=text),
    "topic": lambda record, text: record.update(topic=text),
    "answer_variants": lambda record, text: record.update(answer_variants=["Arc", text]),
    "reference_answers": lambda record, text: record.update(reference_answers=[text]),
    "evidence note": lambda record, text: record["evidence"][0].update(note=text),
    "fact": lambda record, text: record["evidence"].append({"type": "fact", "fact": text, "url": "", "note": ""}),
    "step title": lambda record, text: record["steps"][0].update(title=text),
    "target text": lambda record, text: record["steps"][0]["target"].update(text=text),
    "target label": lambda record, text: record["steps"][0]["target"].update(label=text),
    "target selector": lambda record, text: record["steps"][0]["target"].update(selector=text),
    "clickable alt": lambda record, text: record["steps"][0]["clickables"][0].update(alt=text),
    "episode": lambda record, text: record.update(episode={"description": text, "urls": []}),
}


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("personal", PERSONAL)
def test_personal_data_in_any_one_own_text_is_found_alone_among_clean_ones(field, personal):
    record = _record(steps=[_step(0, screen=_screen())])
    FIELDS[field](record, f"See {personal} today")
    screened, counts = screen_record(record, pool_sources=False)
    assert personal_findings(text_findings(f"See {personal} today")), personal  # the detectors know it
    masked = sum(
        n for change, n in counts.items() if change.startswith("masked_") and change != "masked_question_or_answer"
    )
    assert masked >= 1 and personal not in str(screened), (field, personal, counts)


def test_a_record_with_nothing_to_find_comes_back_as_it_was():
    record = _record(steps=[_step(0, screen=_screen())], answer_variants=["Arc", "the Arc"])
    screened, counts = screen_record(record, pool_sources=False)
    assert screened == record and counts == {}


def test_a_copy_the_database_refuses_fails_with_its_error_and_keeps_nothing(admin_user, rater):
    if connection.vendor != "postgresql":
        pytest.skip("elsewhere items are written at once, and the database takes any text")
    pair = data.screen_pair(rater)
    draft = release(admin_user, families=["webquest"])
    bad = {"question": "a NUL \x00 that jsonb refuses"}
    with pytest.raises(DataError), transaction.atomic(), _ItemWriter(draft) as writer:
        writer.add([(pair.pk, "0" * 32, "webquest", "train", "pair:1", bad)])
        writer.start()
    assert not ReleaseItem.objects.filter(release=draft).exists()


def test_many_small_chunks_copy_every_item_once(admin_user, rater, settings):
    settings.RELEASE_CHUNK_SIZE = 2
    pairs = [data.screen_pair(rater, question=f"Question {n}?") for n in range(7)]
    draft = release(admin_user, families=["webquest"])
    counts, _ = take_snapshot(release=draft, progress=lambda **_: None)
    items = ReleaseItem.objects.filter(release=draft)
    assert counts["selected"] == 7
    assert sorted(items.values_list("qa_pair_id", flat=True)) == sorted(pair.pk for pair in pairs)
    assert {item.record["question"] for item in items} == {f"Question {n}?" for n in range(7)}


class _Collected:
    """A writer that keeps what it is given."""

    def __init__(self):
        self.items = []

    def add(self, item, lookup):
        self.items.append((item["split"], item["record"]))


def test_many_small_chunks_write_every_item_once_in_item_order(admin_user, rater, settings):
    settings.RELEASE_CHUNK_SIZE = 2
    for n in range(7):
        data.screen_pair(rater, question=f"Question {n}?")
    draft = release(admin_user, families=["webquest"])
    take_snapshot(release=draft, progress=lambda **_: None)
    writer, reported = _Collected(), []
    write_items(release=draft, writers=[writer], progress=lambda **kwargs: reported.append(kwargs["done"]))
    stored = ReleaseItem.objects.filter(release=draft).order_by("pk")
    assert writer.items == [(item.split, item.record) for item in stored]
    assert len(writer.items) == 7
    assert reported == [2, 4, 6, 7]


def test_a_build_collects_less_often_and_leaves_the_collector_as_it_found_it():
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    with fewer_collections():
        assert gc.get_threshold()[0] >= 20_000
        assert gc.get_freeze_count() > frozen
        with fewer_collections():  # nested: the outer block's settings hold
            pass
        assert gc.get_threshold()[0] >= 20_000
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == frozen
