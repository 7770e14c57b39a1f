"""The snapshot reads in sets and writes with COPY: its queries do not grow with the
pairs, awkward texts come back exactly, a pool source screened once is masked and counted
in every record that holds it, and images are checked against their hash on the way in."""

import hashlib
import os

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.test.utils import CaptureQueriesContext

from corpus.models import Snippet
from mining.models import Distractor
from releases.models import ReleaseItem
from releases.snapshot import record_text, take_snapshot

from . import data
from .helpers import build_now, paths, read, release

pytestmark = pytest.mark.django_db
EMAIL = "jane.example@mail.test"


def _snapshot_queries(admin):
    draft = release(admin, name=f"sets-{ReleaseItem.objects.count()}", families=["webquest", "webqa"])
    with CaptureQueriesContext(connection) as queries:
        take_snapshot(release=draft, progress=lambda **_: None)
    return len(queries)


def test_the_snapshot_reads_as_many_times_for_many_pairs_as_for_few(admin_user, rater, settings):
    settings.RELEASE_CHUNK_SIZE = 1000  # one chunk either way
    for _ in range(2):
        data.screen_pair(rater)
        data.webqa_image_pair(rater)
        data.webqa_text_pair(rater)
    few = _snapshot_queries(admin_user)
    for _ in range(6):
        data.screen_pair(rater, screens=2)
        data.webqa_image_pair(rater, keyword="red")
        data.webqa_text_pair(rater, keyword="Porto")
    many = _snapshot_queries(admin_user)
    assert ReleaseItem.objects.filter(release__name__startswith="sets-").count() > 20  # both took pairs in
    assert many == few


def test_awkward_texts_come_back_from_the_snapshot_exactly(admin_user, rater):
    question = 'Is "C:\\new\\table" a path?\tOr\na line \\\\ with \\N, ☃ and \u2028?'
    data.screen_pair(rater, question=question, answer="Back\\slash\r\nand tab\t.")
    draft = release(admin_user, families=["webquest"])
    take_snapshot(release=draft, progress=lambda **_: None)
    item = ReleaseItem.objects.get(release=draft)
    assert item.record["question"] == question
    assert item.record["answer"] == "Back\\slash\r\nand tab\t."
    assert item.content_hash == hashlib.sha256(record_text(item.record).encode()).hexdigest()


def test_a_shared_distractor_is_masked_and_counted_in_every_record_holding_it(admin_user, rater):
    shared = Snippet.objects.create(
        digest="e" * 64, title="Contact", text=f"Write to {EMAIL}.", url="https://w.example/"
    )
    pairs = [data.webqa_text_pair(rater, keyword=keyword) for keyword in ("Lisbon", "Porto", "Faro")]
    for pair in pairs:
        Distractor.objects.create(qa_pair=pair, kind="text", snippet=shared, method="bm25", score=0.1, rank=2)
    built = build_now(release(admin_user, families=["webqa"], test_answers_public=True))
    assert built.state == "published", built.message
    masked = 0
    for item in ReleaseItem.objects.filter(release=built):
        texts = [negative["text"] for negative in item.record["negatives"]["text"]]
        assert "Write to […]." in texts and not any(EMAIL in text for text in texts)
        masked += 1
    assert masked == 3 and built.counts["text_screening"]["masked_email"] == 3
    for path in paths(built):
        if not path.startswith("images/"):
            assert EMAIL not in read(built, path).decode(), path


def test_an_image_whose_stored_bytes_changed_fails_the_build_and_publishes_nothing(admin_user, rater):
    pair = data.screen_pair(rater)
    key = pair.evidence.get().screen.asset.storage_key
    default_storage.delete(key)
    default_storage.save(key, ContentFile(b"not the bytes that were hashed"))
    built = build_now_failing(release(admin_user, families=["webquest"]))
    assert built.state == "failed" and "does not match its hash" in built.message
    assert not built.files.exists()


def build_now_failing(draft):
    with pytest.raises(ValueError, match="does not match its hash"):
        build_now(draft)
    draft.refresh_from_db()
    return draft


def test_a_local_release_links_its_images_to_the_stored_files_instead_of_copying(admin_user, rater):
    pair = data.screen_pair(rater)
    stored = pair.evidence.get().screen.asset
    built = build_now(release(admin_user, families=["webquest"]))
    assert built.state == "published", built.message
    shipped = default_storage.path(f"{built.storage_prefix}/images/{stored.sha256}.png")
    assert os.path.samefile(shipped, default_storage.path(stored.storage_key))
    assert hashlib.sha256(read(built, f"images/{stored.sha256}.png")).hexdigest() == stored.sha256


def test_personal_data_spaced_with_tabs_or_no_break_spaces_is_masked_too(admin_user, rater):
    # The detectors read words joined by one space; the cheap check before them must too.
    data.screen_pair(rater, question="Is it 221B\u00a0Baker Street?", answer="Ask at the desk, says Hi\tJane.")
    draft = release(admin_user, families=["webquest"])
    counts, _ = take_snapshot(release=draft, progress=lambda **_: None)
    record = ReleaseItem.objects.get(release=draft).record
    assert (record["question"], record["answer"]) == ("Is it […]?", "Ask at the desk, says […].")
    assert counts["text_screening"]["masked_address"] == 1 and counts["text_screening"]["masked_signed_in"] == 1
