"""``croissant.json``: the release described in MLCommons Croissant 1.0 (JSON-LD), so
that tools which read Croissant (``mlcroissant``, dataset search engines, loaders) find
its files and read its records without knowing our layout.

It lists each public data file with its SHA-256 (``cr:FileObject``), the images and the
WebVLN button crops by pattern (``cr:FileSet``), and one ``cr:RecordSet`` per family
whose fields are read from ``records/<family>/<split>.jsonl``, the split from the file's
name. Written from the snapshot alone, so a rebuild writes the same bytes.
"""

import json

from .datasheet import FAMILY_NAMES
from .gold import private_path

CONFORMS_TO = "http://mlcommons.org/croissant/1.0"

# The standard @context of Croissant 1.0 (as in the specification's examples).
CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}

ENCODINGS = {
    ".jsonl": "application/jsonlines",
    ".json": "application/json",
    ".tsv": "text/tab-separated-values",
    ".lineidx": "text/plain",
}
BUTTONS = "webvln/imgs/"
IMAGE_ENCODINGS = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}

# (column, description, repeated): the columns every line of records/ has.
RECORD_FIELDS = (
    ("id", "The QA pair's id, the same in every version of the dataset.", False),
    ("question", "The question.", False),
    ("answers", "Accepted answers: the author's, then validators' variants and reference answers "
     "(empty in the test split when its answers are kept for evaluation).", True),
    ("keyword_answer", "The short answer WebQA's scorer compares (WebQA pairs).", False),
    ("answer_type", "integer, float or string.", False),
    ("kind", "single, multi, trace, image, text or navigation.", False),
    ("category", "The website category the question was written in.", False),
    ("question_category", "WebQA's question category (color, shape, number, YesNo, Others, choose).", False),
    ("reasoning_types", "Reasoning the question needs (arithmetic, comparison, counting, ...).", True),
    ("source", "human, or generated (by a generator checked by assessors).", False),
)  # fmt: skip
# (name, key inside the record's ``episode``, description, repeated): WebVLN only.
EPISODE_FIELDS = (
    ("website", "website", "The website the episode runs on.", False),
    ("path", "path", "The pages from the homepage to the target, in order.", True),
    ("target_description", "description", "The author's description of the target page.", False),
)


def _encoding(path):
    return next((kind for suffix, kind in ENCODINGS.items() if path.endswith(suffix)), "application/octet-stream")


def _listed_one_by_one(path):
    """Public data files; the evaluation set is for the scorers, and the button crops
    (many small files) are a ``cr:FileSet``."""
    return not path.startswith((private_path(""), BUTTONS)) and path not in ("README.md", "manifest.json")


def _file_object(entry):
    path = entry["path"]
    return {
        "@type": "cr:FileObject",
        "@id": path,
        "name": path,
        "contentUrl": path,
        "contentSize": f"{entry['size']} B",
        "encodingFormat": _encoding(path),
        "sha256": entry["sha256"],
    }


def _field(record_set, name, description, *, source, repeated=False):
    field = {
        "@type": "cr:Field",
        "@id": f"{record_set}/{name}",
        "name": name,
        "description": description,
        "dataType": "sc:Text",
        "source": source,
    }
    if repeated:
        field["repeated"] = True
    return field


def _record_set(family):
    files = {"fileSet": {"@id": f"records-{family}"}}
    fields = [
        _field(family, "split", "train, val or test: the file the record is in.",
               source={**files, "extract": {"fileProperty": "filename"},
                       "transform": {"regex": r"^(train|val|test)\.jsonl$"}}),
    ]  # fmt: skip
    for column, description, repeated in RECORD_FIELDS:
        source = {**files, "extract": {"column": column}}
        fields.append(_field(family, column, description, source=source, repeated=repeated))
    if family == "webvln":
        for name, key, description, repeated in EPISODE_FIELDS:
            source = {**files, "extract": {"column": "episode"}, "transform": {"jsonPath": key}}
            fields.append(_field(family, name, description, source=source, repeated=repeated))
    return {
        "@type": "cr:RecordSet",
        "@id": family,
        "name": family,
        "description": f"{FAMILY_NAMES.get(family, family)} QA pairs, one record per line of "
        f"records/{family}/<split>.jsonl.",
        "key": {"@id": f"{family}/id"},
        "field": fields,
    }


def _cite_as(release):
    key = f"trailmark_{release.name}_{release.version}".replace("-", "_").replace(".", "_")
    return (
        f"@misc{{{key},\n  title = {{{release.name} {release.version}: a Trailmark dataset release}},\n"
        f"  author = {{{{Trailmark}}}},\n  year = {{{release.snapshot_at:%Y}}},\n"
        f"  note = {{Snapshot of {release.snapshot_at:%Y-%m-%d}}}\n}}"
    )


def _licences(counts):
    recorded = list(counts.get("licences") or [])
    # Screenshots carry no licence of ours: the websites' own terms apply to what they show.
    return [*recorded, "Screenshots of third-party websites: research use; each website's own terms apply."]


def croissant(*, release, counts, files, image_formats):
    """The JSON-LD text. ``files``: the release's non-image files written so far (path, size,
    SHA-256); ``image_formats``: the extensions of its files under ``images/``."""
    families = sorted(counts.get("families") or {})
    paths = sorted(entry["path"] for entry in files)
    by_path = {entry["path"]: entry for entry in files}
    distribution = [_file_object(by_path[path]) for path in paths if _listed_one_by_one(path)]
    for family in families:
        distribution.append({
            "@type": "cr:FileSet",
            "@id": f"records-{family}",
            "name": f"records-{family}",
            "description": f"The {FAMILY_NAMES.get(family, family)} records, one file per split.",
            "encodingFormat": "application/jsonlines",
            "includes": f"records/{family}/*.jsonl",
        })  # fmt: skip
    if image_formats:
        distribution.append({
            "@type": "cr:FileSet",
            "@id": "images",
            "name": "images",
            "description": "Every screenshot and image, named by the SHA-256 of its bytes.",
            "encodingFormat": [IMAGE_ENCODINGS[ext] for ext in sorted(image_formats)],
            "includes": [f"images/*.{ext}" for ext in sorted(image_formats)],
        })  # fmt: skip
    if any(path.startswith(BUTTONS) for path in paths):
        distribution.append({
            "@type": "cr:FileSet",
            "@id": "webvln-buttons",
            "name": "webvln-buttons",
            "description": "Each WebVLN button cut from its page's screenshot, named by its clickable id.",
            "encodingFormat": "image/png",
            "includes": f"{BUTTONS}*.png",
        })  # fmt: skip
    names = ", ".join(FAMILY_NAMES.get(family, family) for family in families) or "no families"
    document = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": f"{release.name}",
        "alternateName": f"{release.name} {release.version}",
        "description": (
            f"A release of Trailmark: question answering over web pages, images and text ({names}); "
            f"{counts.get('items', 0)} QA pairs split into train, val and test. "
            "README.md is its datasheet."
        ),
        "version": release.version,
        "dateCreated": release.snapshot_at.isoformat(),
        "url": f"/releases/{release.pk}/",
        "license": _licences(counts),
        "creator": {"@type": "sc:Organization", "name": "Trailmark"},
        "citeAs": _cite_as(release),
        "keywords": ["question answering", "web pages", "multimodal", *[FAMILY_NAMES.get(f, f) for f in families]],
        "isLiveDataset": False,
        "distribution": distribution,
        "recordSet": [_record_set(family) for family in families],
    }
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"
