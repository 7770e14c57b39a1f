"""Every format a release writes, checked against the contracts in FORMATS.md: WebQA's
keys and types (against the real sample record), image ids through imgs.lineidx,
the WebVLN graph, and WebQuest-style records whose files exist."""

import base64
import hashlib
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from accounts.models import Role
from assets.models import Asset
from releases.models import ReleaseItem
from releases.snapshot import guid_of
from tests.factories import UserFactory

from . import data
from .helpers import build_now, paths, read, read_json, release

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parents[4] / "shared/reference/formats/webqa_train_val.sample.json"
RECORD_KEYS = {"Guid", "Q", "A", "Keywords_A", "Qcate", "topic", "split", "img_posFacts", "img_negFacts",
               "txt_posFacts", "txt_negFacts"}  # fmt: skip
IMAGE_FACT = {"image_id": int, "title": str, "caption": str, "url": str, "imgUrl": str}
TEXT_FACT = {"title": str, "fact": str, "url": str, "snippet_id": str}
QCATES = {"text", "YesNo", "Others", "choose", "number", "color", "shape"}
COLORS = ["white", "red", "blue", "green", "yellow", "black", "pink", "orange", "purple", "brown", "gray", "teal"]


def _sample_record():
    if SAMPLE.exists():
        return next(iter(json.loads(SAMPLE.read_text()).values()))
    return None


def _webqa_release(admin_user, rater):
    for n, color in enumerate(COLORS):
        data.webqa_image_pair(rater, keyword=color, images=1 + n % 2)
    for n in range(4):
        data.webqa_text_pair(rater, keyword=f"Keyword{n}")
    return build_now(release(admin_user, families=["webqa"]))


def _check_fact(fact, types):
    assert set(fact) == set(types)
    for key, kind in types.items():
        assert isinstance(fact[key], kind), key


def test_webqa_records_have_exactly_the_keys_and_types_of_the_format(admin_user, rater):
    built = _webqa_release(admin_user, rater)
    assert built.state == "published", built.message
    train_val = read_json(built, "webqa/WebQA_train_val.json")
    sample = _sample_record()
    if sample is not None:  # the real record's keys (less its legacy old_image_id) are ours
        assert set(sample) == RECORD_KEYS
        assert set(sample["img_negFacts"][0]) - {"old_image_id"} == set(IMAGE_FACT)
    assert train_val and {record["split"] for record in train_val.values()} <= {"train", "val"}
    for guid, record in train_val.items():
        assert set(record) == RECORD_KEYS and record["Guid"] == guid and len(guid) == 32
        int(guid, 16)
        assert isinstance(record["A"], list) and all(isinstance(a, str) for a in record["A"])
        assert isinstance(record["Keywords_A"], str) and record["Keywords_A"]
        assert record["Qcate"] in QCATES
        for fact in record["img_posFacts"] + record["img_negFacts"]:
            _check_fact(fact, IMAGE_FACT)
        for fact in record["txt_posFacts"] + record["txt_negFacts"]:
            _check_fact(fact, TEXT_FACT)
            assert fact["snippet_id"].startswith(f"{guid}_")
        if record["Qcate"] == "text":
            assert record["txt_posFacts"] and not record["img_posFacts"]
        else:
            assert 1 <= len(record["img_posFacts"]) <= 2 and not record["txt_posFacts"]
            assert len(record["img_negFacts"]) == 2 and len(record["txt_negFacts"]) == 2

    test = read_json(built, "webqa/WebQA_test.json")
    assert test
    for record in test.values():
        assert set(record) == {"Guid", "Q", "Qcate", "topic", "split", "img_Facts", "txt_Facts"}
        assert record["split"] == "test"


def test_every_webqa_image_id_resolves_through_the_line_index_to_its_image(admin_user, rater):
    built = _webqa_release(admin_user, rater)
    tsv = read(built, "webqa/imgs.tsv")
    offsets = [int(line) for line in read(built, "webqa/imgs.lineidx").decode().split()]
    records = {**read_json(built, "webqa/WebQA_train_val.json"), **read_json(built, "webqa/WebQA_test.json")}
    facts = [
        fact
        for record in records.values()
        for key in ("img_posFacts", "img_negFacts", "img_Facts")
        for fact in record.get(key, [])
    ]
    assert facts and len(offsets) == len({fact["image_id"] for fact in facts})
    for fact in facts:
        line = fact["image_id"] % 10_000_000
        start = offsets[line]
        image_id, encoded = tsv[start : tsv.index(b"\n", start)].split(b"\t")
        assert int(image_id) == fact["image_id"]
        raw = base64.b64decode(encoded)
        Image.open(io.BytesIO(raw)).verify()
        assert read(built, fact["imgUrl"]) == raw
    assert sorted(fact["image_id"] for fact in facts)[0] == 30_000_000


def test_the_answer_keys_fit_the_scorer(admin_user, rater):
    built = _webqa_release(admin_user, rater)
    keys = [path for path in paths(built) if path.endswith("_answer_key.tsv")]
    assert keys and all(Path(path).name.count(".") == 1 for path in keys)
    test_guids = set(read_json(built, "webqa/WebQA_test.json"))
    for path in keys:
        lines = read(built, path).decode().split("\n")
        assert lines[0].split("\t") == ["Guid", "Qcate", "Q", "A", "Keywords_A", "Output_conf", "Output"]
        for line in filter(None, lines[1:]):
            cells = line.split("\t")
            assert len(cells) == 7 and cells[1] in QCATES and json.loads(cells[3]) and cells[5:] == ["[]", "[]"]
    test_key = read(built, "evaluation/webqa/webqa_test_answer_key.tsv").decode().split("\n")[1:]
    assert {line.split("\t")[0] for line in test_key if line} == test_guids


def test_closed_class_keywords_outside_the_scorers_domain_are_left_out(admin_user, rater):
    data.webqa_image_pair(rater, keyword="white")
    data.webqa_image_pair(rater, keyword="mauve-ish")
    data.webqa_image_pair(rater, category="number", keyword="three")
    data.webqa_image_pair(rater, category="number", keyword="3")
    built = build_now(release(admin_user, families=["webqa"]))
    assert built.counts["excluded"] == {"keyword_outside_answer_domain": 2}
    assert built.counts["items"] == 2


def _reference_answers(pair, admin, writers, sentences, keyword):
    """``writers`` write reference answers for ``pair`` as the References task takes them,
    in this order, the first also the keyword answer. Each writer is handed the oldest
    task they have not written for, so the test chooses pairs and writers in step."""
    from hits import services as hits
    from validation.services import choose_for_references

    (reference_set,) = choose_for_references(qa_pairs=[pair], actor=admin)
    for n, (writer, sentence) in enumerate(zip(writers, sentences, strict=False)):
        assignment, _ = hits.request_next_task(worker=writer, batch_id=reference_set.task.batch_id)
        assert assignment.task_id == reference_set.task_id
        answer = {"answer": sentence, "keyword_answer": keyword if n == 0 else ""}
        hits.submit_assignment(assignment_id=assignment.pk, worker=writer, data=answer)


def test_webqa_answers_are_the_pairs_then_its_reference_answers(admin_user, rater):
    without_keyword = data.webqa_image_pair(rater, keyword="")
    without_keyword.answer = "The kettle is white."
    without_keyword.save(update_fields=["answer"])
    writers = [UserFactory(role=Role.RATER) for _ in range(2)]
    # Two of five written: the set's keyword answer is not yet copied to the pair.
    sentences = ["It is a white kettle.", "The kettle is white."]
    _reference_answers(without_keyword, admin_user, writers, sentences, "white")
    with_keyword = data.webqa_text_pair(rater, keyword="Lisbon")
    _reference_answers(with_keyword, admin_user, writers, ["Lisbon is the capital."], "the city of Lisbon")
    plain = data.webqa_text_pair(rater, keyword="Porto")
    without_keyword.refresh_from_db()
    assert without_keyword.keyword_answer == ""

    built = build_now(release(admin_user, families=["webqa"], train_percent=100, val_percent=0))
    assert built.state == "published", built.message
    assert built.counts["items"] == 3 and not built.counts["excluded"]
    train_val = read_json(built, "webqa/WebQA_train_val.json")
    records = {guid_of(pair.pk): pair for pair in (without_keyword, with_keyword, plain)}
    by_pair = {records[guid]: record for guid, record in train_val.items()}
    # The pair's own answer first, then each reference answer once, in the order written.
    assert by_pair[without_keyword]["A"] == ["The kettle is white.", "It is a white kettle."]
    assert by_pair[without_keyword]["Keywords_A"] == "white"
    assert by_pair[with_keyword]["A"] == ["The answer is Lisbon.", "Lisbon is the capital."]
    assert by_pair[with_keyword]["Keywords_A"] == "Lisbon"
    assert by_pair[plain]["A"] == ["The answer is Porto."]
    lines = read(built, "records/webqa/train.jsonl").decode().splitlines()
    jsonl = {json.loads(line)["id"]: json.loads(line) for line in lines}
    assert jsonl[guid_of(without_keyword.pk)]["answers"] == ["The kettle is white.", "It is a white kettle."]
    assert jsonl[guid_of(without_keyword.pk)]["keyword_answer"] == "white"


def test_webquest_records_reference_files_that_exist(admin_user, rater):
    data.screen_pair(rater)
    data.screen_pair(rater, screens=3, reasoning_types=["comparison"])
    recorded, steps = data.trace(rater, ["/", "/a", "/b", "/c"], uncleared=(3,))
    data.trace_pair(rater, recorded, steps, relevant=(1, 2))
    built = build_now(release(admin_user, families=["webquest"]))
    records = []
    for path in sorted(path for path in paths(built) if path.startswith("records/webquest/")):
        records += [json.loads(line) for line in read(built, path).decode().splitlines()]
    assert len(records) == 3
    kinds = sorted(record["kind"] for record in records)
    assert kinds == ["multi", "single", "trace"]
    for record in records:
        assert {"id", "kind", "category", "screens", "question", "answers", "answer_type", "reasoning_types"} <= set(
            record
        )
        for screen in record["screens"]:
            stored = read(built, screen["image"])
            assert hashlib.sha256(stored).hexdigest() == screen["image"].split("/")[1].split(".")[0]
    trace_record = next(record for record in records if record["kind"] == "trace")
    assert [screen["relevant"] for screen in trace_record["screens"]] == [False, True, True]  # step 3 not cleared
    assert [step["screen"] is None for step in trace_record["steps"]] == [False, False, False, True]
    assert trace_record["steps"][1]["url_before"].endswith("/") and trace_record["steps"][1]["url_after"].endswith("/a")


def test_a_pending_or_rejected_asset_appears_in_no_file(admin_user, rater):
    kept = data.screen_pair(rater)
    data.screen_pair(rater, screen_state=Asset.ReviewState.PENDING_REVIEW)
    data.screen_pair(rater, screen_state=Asset.ReviewState.REJECTED)
    recorded, steps = data.trace(rater, ["/", "/a", "/b"], uncleared=(0,))
    data.trace_pair(rater, recorded, steps, relevant=(1, 2))
    data.webqa_image_pair(rater)
    pair = data.webqa_image_pair(rater, keyword="red")
    pending_negative = data.image_source(state=Asset.ReviewState.PENDING_REVIEW)
    pair.distractors.create(kind="image", image=pending_negative, method="visual", score=0.1, rank=9)
    built = build_now(release(admin_user))
    uncleared = Asset.objects.exclude(review_state="cleared")
    assert uncleared.count() == 4
    everything = b"".join(read(built, path) for path in sorted(paths(built)))
    for asset in uncleared:
        with open_asset(asset) as handle:
            raw = handle.read()
        assert asset.sha256.encode() not in everything
        assert base64.b64encode(raw) not in everything
    assert built.counts["excluded"] == {"uncleared_evidence": 2}
    assert ReleaseItem.objects.filter(release=built, qa_pair=kept).exists()


def open_asset(asset):
    from django.core.files.storage import default_storage

    return default_storage.open(asset.storage_key, "rb")
