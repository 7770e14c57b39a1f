"""Scoring predictions against a published release: reading the gold of its evaluation
set, reading and checking a predictions file in each family's own format, and running
the family's scorer (``releases.scoring``).

Prediction formats:

- WebQuest: ``{"<record id>": "<answer>", …}``, or JSON Lines of ``{"id", "answer"}``.
- WebQA: WebQA's submission format, ``{"<Guid>": {"sources": [image_id or snippet_id, …],
  "answer": "<answer>"}, …}``.
- WebVLN: WebVLN's results, ``[{"idx", "trajectory": [urlID, …], "answer"}, …]``.

Every problem is reported with the line (JSON Lines) or the id it concerns, at most
``MAX_ERRORS`` of them; an id the split does not have is an error, an id it has that
the file lacks is scored as wrong and counted as missing.
"""

import json

from django.conf import settings
from django.core.files.storage import default_storage
from rest_framework.exceptions import ValidationError

from .formats.gold import gold_path
from .scoring import webqa, webquest, webvln

SCORERS = {"webquest": webquest, "webqa": webqa, "webvln": webvln}
SCORED_SPLITS = ("val", "test")
MAX_ERRORS = 20


class BadPredictions(ValidationError):
    """The predictions file cannot be scored; ``detail`` maps where to what is wrong."""


def _refuse(errors):
    shown = dict(list(errors.items())[:MAX_ERRORS])
    if len(errors) > MAX_ERRORS:
        shown["more"] = [f"{len(errors) - MAX_ERRORS} more problems not listed."]
    raise BadPredictions({f"predictions.{where}": [message] for where, message in shown.items()})


# --- Gold -----------------------------------------------------------------------------------


def _read(release, path):
    with default_storage.open(f"{release.storage_prefix}/{path}", "rb") as handle:
        return handle.read()


def load_gold(*, release, family, split):
    """``{item id: gold}`` for one family and split of a published release, as its build
    wrote them into the evaluation set."""
    if not release.files.filter(path=gold_path(family, split)).exists():
        return {}
    gold = {}
    for line in _read(release, gold_path(family, split)).decode().splitlines():
        entry = json.loads(line)
        gold[str(entry.pop("id"))] = entry
    return gold


def scorer_context(*, release, family):
    """What a family's scorer needs besides the gold: WebVLN's shortest paths."""
    if family != "webvln" or not release.files.filter(path="webvln/shortest_paths.json").exists():
        return {"shortest_paths": {}} if family == "webvln" else {}
    return {"shortest_paths": json.loads(_read(release, "webvln/shortest_paths.json"))}


# --- Predictions ----------------------------------------------------------------------------


def read_predictions(*, family, raw, gold):
    """The predictions in ``raw`` (bytes) as ``{item id: prediction}``, checked against
    ``gold``. Raises ``BadPredictions`` with every problem found."""
    if len(raw) > settings.EVALUATION_MAX_BYTES:
        _refuse({"file": f"The file is larger than {settings.EVALUATION_MAX_BYTES // 1_000_000} MB."})
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        _refuse({"file": "The file is not UTF-8 text: save the predictions as UTF-8 JSON."})
    if not text.strip():
        _refuse({"file": "The file is empty."})
    reader = {"webquest": _webquest, "webqa": _webqa, "webvln": _webvln}[family]
    errors, predictions = {}, {}
    for where, item_id, prediction, problem in reader(text):
        if problem:
            errors[where] = problem
        elif item_id not in gold:
            errors[where] = f"There is no item {item_id!r} in this split."
        elif item_id in predictions:
            errors[where] = f"Item {item_id!r} is predicted twice."
        elif family == "webvln" and prediction["trajectory"][0] != gold[item_id]["path"][0]:
            errors[where] = f"The trajectory must start at the episode's first page, {gold[item_id]['path'][0]}."
        else:
            predictions[item_id] = prediction
    if errors:
        _refuse(errors)
    return predictions


def _json(text):
    try:
        return json.loads(text), None
    except ValueError as error:
        return None, f"The file is not valid JSON: {error}."


def _webquest(text):
    data, problem = _json(text)
    if problem and "\n" in text.strip():  # JSON Lines
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            where = f"line {number}"
            entry, problem = _json(line)
            if problem:
                yield where, None, None, problem.replace("The file is", "This line is")
            elif not isinstance(entry, dict) or set(entry) != {"id", "answer"}:
                yield where, None, None, 'Each line is one object: {"id": "<record id>", "answer": "<answer>"}.'
            elif not isinstance(entry["answer"], str):
                yield where, None, None, "The answer must be a string."
            else:
                yield where, str(entry["id"]), entry["answer"], None
        return
    if problem:
        yield "file", None, None, problem
    elif not isinstance(data, dict):
        yield "file", None, None, 'Give one object {"<record id>": "<answer>", …}, or JSON Lines of {"id", "answer"}.'
    else:
        for item_id, answer in data.items():
            yield item_id, item_id, answer, None if isinstance(answer, str) else "The answer must be a string."


def _webqa(text):
    data, problem = _json(text)
    if problem or not isinstance(data, dict):
        yield "file", None, None, problem or 'Give one object {"<Guid>": {"sources": [...], "answer": "..."}, …}.'
        return
    for guid, entry in data.items():
        if not isinstance(entry, dict) or not {"answer", "sources"} <= set(entry):
            yield guid, None, None, 'Give {"sources": [image or snippet ids], "answer": "<answer>"}.'
        elif not isinstance(entry["answer"], str):
            yield guid, None, None, "The answer must be a string."
        elif not isinstance(entry["sources"], list) or not all(
            isinstance(source, (int, str)) and not isinstance(source, bool) for source in entry["sources"]
        ):
            yield guid, None, None, "The sources must be a list of image ids (numbers) and snippet ids (strings)."
        else:
            yield guid, guid, {"answer": entry["answer"], "sources": entry["sources"]}, None


def _webvln(text):
    data, problem = _json(text)
    if problem or not isinstance(data, list):
        yield "file", None, None, problem or 'Give a list [{"idx", "trajectory": [urlID, …], "answer"}, …].'
        return
    for number, entry in enumerate(data):
        where = f"item {number}"
        if not isinstance(entry, dict) or not {"idx", "trajectory", "answer"} <= set(entry):
            yield where, None, None, 'Each item is {"idx", "trajectory": [urlID, …], "answer"}.'
        elif (
            not isinstance(entry["trajectory"], list)
            or not entry["trajectory"]
            or not all(isinstance(page, str) for page in entry["trajectory"])
        ):
            yield where, None, None, "The trajectory must be a non-empty list of page ids (urlID strings)."
        elif not isinstance(entry["answer"], str):
            yield where, None, None, "The answer must be a string."
        else:
            yield where, str(entry["idx"]), {"trajectory": entry["trajectory"], "answer": entry["answer"]}, None


# --- Scoring --------------------------------------------------------------------------------


def score(*, release, family, split, raw):
    """Checks and scores the predictions in ``raw`` against a published release; returns
    the scorer's report. Raises ``BadPredictions``."""
    gold = load_gold(release=release, family=family, split=split)
    predictions = read_predictions(family=family, raw=raw, gold=gold)
    report = SCORERS[family].score(gold, predictions, **scorer_context(release=release, family=family))
    if "wups_similarity" in report:  # how WUPS compared words: "exact" without WordNet
        report["per_category"]["wups_similarity"] = report.pop("wups_similarity")
    return report
