"""The gold the scorers read: ``evaluation/gold/<family>/<split>.jsonl`` for val and test,
one line per item, ``{"id": …, …}`` in the shape ``releases.scoring.<family>.score``
takes. It is part of the evaluation set (under ``evaluation/``): private, with the test
answers, unless the release publishes its test answers."""

import json

from ..models import EVALUATION_FOLDER

SCORED_SPLITS = ("val", "test")


def gold_path(family, split):
    return f"{EVALUATION_FOLDER}gold/{family}/{split}.jsonl"


def private_path(path):
    """Where a public file's full version (with the test answers) goes in the evaluation set."""
    return f"{EVALUATION_FOLDER}{path}"


class GoldWriter:
    def __init__(self, files):
        self.files = files
        self.outputs = {}

    def add(self, family, split, item_id, gold):
        if split not in SCORED_SPLITS:
            return
        key = (family, split)
        if key not in self.outputs:
            self.outputs[key] = self.files.open(gold_path(family, split))
        self.outputs[key].write(json.dumps({"id": item_id, **gold}, ensure_ascii=False, sort_keys=True) + "\n")

    def finish(self):
        for key in sorted(self.outputs):
            self.files.close(self.outputs[key])
