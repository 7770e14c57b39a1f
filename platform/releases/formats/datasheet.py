"""The release's own description: ``README.md`` (a datasheet in the papers' style) and
``manifest.json`` (what is in it, down to every file's size and SHA-256)."""

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


def _table(counts):
    families = sorted({family for split in counts["splits"].values() for family in split})
    lines = ["| split | " + " | ".join(FAMILY_NAMES.get(f, f) for f in families) + " | total |"]
    lines.append("|---" * (len(families) + 2) + "|")
    for split in ("train", "val", "test"):
        row = counts["splits"].get(split, {})
        lines.append(f"| {split} | " + " | ".join(str(row.get(f, 0)) for f in families) + f" | {sum(row.values())} |")
    return "\n".join(lines)


def readme(*, release, counts):
    excluded = counts.get("excluded") or {}
    excluded_lines = (
        "\n".join(f"- {reason.replace('_', ' ')}: {n}" for reason, n in sorted(excluded.items())) or "- none"
    )
    licences = ", ".join(counts.get("licences") or []) or "none recorded"
    parent = release.parent.version if release.parent_id else "none"
    return f"""# {release.name} {release.version}

A release of Trailmark: multimodal question answering over web pages, images and text.
Snapshot taken {release.snapshot_at:%Y-%m-%d %H:%M} UTC. Parent version: {parent}.

{release.notes.strip() or "No release notes."}

## What is in it

{_table(counts)}

Families: {", ".join(FAMILY_NAMES.get(f, f) for f in sorted(release.families))}. QA pair states included:
{", ".join(sorted(release.qa_states))}. Split strategy: {release.split_strategy} (seed {release.seed};
{release.train_percent} / {release.val_percent} / {release.test_percent} percent train / val / test).
{_webvln(release, counts)}{_generated(counts)}
## Files

- `records/<family>/<split>.jsonl`: every QA pair, one JSON object per line: `id`, `family`,
  `kind` (single, multi, trace, image, text), `category`, `question`, `answers` (the
  author's, then any reference answers validators wrote), `answer_type` (integer, float, string), `reasoning_types`, `screens` (in order: `id`,
  `image` path, `url`, `title`, `captured_at`, `relevant`), for traces the `steps` (action,
  target element, `url_before`, `url_after`), for image and text questions `images`,
  `snippets`, `keyword_answer`, `question_category`, and mined `negatives`. The WebQuest
  pairs' file is the WebQuest-style format. Load with `pandas.read_json(path, lines=True)`
  or `datasets.load_dataset("json", data_files=...)`.
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
- `manifest.json`: counts, the filters used, and every file with its size, SHA-256 and
  set (`public` or `evaluation`).
- `evaluation/` (the evaluation set): `gold/<family>/<split>.jsonl`, what the scorers read.
  {_test_answers(release)}

## Evaluation

Score predictions for the val or test split with each family's own metric on the
platform (`POST /api/v1/releases/<id>/evaluations/`, the release's evaluation page, or
`manage.py evaluate`): WebQuest relaxed accuracy, WebQA accuracy per question category and
source F1, WebVLN SR, OSR, SPL, TL and WUPS. See the platform's `docs/evaluation.md`.

## How it was collected

Raters browse a curated list of popular sites by category and capture one screen, three to
five screens, or a whole browsing trace with the Trailmark Chrome extension (they can pause,
review and delete screens before upload), then write questions that need reasoning
(arithmetic, comparison, counting, filtering) across them. Image and text questions are
written over pools of images with descriptions and text snippets. Every pair is validated
by other raters before it is accepted. Rater pool: {counts.get("authors", 0)} authors
contributed to this release.

## Review

Every screenshot and image is pre-screened for personal data and unsafe content (OCR and
detectors) and then cleared, redacted or rejected by a reviewer. Only cleared assets are in
this release: pairs whose evidence was not cleared are left out, and other uncleared screens
of a trace are omitted (the step keeps `screen: null`).

Pairs selected but left out:
{excluded_lines}

## Licences

Image licences recorded: {licences}. Screenshots of third-party websites are included for
research use; the sites' own terms apply to their content.

## Known limitations

- Only test candidates get reference answers (full sentences by up to five other raters);
  other pairs have their author's answer alone. WebQA's `A` lists the author's answer, then
  the reference answers; `Keywords_A` is the author's keyword answer, else the one a
  reference writer gave.
- WebVLN graphs only contain pages and links the traces recorded; a target unreachable
  from the site's home page in that graph is left out of the episodes.
- Splits keep a trace, a six-image group, a site's navigation graph or a screenshot in one
  split; two different traces of the same pages may still land in different splits.
"""
