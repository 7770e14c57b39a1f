"""WebQA's own files, as its loaders and scorer read them (see FORMATS.md §1):
``WebQA_train_val.json`` and ``WebQA_test.json`` (one JSON object keyed by Guid),
``imgs.tsv`` + ``imgs.lineidx`` (image bytes, base64, one per line, line k holding
image_id 30,000,000 + k), and one answer-key TSV per evaluated split."""

import base64
import hashlib
import json

from ..snapshot import webqa_category
from .answers import answers_of
from .gold import private_path
from .records import image_path

IMAGE_ID_BASE = 30_000_000
KEY_COLUMNS = ["Guid", "Qcate", "Q", "A", "Keywords_A", "Output_conf", "Output"]


def image_id(index):
    return IMAGE_ID_BASE + index


def _image_fact(image, ids):
    return {
        "image_id": ids[image["sha256"]],
        "title": image["title"],
        "caption": image["description"],
        "url": image["url"],
        "imgUrl": image_path(image),
    }


def _text_fact(title, fact, url):
    return {"title": title, "fact": fact, "url": url}


def _cell(value):
    return " ".join(str(value).split())


class WebQAWriter:
    """Streams the WebQA records of train and val into one file, test into another."""

    def __init__(self, files, folder="webqa", *, gold=None, private_test=False):
        self.files = files
        self.folder = folder
        self.gold = gold
        self.private_test = private_test
        self.outputs = {}
        self.keys = {}

    def _object(self, name):
        if name not in self.outputs:
            output = self.files.open(f"{self.folder}/{name}")
            output.write("{")
            self.outputs[name] = [output, True]
        return self.outputs[name]

    def _write(self, name, guid, record):
        entry = self._object(name)
        entry[0].write(("\n" if entry[1] else ",\n") + json.dumps(guid) + ": " + json.dumps(record, ensure_ascii=False))
        entry[1] = False

    def _key_row(self, split, row):
        if split not in self.keys:
            path = f"{self.folder}/webqa_{split}_answer_key.tsv"
            self.keys[split] = self.files.open(private_path(path) if split == "test" and self.private_test else path)
            self.keys[split].write("\t".join(KEY_COLUMNS) + "\n")
        self.keys[split].write("\t".join(_cell(value) for value in row) + "\n")

    def add(self, item, lookup):
        if item["family"] != "webqa":
            return
        source = item["record"]
        guid, split = source["guid"], item["split"]
        ids = lookup.image_ids
        evidence, negatives = source["evidence"], source["negatives"]
        img_pos = [_image_fact(piece["image"], ids) for piece in evidence if piece["type"] == "image"]
        img_neg = [_image_fact(image, ids) for image in negatives["image"]]
        txt_pos = [
            _text_fact(piece["snippet"]["title"], piece["snippet"]["text"], piece["snippet"]["url"])
            if piece["type"] == "snippet"
            else _text_fact("", piece["fact"], piece["url"])
            for piece in evidence
            if piece["type"] in ("snippet", "fact")
        ]
        txt_neg = [_text_fact(s["title"], s["text"], s["url"]) for s in negatives["text"]]
        qcate = webqa_category(source)
        record = {"Guid": guid, "Q": source["question"]}
        if split == "test":
            facts = sorted(txt_pos + txt_neg, key=lambda fact: _mix(guid, fact["title"], fact["fact"]))
            for n, fact in enumerate(facts):
                fact["snippet_id"] = f"{guid}_{n}"  # the positives' dicts get their id here too
            images = sorted(img_pos + img_neg, key=lambda fact: _mix(guid, fact["image_id"]))
            record.update(Qcate=qcate, topic=source["topic"], split="test", img_Facts=images, txt_Facts=facts)
            self._write("WebQA_test.json", guid, record)
        else:
            for n, fact in enumerate(txt_pos + txt_neg):
                fact["snippet_id"] = f"{guid}_{n}"
            record.update(
                A=answers_of(source), Keywords_A=source["keyword_answer"], Qcate=qcate, topic=source["topic"],
                split=split, img_posFacts=img_pos, img_negFacts=img_neg, txt_posFacts=txt_pos, txt_negFacts=txt_neg,
            )  # fmt: skip
            self._write("WebQA_train_val.json", guid, record)
        if split in ("val", "test"):
            answers = json.dumps([_cell(answer) for answer in answers_of(source)], ensure_ascii=False)
            self._key_row(split, [guid, qcate, source["question"], answers, source["keyword_answer"], "[]", "[]"])
            if self.gold is not None:
                sources = [fact["image_id"] for fact in img_pos] + [fact["snippet_id"] for fact in txt_pos]
                gold = {"category": qcate, "keyword_answer": source["keyword_answer"], "answers": answers_of(source),
                        "sources": sources}  # fmt: skip
                self.gold.add("webqa", split, guid, gold)

    def finish(self):
        if not self.outputs:
            return
        for name in ("WebQA_train_val.json", "WebQA_test.json"):
            output, empty = self._object(name)
            output.write("}\n" if empty else "\n}\n")
            self.files.close(output)
        for split in sorted(self.keys):
            self.files.close(self.keys[split])


def _mix(guid, *parts):
    """An order that does not tell positives from negatives, fixed for each record."""
    return hashlib.sha256(":".join(str(part) for part in (guid, *parts)).encode()).hexdigest()


class WebQAImages:
    """``imgs.tsv`` and ``imgs.lineidx``, fed the WebQA images in image-index order."""

    def __init__(self, files, folder="webqa"):
        self.files = files
        self.folder = folder
        self.tsv = None
        self.lineidx = None
        self.expected = 0

    def add(self, index, data):
        if self.tsv is None:
            self.tsv = self.files.open(f"{self.folder}/imgs.tsv")
            self.lineidx = self.files.open(f"{self.folder}/imgs.lineidx")
        if index != self.expected:
            raise ValueError(f"WebQA image {index} arrived out of order (expected {self.expected}).")
        self.expected += 1
        self.lineidx.write(f"{self.tsv.tell()}\n")
        self.tsv.write(f"{image_id(index)}\t".encode() + base64.b64encode(data) + b"\n")

    def finish(self):
        if self.tsv is not None:
            self.files.close(self.tsv)
            self.files.close(self.lineidx)
