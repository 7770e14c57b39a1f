"""The test split's answers stay in the evaluation set unless the release publishes them;
the gold the scorers read is written with every build."""

import json

import pytest

from releases.models import ReleaseFile
from tests import navigation

from . import data
from .helpers import build_now, paths, read, read_json, release

pytestmark = pytest.mark.django_db


def _lines(built, path):
    return [json.loads(line) for line in read(built, path).decode().splitlines()]


def _mostly_test_release(admin_user, rater, **fields):
    for n in range(3):
        data.screen_pair(rater, answer=f"${n + 10}.50")
        data.webqa_image_pair(rater, keyword="white")
    navigation.episode(rater, navigation.recorded_site(rater), "/kettles/steel", answer="Blue kettle")
    built = build_now(release(admin_user, train_percent=1, val_percent=0, split_strategy="random", **fields))
    assert all(built.counts["splits"]["test"].get(f) for f in ("webquest", "webqa", "webvln")), built.counts
    return built


def test_a_release_keeps_its_test_answers_in_the_private_evaluation_set(admin_user, rater):
    built = _mostly_test_release(admin_user, rater)
    public = {p for p in paths(built) if not p.startswith("evaluation/")}
    private = paths(built) - public
    assert set(ReleaseFile.objects.filter(release=built, private=True).values_list("path", flat=True)) == private
    assert {"webqa/webqa_test_answer_key.tsv", "records/webquest/test.jsonl"} & public == {
        "records/webquest/test.jsonl"
    }
    assert {
        "evaluation/webqa/webqa_test_answer_key.tsv",
        "evaluation/records/webquest/test.jsonl",
        "evaluation/webvln/seen/test.json",
        "evaluation/gold/webquest/test.jsonl",
        "evaluation/gold/webqa/test.jsonl",
        "evaluation/gold/webvln/test.jsonl",
    } <= private

    for family in ("webquest", "webqa", "webvln"):
        shown, kept = (
            _lines(built, f"records/{family}/test.jsonl"),
            _lines(built, f"evaluation/records/{family}/test.jsonl"),
        )
        assert [r["id"] for r in shown] == [r["id"] for r in kept]
        assert all(r["answers"] == [] and r["keyword_answer"] == "" for r in shown)
        assert all(r["answers"] for r in kept)
    assert all(episode["QA"][1] == "" for episode in read_json(built, "webvln/seen/test.json"))
    assert [e["QA"][1] for e in read_json(built, "evaluation/webvln/seen/test.json")] == ["Blue kettle"]
    kept_answers = {r["answers"][0] for r in _lines(built, "evaluation/records/webquest/test.jsonl")}
    assert kept_answers == {"$10.50", "$11.50", "$12.50"}
    for path in public:
        if path.endswith((".json", ".jsonl", ".tsv", ".md")):
            text = read(built, path).decode()
            assert not any(answer in text for answer in kept_answers), path
    manifest = read_json(built, "manifest.json")
    sets = {entry["path"]: entry["set"] for entry in manifest["files"]}
    assert {sets[p] for p in private} == {"evaluation"} and sets["records/webquest/test.jsonl"] == "public"
    assert manifest["test_answers"] == "evaluation set only"


def test_the_gold_has_what_each_scorer_reads(admin_user, rater):
    built = _mostly_test_release(admin_user, rater)
    (webvln,) = _lines(built, "evaluation/gold/webvln/test.jsonl")
    episode = read_json(built, "evaluation/webvln/seen/test.json")[0]
    assert webvln == {"id": str(episode["idx"]), "path": episode["path"], "answer": "Blue kettle"}
    webqa = _lines(built, "evaluation/gold/webqa/test.jsonl")
    test_file = read_json(built, "webqa/WebQA_test.json")
    for gold in webqa:
        record = test_file[gold["id"]]
        offered = {f["image_id"] for f in record["img_Facts"]} | {f["snippet_id"] for f in record["txt_Facts"]}
        assert gold["category"] == "color" and gold["keyword_answer"] == "white" and gold["answers"]
        assert gold["sources"] and set(gold["sources"]) <= offered  # the positives among the offered facts
    webquest = _lines(built, "evaluation/gold/webquest/test.jsonl")
    assert {g["kind"] for g in webquest} == {"single"} and all(g["answers"][0].startswith("$") for g in webquest)


def test_a_release_meant_to_be_open_publishes_its_test_answers(admin_user, rater):
    built = _mostly_test_release(admin_user, rater, test_answers_public=True)
    assert not ReleaseFile.objects.filter(release=built, private=True).exists()
    assert "webqa/webqa_test_answer_key.tsv" in paths(built)
    assert all(r["answers"] for r in _lines(built, "records/webquest/test.jsonl"))
    assert [e["QA"][1] for e in read_json(built, "webvln/seen/test.json")] == ["Blue kettle"]
    assert "evaluation/gold/webqa/test.jsonl" in paths(built)
    assert read_json(built, "manifest.json")["test_answers"] == "public"


def test_researchers_cannot_download_the_evaluation_set_and_admins_can(admin_user, rater, api_for):
    built = _mostly_test_release(admin_user, rater)
    for path in ("evaluation/webqa/webqa_test_answer_key.tsv", "evaluation/gold/webquest/test.jsonl"):
        refused = api_for(rater).get(f"/api/v1/releases/{built.pk}/files/{path}")
        assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"
        assert api_for(admin_user).get(f"/api/v1/releases/{built.pk}/files/{path}").status_code == 200
    listed = api_for(rater).get(f"/api/v1/releases/{built.pk}/files/?page_size=500").json()["results"]
    assert listed and not any(row["path"].startswith("evaluation/") or row["private"] for row in listed)
