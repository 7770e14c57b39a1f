"""Scoring predictions against a release: gold answers score full marks, a wrong constant
scores nothing, and bad files are refused with every problem named and nothing stored."""

import io
import json
import os

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from assets.models import Asset
from releases import evaluation, services
from releases.models import Evaluation
from tests import navigation

from .helpers import build_now, read, release

pytestmark = pytest.mark.django_db


def _gold(built, family, split="test"):
    return evaluation.load_gold(release=built, family=family, split=split)


def _as_predictions(family, gold, answer=None):
    """The predictions file a model would send: the gold answers, or ``answer`` everywhere."""
    if family == "webquest":
        return {item_id: answer if answer is not None else item["answers"][0] for item_id, item in gold.items()}
    if family == "webqa":
        return {
            guid: {"answer": answer if answer is not None else item["keyword_answer"],
                   "sources": [] if answer is not None else item["sources"]}
            for guid, item in gold.items()
        }  # fmt: skip
    return [
        {"idx": idx, "trajectory": item["path"] if answer is None else item["path"][:1],
         "answer": answer if answer is not None else item["answer"]}
        for idx, item in gold.items()
    ]  # fmt: skip


def _raw(predictions):
    return json.dumps(predictions).encode()


@pytest.fixture
def demo_release(admin_user):
    call_command("load_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
    Asset.objects.update(review_state="cleared")
    built = build_now(
        release(admin_user, name="demo", families=["webquest", "webqa"], qa_states=["accepted", "pending_validation"],
                split_strategy="random", train_percent=1, val_percent=0)
    )  # fmt: skip
    assert built.counts["splits"]["test"].get("webquest") and built.counts["splits"]["test"].get("webqa")
    return built


@pytest.fixture
def webvln_release(admin_user, rater):
    site = navigation.recorded_site(rater)
    for target, answer in [("/kettles/steel", "Steel"), ("/kettles/glass", "Blue kettle"), ("/mugs/blue", "Four stars"),
                           ("/mugs/blue", "Mug")]:  # fmt: skip
        navigation.episode(rater, site, target, answer=answer)
    built = build_now(release(admin_user, families=["webvln"], split_strategy="random", train_percent=1, val_percent=0))
    assert built.counts["splits"]["test"].get("webvln") == 3  # one in train: every website is in every split
    return built


def test_gold_answers_score_full_marks_on_the_demo_release_and_a_wrong_constant_nothing(demo_release):
    quest = _gold(demo_release, "webquest")
    report = evaluation.score(release=demo_release, family="webquest", split="test",
                              raw=_raw(_as_predictions("webquest", quest)))  # fmt: skip
    assert report["metrics"] == {"relaxed_accuracy": 1.0} and report["missing"] == 0
    assert report["count"] == len(quest) > 0
    wrong = evaluation.score(release=demo_release, family="webquest", split="test",
                             raw=_raw(_as_predictions("webquest", quest, answer="zebra")))  # fmt: skip
    assert wrong["metrics"] == {"relaxed_accuracy": 0.0}

    webqa = _gold(demo_release, "webqa")
    report = evaluation.score(release=demo_release, family="webqa", split="test",
                              raw=_raw(_as_predictions("webqa", webqa)))  # fmt: skip
    # The official F1 divides by precision + recall + 1e-5: a perfect closed-class answer is 0.999995.
    assert report["metrics"]["accuracy"] == pytest.approx(1.0, abs=1e-4)
    assert report["metrics"]["source_f1"] == pytest.approx(1.0, abs=1e-4)
    assert report["metrics"]["fluency"] is None
    assert report["per_category"] and all(
        row["accuracy"] == pytest.approx(1.0, abs=1e-4) for row in report["per_category"].values()
    )
    wrong = evaluation.score(release=demo_release, family="webqa", split="test",
                             raw=_raw(_as_predictions("webqa", webqa, answer="zebra")))  # fmt: skip
    assert wrong["metrics"]["accuracy"] == 0.0 and wrong["metrics"]["source_f1"] == pytest.approx(0.0, abs=1e-4)


def test_gold_trajectories_score_full_marks_on_webvln_and_standing_still_nothing(webvln_release):
    gold = _gold(webvln_release, "webvln")
    report = evaluation.score(release=webvln_release, family="webvln", split="test",
                              raw=_raw(_as_predictions("webvln", gold)))  # fmt: skip
    metrics = report["metrics"]
    assert (metrics["sr"], metrics["osr"], metrics["spl"]) == (1.0, 1.0, 1.0)
    assert metrics["wups_0.9"] == metrics["wups_0.0"] == 1.0
    assert metrics["tl"] == sum(len(item["path"]) for item in gold.values()) / len(gold)
    still = evaluation.score(release=webvln_release, family="webvln", split="test",
                             raw=_raw(_as_predictions("webvln", gold, answer="no idea")))  # fmt: skip
    assert (still["metrics"]["sr"], still["metrics"]["osr"], still["metrics"]["spl"]) == (0.0, 0.0, 0.0)


def test_missing_predictions_count_as_wrong_and_are_reported(demo_release):
    quest = _gold(demo_release, "webquest")
    some = dict(list(_as_predictions("webquest", quest).items())[:-1])
    report = evaluation.score(release=demo_release, family="webquest", split="test", raw=_raw(some))
    assert report["missing"] == 1 and report["metrics"]["relaxed_accuracy"] == (len(quest) - 1) / len(quest)


@pytest.mark.parametrize(
    ("family", "raw", "where", "says"),
    [
        ("webquest", b"", "predictions.file", "empty"),
        ("webquest", b"\xff\xfe{", "predictions.file", "not UTF-8"),
        ("webquest", b"[1, 2]", "predictions.file", "Give one object"),
        ("webquest", b'{"nope": "1"}', "predictions.nope", "There is no item 'nope'"),
        ("webquest", b'{"id": "x", "answer": "1"}\n{oops\n', "predictions.line 2", "not valid JSON"),
        ("webquest", b'{"id": "x", "answer": 7}\n{"id": "y"}\n', "predictions.line 1", "must be a string"),
        ("webqa", b'{"g": {"answer": "yes"}}', "predictions.g", "sources"),
        ("webqa", b'{"g": {"answer": "yes", "sources": [true]}}', "predictions.g", "list of image ids"),
        ("webqa", b"not json", "predictions.file", "not valid JSON"),
        ("webvln", b'{"idx": 1}', "predictions.file", "Give a list"),
        ("webvln", b'[{"idx": 1, "trajectory": [], "answer": "x"}]', "predictions.item 0", "non-empty list"),
    ],
)
def test_bad_files_are_refused_with_the_problem_and_where_it_is(family, raw, where, says):
    with pytest.raises(evaluation.BadPredictions) as refused:
        evaluation.read_predictions(family=family, raw=raw, gold={"x": {}, "y": {}})
    assert says in " ".join(refused.value.detail[where])


def test_duplicates_and_a_wrong_start_page_are_refused(webvln_release):
    gold = _gold(webvln_release, "webvln")
    predictions = _as_predictions("webvln", gold)
    twice = predictions + predictions[:1]
    with pytest.raises(evaluation.BadPredictions) as refused:
        evaluation.read_predictions(family="webvln", raw=_raw(twice), gold=gold)
    assert "predicted twice" in refused.value.detail[f"predictions.item {len(predictions)}"][0]
    elsewhere = [{**predictions[0], "trajectory": predictions[0]["trajectory"][1:]}]
    with pytest.raises(evaluation.BadPredictions) as refused:
        evaluation.read_predictions(family="webvln", raw=_raw(elsewhere), gold=gold)
    assert "must start at the episode's first page" in refused.value.detail["predictions.item 0"][0]


def test_a_file_over_the_limit_is_refused(settings):
    settings.EVALUATION_MAX_BYTES = 10
    with pytest.raises(evaluation.BadPredictions) as refused:
        evaluation.read_predictions(family="webquest", raw=b'{"x": "12345678"}', gold={"x": {}})
    assert "larger than" in refused.value.detail["predictions.file"][0]


def _post(client, built, family, payload, **fields):
    upload = io.BytesIO(payload)
    upload.name = "predictions.json"
    body = {"family": family, "split": "test", "name": "my model", "predictions": upload, **fields}
    return client.post(f"/api/v1/releases/{built.pk}/evaluations/", body, format="multipart")


def test_a_researcher_evaluates_on_private_test_answers_they_cannot_download(
    demo_release, rater, api_for, django_capture_on_commit_callbacks
):
    client = api_for(rater)
    key = "evaluation/gold/webquest/test.jsonl"
    assert client.get(f"/api/v1/releases/{demo_release.pk}/files/{key}").status_code == 404
    predictions = _as_predictions("webquest", _gold(demo_release, "webquest"))
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = _post(client, demo_release, "webquest", _raw(predictions), public="true")
    assert response.status_code == 202, response.json()
    run = response.json()
    assert run["state"] == "queued" and len(queued) == 1
    services.run_evaluation(evaluation_id=run["id"])  # what the queued job does
    done = client.get(f"/api/v1/releases/{demo_release.pk}/evaluations/{run['id']}/").json()
    assert done["state"] == "done" and done["metrics"] == {"relaxed_accuracy": 1.0} and done["missing"] == 0
    assert done["per_category"]["kind"]
    listed = client.get(f"/api/v1/releases/{demo_release.pk}/evaluations/").json()["results"]
    assert [row["id"] for row in listed] == [run["id"]]


def test_refused_files_store_nothing_and_others_see_only_public_runs(demo_release, rater, other_rater, api_for):
    client = api_for(rater)
    refused = _post(client, demo_release, "webquest", b'{"not-an-id": "1"}')
    assert refused.status_code == 400
    body = refused.json()["error"]
    assert body["code"] == "invalid" and "There is no item" in body["fields"]["predictions.not-an-id"][0]
    assert not Evaluation.objects.exists()
    assert not default_storage.exists(f"evaluations/{demo_release.pk}")
    webvln = _post(client, demo_release, "webvln", b"[]")
    assert webvln.status_code == 409 and webvln.json()["error"]["code"] == "not_evaluable"

    predictions = _raw(_as_predictions("webquest", _gold(demo_release, "webquest")))
    private = _post(client, demo_release, "webquest", predictions).json()
    public = _post(client, demo_release, "webquest", predictions, public="true", name="shared").json()
    seen = api_for(other_rater).get(f"/api/v1/releases/{demo_release.pk}/evaluations/").json()["results"]
    assert [row["id"] for row in seen] == [public["id"]]
    hidden = api_for(other_rater).get(f"/api/v1/releases/{demo_release.pk}/evaluations/{private['id']}/")
    assert hidden.status_code == 404
    assert Client().get(f"/api/v1/releases/{demo_release.pk}/evaluations/").status_code in (401, 403)


def test_the_evaluate_command_prints_the_metrics_as_json(demo_release, tmp_path, capsys):
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(_as_predictions("webquest", _gold(demo_release, "webquest"))))
    call_command("evaluate", str(demo_release.pk), "--family", "webquest", "--split", "test",
                 "--predictions", str(path), "--json")  # fmt: skip
    printed = json.loads(capsys.readouterr().out)
    assert printed["metrics"] == {"relaxed_accuracy": 1.0} and printed["missing"] == 0
    assert set(printed) == {"metrics", "per_category", "missing", "count"}
    path.write_text('{"nope": "1"}')
    with pytest.raises(CommandError, match="There is no item 'nope'"):
        call_command("evaluate", str(demo_release.pk), "--family", "webquest", "--split", "test",
                     "--predictions", str(path))  # fmt: skip


def test_webquest_records_carry_their_answer_variants(demo_release):
    lines = read(demo_release, "evaluation/records/webquest/test.jsonl").decode().splitlines()
    answers = [json.loads(line)["answers"] for line in lines]
    assert answers and all(len(variants) > 1 for variants in answers if any(c.isdigit() for c in variants[0]))
