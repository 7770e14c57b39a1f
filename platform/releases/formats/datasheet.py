"""The release's own description: ``README.md`` (a datasheet in the papers' style) and
``manifest.json`` (what is in it, down to every file's size and SHA-256)."""

import json

FAMILY_NAMES = {"webquest": "WebQuest", "webqa": "WebQA", "webvln": "WebVLN"}


def manifest(*, release, counts, files):
    return {
        "name": release.name,
        "version": release.version,
        "created": release.snapshot_at.isoformat(),
        "parent": release.parent.version if release.parent_id else None,
        "filters": {
            "families": sorted(release.families),
            "qa_states": sorted(release.qa_states),
            "split_strategy": release.split_strategy,
            "webvln_setting": release.webvln_setting,
            "seed": release.seed,
            "percents": {"train": release.train_percent, "val": release.val_percent, "test": release.test_percent},
        },
        # Files under evaluation/ are the evaluation set: gold answers for scoring, and the
        # test split's answers when they are not public. Each file entry says its set.
        "test_answers": "public" if release.test_answers_public else "evaluation set only",
        "counts": counts,
        "files": files,
    }


def _test_answers(release):
    if release.test_answers_public:
        return "This release publishes its test answers: the whole evaluation set is public."
    return (
        "The test split's answers are kept for evaluation: `records/<family>/test.jsonl` has empty\n"
        f"  `answers` and `keyword_answer`, `webvln/{release.webvln_setting}/test.json` asks each question without its\n"
        "  answer, and the full files (with `webqa/webqa_test_answer_key.tsv`) are under `evaluation/`,\n"
        "  which only the platform's admins download."
    )


WEBVLN_SETTINGS = {
    "seen": "seen: every website appears in train, val and test, each episode in one split (WebVLN-v1's "
    "protocol); the map and the pages are shared by all three",
    "unseen": "unseen: each website is wholly in one split, so val and test run on websites never seen in training",
}


def _webvln(release, counts):
    if "webvln" not in release.families:
        return ""
    found = counts.get("webvln") or {}
    return (
        f"\nWebVLN setting: {WEBVLN_SETTINGS[release.webvln_setting]}. "
        f"{found.get('websites', 0)} websites, {found.get('episodes', 0)} episodes; an episode's path is the "
        "shortest path from the website's homepage to its target page, at least two clicks long, over the "
        "graph of pages recorded on that website, and every episode was checked by two assessors (path, "
        "answer, description).\n"
    )


def _generated(counts):
    found = counts.get("generated")
    if not found:
        return "\nEvery question in this release was written by a person (`source: human`).\n"
    lines = [
        f"\n{found['pairs']} questions were written by a generator from the pages' text (`source: generated`, "
        "with the generator's name, version and prompt version in each record) and checked as WebVLN did: "
        "assessors checked a sample of each website's candidates, and the rest of a website's candidates were "
        "accepted only when its sample's acceptance reached the run's threshold; otherwise each was checked.\n",
        "| run | generator | website | candidates | sample | accepted | rejected | decision |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in found["samples"]:
        lines.append(f"| {s['run']} | {s['generator']} | {s['site']} | {s['candidates']} | {s['sample']} | "
                     f"{s['accepted']} | {s['rejected']} | {s['decision']} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def _screening(counts):
    changed = counts.get("text_screening") or {}
    if not changed:
        return "Nothing had to be changed in this release."
    return (
        "Changes made in this release: "
        + ", ".join(f"{change.replace('_', ' ')} {n}" for change, n in sorted(changed.items()))
        + "."
    )


def _table(counts):
    families = sorted({family for split in counts["splits"].values() for family in split})
    lines = ["| split | " + " | ".join(FAMILY_NAMES.get(f, f) for f in families) + " | total |"]
    lines.append("|---" * (len(families) + 2) + "|")
    for split in ("train", "val", "test"):
        row = counts["splits"].get(split, {})
        lines.append(f"| {split} | " + " | ".join(str(row.get(f, 0)) for f in families) + f" | {sum(row.values())} |")
    return "\n".join(lines)


# Why a selected pair was left out, as the snapshot and the splits name it.
EXCLUSIONS = {
    "uncleared_evidence": "a screenshot or image it cites was not cleared by a reviewer",
    "no_evidence": "it cites no evidence",
    "webvln_without_episode": "a navigation question without its episode",
    "episode_target_unreachable": "its target page cannot be reached from the website's homepage in the recorded graph",
    "evidence_does_not_fit_webqa": "its evidence has a shape WebQA's format cannot hold",
    "missing_keyword_answer": "no keyword answer for WebQA's scorer",
    "keyword_outside_answer_domain": "a closed-class keyword answer outside WebQA's scorer's answer domain",
    "test_references_disagree": "its reference answers agree too little to score against",
    "closed_class_answer_in_other_split": "its closed-class answer belongs to another split (adversarial split)",
}

FAMILY_INSTANCES = {
    "webquest": "a question over one screenshot, three to five screenshots, or a recorded browsing trace, with "
    "its accepted answers, answer type and reasoning types; the screens it needs are marked relevant",
    "webqa": "a question over one or two images or two text snippets, with hard negatives (similar images and "
    "snippets that do not answer it), in WebQA's format as well as ours",
    "webvln": "a question about a page of a recorded website, with the shortest path of clicks from the "
    "homepage to that page (an episode) and its answer",
}


def _excluded(counts):
    excluded = counts.get("excluded") or {}
    if not excluded:
        return "- none"
    return "\n".join(
        f"- {reason.replace('_', ' ')} ({EXCLUSIONS[reason]}): {n}" if reason in EXCLUSIONS
        else f"- {reason.replace('_', ' ')}: {n}"
        for reason, n in sorted(excluded.items())
    )  # fmt: skip


def _agreement(counts):
    agreement = counts.get("agreement")
    if not agreement:
        return "No validation agreement was recorded for this release's families."
    lines = [
        "Agreement between validators, Krippendorff's alpha (nominal: accept or reject) over every QA pair of the "
        "family that two or more validators had judged by the snapshot, accepted or not:",
        "",
        "| family | alpha | observed agreement | pairs | judgements | validators |",
        "|---|---|---|---|---|---|",
    ]
    for family, found in sorted(agreement.items()):
        alpha = "n/a (every verdict the same)" if found["alpha"] is None else f"{found['alpha']:.3f}"
        observed = "n/a" if found["observed"] is None else f"{found['observed']:.3f}"
        lines.append(f"| {FAMILY_NAMES.get(family, family)} | {alpha} | {observed} | {found['pairs']} | "
                     f"{found['judgements']} | {found['validators']} |")  # fmt: skip
    return "\n".join(lines)


def _raters(counts):
    authors = counts.get("authors", 0)
    text = f"Rater pool: {authors} question writer{'' if authors == 1 else 's'} contributed to this release"
    if counts.get("agreement"):
        text += "; the validation table below says how many validators judged each family"
    return text + "."


def _composition(release, counts):
    families = sorted(release.families)
    by_family = counts.get("families") or {}
    lines = []
    for family in families:
        n = by_family.get(family, 0)
        lines.append(f"- {FAMILY_NAMES.get(family, family)} ({n} pair{'' if n == 1 else 's'}): "
                     f"{FAMILY_INSTANCES.get(family, 'a QA pair')}.")  # fmt: skip
    return "\n".join(lines)


def _configs(counts):
    """Hugging Face ``datasets`` configs: one per family, its non-empty splits' files."""
    families = sorted(counts.get("families") or {})
    lines = ["configs:"] if families else []
    for family in families:
        splits = [split for split in ("train", "val", "test") if counts["splits"].get(split, {}).get(family)]
        lines += [f"- config_name: {family}", "  data_files:"]
        lines += [f"  - split: {split}\n    path: records/{family}/{split}.jsonl" for split in splits]
    return lines


def _size_category(items):
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if items < limit:
            return label
    return "1M<n<10M"


def front_matter(*, release, counts):
    """The YAML header of ``README.md`` that the Hugging Face Hub and ``datasets`` read:
    ``load_dataset(<release folder>, "<family>")`` loads that family's records by split.
    Written by hand (JSON strings are YAML scalars), so building needs no YAML library."""
    lines = [
        "---",
        f"pretty_name: {json.dumps(f'{release.name} {release.version}')}",
        "license: other",
        f"license_name: {json.dumps('see-datasheet')}",
        "license_link: README.md",
        "task_categories:",
        "- question-answering",
        "- visual-question-answering",
        "tags:",
        "- web",
        *[f"- {family}" for family in sorted(counts.get("families") or {})],
        "size_categories:",
        f"- {_size_category(counts.get('items', 0))}",
        *_configs(counts),
        "---",
        "",
    ]
    return "\n".join(lines)


def readme(*, release, counts):
    licences = ", ".join(counts.get("licences") or []) or "none recorded"
    parent = release.parent.version if release.parent_id else "none"
    families = ", ".join(FAMILY_NAMES.get(f, f) for f in sorted(release.families))
    return f"""# {release.name} {release.version}

A release of Trailmark: multimodal question answering over web pages, images and text.
Snapshot taken {release.snapshot_at:%Y-%m-%d %H:%M} UTC. Parent version: {parent}.

{release.notes.strip() or "No release notes."}

This datasheet follows the questions of "Datasheets for Datasets" (Gebru et al.): motivation,
composition, collection process, preprocessing and labelling, uses, distribution and maintenance.

## Motivation

Trailmark collects question answering data that needs a web page, an image or a text to be
answered and reasoning over it (arithmetic, comparison, counting, filtering), in three
families: WebQuest-style questions over screenshots and browsing traces, WebQA-style
questions over images and text with hard negatives, and WebVLN-style navigation questions on
recorded websites. Releases exist so that models can be trained and compared on fixed,
versioned data. The data was made on the Trailmark platform by its raters, validators and
reviewers; this datasheet does not record who funded the work.

## Composition

{_table(counts)}

{counts.get("items", 0)} QA pairs in all, of {counts.get("selected", 0)} selected. Families: {families}. An instance is:

{_composition(release, counts)}

QA pair states included: {", ".join(sorted(release.qa_states))}. Split strategy: {release.split_strategy}
(seed {release.seed}; {release.train_percent} / {release.val_percent} / {release.test_percent} percent
train / val / test). A trace, a six-image group or a screenshot never spans two splits.
{_webvln(release, counts)}
Screenshots show third-party websites as raters saw them; every image was checked for
personal data and unsafe content before release (see below), and questions are about what the
pages show, not about people.

### Files

- `records/<family>/<split>.jsonl`: every QA pair, one JSON object per line: `id`, `family`,
  `kind` (single, multi, trace, image, text), `category`, `question`, `answers` (the
  author's, then any reference answers validators wrote), `answer_type` (integer, float, string), `reasoning_types`, `screens` (in order: `id`,
  `image` path, `url`, `title`, `captured_at`, `relevant`), for traces the `steps` (action,
  target element, `url_before`, `url_after`), for image and text questions `images`,
  `snippets`, `keyword_answer`, `question_category`, and mined `negatives`. The WebQuest
  pairs' file is the WebQuest-style format. Load with `pandas.read_json(path, lines=True)`
  or `datasets.load_dataset("<this folder>", "<family>")` (the header of this file names
  each family's files by split).
- `images/<sha256>.<ext>`: every screenshot and image, named by the SHA-256 of its bytes.
- `webqa/` (when the release has WebQA pairs): `WebQA_train_val.json`, `WebQA_test.json`,
  `imgs.tsv` + `imgs.lineidx` (image_id 30,000,000 + line number) and answer keys
  `webqa_<split>_answer_key.tsv` for WebQA's accuracy scorer. `imgUrl` is the image's path
  in this release.
- `webvln/` (when the release has WebVLN pairs): `map.json` (every page of every website with
  its buttons and where they lead), `shortest_paths.json`, `pages.json` (each page id's
  screenshot under `images/`, with its URL, title and size: full-page where the recording
  asked for it), `{release.webvln_setting}/{{train,val,test}}.json` (the episodes) and each button cut from
  its page's screenshot in `imgs/<clickable_id>.png`. An episode's `target` is the
  description of the target page its author wrote.
- `diff.json` (when there is a parent): QA pair ids added, removed and changed per split.
- `croissant.json`: this release in MLCommons Croissant (JSON-LD): its files with their
  SHA-256 and each family's records as a record set, for `mlcroissant` and other readers.
- `manifest.json`: counts, the filters used, and every file with its size, SHA-256 and
  set (`public` or `evaluation`).
- `evaluation/` (the evaluation set): `gold/<family>/<split>.jsonl`, what the scorers read.
  {_test_answers(release)}

## Collection process

### How it was collected

Raters browse a curated list of popular sites by category and capture one screen, three to
five screens, or a whole browsing trace with the Trailmark Chrome extension (they can pause,
review and delete screens before upload), then write questions that need reasoning
(arithmetic, comparison, counting, filtering) across them. Image and text questions are
written over pools of images with descriptions and text snippets. Navigation questions are
written on websites whose pages raters recorded. {_raters(counts)}
{_generated(counts)}
## Preprocessing, cleaning and labelling

### Review of images

Every screenshot and image is pre-screened for personal data and unsafe content (OCR and
detectors) and then cleared, redacted or rejected by a reviewer. Only cleared assets are in
this release: pairs whose evidence was not cleared are left out, and other uncleared screens
of a trace are omitted (the step keeps `screen: null`).

### Review of texts

Texts are checked with the same detectors: page titles, addresses, clicked elements and
buttons as they are recorded (reviewers see the findings beside the picture's and can mask
them), pool texts as they are imported, and every text of this release again when it was
taken: what was found is masked as `[…]`, a step whose screenshot is not shipped keeps no
texts, and addresses lose their query strings and fragments (unless their site's catalogue
entry keeps them). Stored page HTML is never released. {_screening(counts)}

### Validation

Every QA pair is judged by two validators (is the answer right, does it follow the
guidelines, is every cited source needed); when they disagree a third decides, and the
majority accepts or rejects the pair.

{_agreement(counts)}

### What was left out, and why

Pairs selected but left out:
{_excluded(counts)}

### Answers

Only test candidates get reference answers (full sentences by up to five other raters);
other pairs have their author's answer alone. WebQA's `A` lists the author's answer, then
the reference answers; `Keywords_A` is the author's keyword answer, else the one a reference
writer gave. The raw captures (unreviewed screenshots, rejected pairs) are not distributed.

## Uses

The release is meant for training and evaluating question answering and web navigation
models. It should not be used to identify or profile people, nor to republish the
screenshots of websites outside research.

### Evaluation

Score predictions for the val or test split with each family's own metric on the
platform (`POST /api/v1/releases/<id>/evaluations/`, the release's evaluation page, or
`manage.py evaluate`): WebQuest relaxed accuracy, WebQA accuracy per question category and
source F1, WebVLN SR, OSR, SPL, TL and WUPS. See the platform's `docs/evaluation.md`.

### Known limitations

- WebVLN graphs only contain pages and links the traces recorded; a target unreachable
  from the site's home page in that graph is left out of the episodes.
- Splits keep a trace, a six-image group, a site's navigation graph or a screenshot in one
  split; two different traces of the same pages may still land in different splits.
- Websites change: a screenshot shows a page as it was when it was captured.

## Distribution

Signed-in users of the platform download the release's files (`GET /api/v1/releases/<id>/files/<path>`);
`manifest.json` lists each with its size and SHA-256.

### Licences

Image licences recorded: {licences}. Screenshots of third-party websites are included for
research use; the sites' own terms apply to their content.

## Maintenance

The platform's admins maintain the dataset. A release never changes once published: a
correction or an addition is a new version, whose `diff.json` names the pairs added, removed
and changed against its parent, and published versions stay available. Rebuilding a release
from its snapshot gives the same files, byte for byte.
"""
