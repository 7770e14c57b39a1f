"""Our own records: one JSON Lines file per family and split (``records/<family>/<split>.jsonl``),
images by content hash under ``images/``. For WebQuest pairs this is the WebQuest-style
format (no public loader exists): screens in order with a ``relevant`` flag, a trace's
steps, the question, its accepted answers, the answer type and reasoning types."""

import json

from .answers import answers_of
from .gold import private_path

KINDS = {"single_screen": "single", "multi_screen": "multi", "trace": "trace", "image": "image", "text": "text"}
ANSWER_TYPES = {"integer": "integer", "decimal": "float", "text": "string"}
EXTENSIONS = {"png": "png", "jpeg": "jpg", "webp": "webp"}


def image_path(source):
    """Where a screen's or image's bytes are in the release."""
    return f"images/{source['sha256']}.{EXTENSIONS[source['format']]}"


def _screen(screen, *, relevant):
    return {
        "id": screen["id"], "image": image_path(screen), "url": screen["url"], "title": screen["title"],
        "captured_at": screen["captured_at"], "width": screen["width"], "height": screen["height"],
        "relevant": relevant,
    }  # fmt: skip


def _image(image):
    return {
        "id": image["id"], "image": image_path(image), "title": image["title"], "description": image["description"],
        "url": image["url"], "licence": image["licence"],
    }  # fmt: skip


def _target(target):
    if not target:
        return None
    keys = ("tag", "text", "alt", "label", "role", "href", "bbox", "selector")
    return {key: target.get(key) for key in keys if target.get(key) not in (None, "")}


def record_of(record):
    """The JSON Lines record of a snapshot record."""
    evidence = record["evidence"]
    relevant_steps = {piece["step"] for piece in evidence if piece["type"] == "screen" and piece["step"] is not None}
    if record["steps"]:
        screens = [
            _screen(step["screen"], relevant=step["position"] in relevant_steps)
            for step in record["steps"]
            if step["screen"] is not None
        ]
    else:
        screens = [_screen(piece["screen"], relevant=True) for piece in evidence if piece["type"] == "screen"]
    steps, before = [], None
    for step in record["steps"]:
        steps.append(
            {
                "position": step["position"], "action": step["action"], "target": _target(step["target"]),
                "url_before": before, "url_after": step["url"],
                "screen": step["screen"]["id"] if step["screen"] else None,
            }
        )  # fmt: skip
        before = step["url"]
    negatives = record["negatives"]
    line = {
        "id": record["guid"],
        "family": record["family"],
        "kind": KINDS.get(record["kind"], record["kind"]),
        "category": record["category"],
        "topic": record["topic"],
        "question": record["question"],
        "answers": answers_of(record),
        "keyword_answer": record["keyword_answer"],
        "answer_type": ANSWER_TYPES.get(record["answer_type"], "string"),
        "reasoning_types": record["reasoning_types"],
        "question_category": record["question_category"],
        "screens": screens,
        "steps": steps,
        "images": [_image(piece["image"]) for piece in evidence if piece["type"] == "image"],
        "snippets": [
            {"title": piece["snippet"]["title"], "text": piece["snippet"]["text"], "url": piece["snippet"]["url"]}
            if piece["type"] == "snippet"
            else {"title": "", "text": piece["fact"], "url": piece["url"]}
            for piece in evidence
            if piece["type"] in ("snippet", "fact")
        ],
        "notes": [piece["note"] for piece in evidence],
        "negatives": {
            "images": [_image(image) for image in negatives["image"]],
            "snippets": [{"title": s["title"], "text": s["text"], "url": s["url"]} for s in negatives["text"]],
            "screens": [_screen(screen, relevant=False) for screen in negatives["screen"]],
        },
        # Who wrote the question: a person, or a generator (with its version and prompt).
        "source": record.get("source", "human"),
    }
    if record.get("generator"):
        line["generator"] = record["generator"]
    if record.get("episode"):
        line["episode"] = {key: record["episode"][key] for key in ("website", "path", "description")}
    return line


def without_answers(record):
    """A test record as the public download has it when the test answers stay private."""
    return {**record, "answers": [], "keyword_answer": ""}


class RecordsWriter:
    """Writes every item to ``records/<family>/<split>.jsonl``, files opened as needed.

    With ``private_test``, test records go out without their answers, and whole into the
    evaluation set (``evaluation/records/…``). WebQuest items of val and test also give
    their gold to ``gold`` (a ``GoldWriter``), when one is given."""

    def __init__(self, files, *, gold=None, private_test=False):
        self.files = files
        self.gold = gold
        self.private_test = private_test
        self.outputs = {}

    def _write(self, path, record):
        if path not in self.outputs:
            self.outputs[path] = self.files.open(path)
        self.outputs[path].write(json.dumps(record, ensure_ascii=False) + "\n")

    def add(self, item, lookup):
        family, split = item["family"], item["split"]
        record = record_of(item["record"])
        path = f"records/{family}/{split}.jsonl"
        if split == "test" and self.private_test:
            self._write(path, without_answers(record))
            self._write(private_path(path), record)
        else:
            self._write(path, record)
        if self.gold is not None and family == "webquest":
            gold = {key: record[key] for key in ("answers", "reasoning_types", "kind")}
            gold["answer_type"] = item["record"]["answer_type"]  # integer, decimal or text
            self.gold.add(family, split, record["id"], gold)

    def finish(self):
        for path in sorted(self.outputs):
            self.files.close(self.outputs[path])
