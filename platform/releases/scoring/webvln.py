"""WebVLN's navigation and answer metrics, computed the way WebVLN's own evaluator does.

The reference is the evaluator published with the paper (``r2r_src/eval.py`` and
``r2r_src/calculate_wups.py`` of the WebVLN repository). Where it departs from the
textbook R2R definitions, this module follows the evaluator, so that numbers on our
releases compare with the paper's:

- **SR**: an episode succeeds when the trajectory's last page is the target page (the gold
  path's last page). No distance threshold: pages are not places in space.
- **OSR**: the target page is anywhere on the trajectory.
- **SPL**: on success, ``len(gold path) / max(len(gold path), len(trajectory))``, both
  counted in *pages* (start included), not in clicks; 0 on failure. The gold path is the
  episode's own ``path``; ``shortest_paths.json`` plays no part (the evaluator loads it and
  never consults it when scoring), which is why ``shortest_paths`` is accepted here and not used.
- **TL**: the number of pages on the trajectory, start and revisits included, averaged
  over the items that have a prediction.
- **WUPS@0.9 / WUPS@0.0**: scored only when navigation succeeded (0 otherwise). The
  evaluator hands the two answer *strings* to a scorer written for lists of answers, so it
  walks them side by side one character at a time, stopping at the shorter one, and
  averages a Malinowski–Fritz WUPS score over those character pairs. This module does the
  same, quirks included: an answer that is a prefix of the gold answer scores 1.0, and case
  matters unless the word similarity says otherwise.

Wu-Palmer similarity needs WordNet, which is not a Python standard library and not on
this machine. ``word_similarity(a, b) -> float`` can supply it; without one, two units are
similar only when equal (1.0, else 0.0) and the report says ``"wups_similarity":
"exact"``. With exact similarity WUPS@0.9 and WUPS@0.0 coincide: the fraction of aligned
character positions that hold the same character (commas and blanks all count as empty
units, so they match each other).

Missing predictions score 0 on every rate and do not count towards TL, as
``releases.scoring`` asks (the evaluator instead skips them in every average).
"""

from collections import defaultdict

WUPS_THRESHOLDS = {"wups_0.9": 0.9, "wups_0.0": 0.0}
# Below the threshold a similarity counts for a tenth, as in Malinowski and Fritz (2014).
BELOW_THRESHOLD_WEIGHT = 0.1
RATES = ("sr", "osr", "spl")


def score(items, predictions, *, shortest_paths=None, word_similarity=None):
    """Score WebVLN trajectories and answers against the gold episodes.

    ``items``: ``{idx: {"path": [urlID, ...], "answer": str}}``, the path running from the
    site's homepage to the target page. ``predictions``: ``{idx: {"trajectory": [urlID,
    ...], "answer": str}}``. A trajectory must start on its path's first page, as the
    evaluator requires; one that does not is refused with ``ValueError``.
    ``shortest_paths`` (as in ``shortest_paths.json``) is accepted for callers that pass
    the release's files along and is not used: the published metrics need no distances.
    """
    similarity = _cached(word_similarity)
    totals = defaultdict(float)
    sites = defaultdict(lambda: defaultdict(float))
    pair_scores = {}
    trajectory_pages = 0
    predicted = 0
    for idx, item in items.items():
        path = item["path"]
        site = sites[_website(path[0])]
        site["count"] += 1
        prediction = predictions.get(idx)
        if prediction is None:
            continue
        trajectory = prediction["trajectory"]
        if not trajectory or trajectory[0] != path[0]:
            raise ValueError(
                f"Prediction {idx!r}: the trajectory must start on the path's first page {path[0]!r}; "
                "include the start page as the first entry."
            )
        predicted += 1
        trajectory_pages += len(trajectory)
        goal = path[-1]
        outcome = {"sr": 0.0, "osr": float(goal in trajectory), "spl": 0.0}
        if trajectory[-1] == goal:
            outcome["sr"] = 1.0
            outcome["spl"] = len(path) / max(len(path), len(trajectory))
            answers = _answer_wups(item["answer"], prediction.get("answer") or "", similarity, pair_scores)
            for name, value in answers.items():
                totals[name] += value
        for name in RATES:
            totals[name] += outcome[name]
            site[name] += outcome[name]
    count = len(items)
    metrics = {name: None for name in (*RATES, "tl", *WUPS_THRESHOLDS)}
    if count:
        metrics.update({name: totals[name] / count for name in (*RATES, *WUPS_THRESHOLDS)})
        metrics["tl"] = trajectory_pages / predicted if predicted else None
    websites = {
        website: {**{name: site[name] / site["count"] for name in RATES}, "count": int(site["count"])}
        for website, site in sorted(sites.items())
    }
    return {
        "metrics": metrics,
        "per_category": {"website": websites},
        "missing": count - predicted,
        "count": count,
        "wups_similarity": "exact" if word_similarity is None else "supplied",
    }


def wups(gold, predicted, *, threshold, word_similarity=None):
    """One answer's WUPS at ``threshold``, walking the two strings character by character.

    Each aligned pair of characters is scored as a pair of answer sets, and the pairs'
    scores are averaged. Empty answers leave nothing to align and score 0 (the evaluator
    divides by zero there).
    """
    return _wups_at(gold, predicted, threshold, _cached(word_similarity), {})


def _answer_wups(gold, predicted, similarity, pair_scores):
    return {
        name: _wups_at(gold, predicted, threshold, similarity, pair_scores)
        for name, threshold in WUPS_THRESHOLDS.items()
    }


def _wups_at(gold, predicted, threshold, similarity, pair_scores):
    total = 0.0
    aligned = 0
    for pair in zip(gold, predicted, strict=False):
        key = (threshold, *pair)
        if key not in pair_scores:
            pair_scores[key] = _set_score(_units(pair[0]), _units(pair[1]), threshold, similarity)
        total += pair_scores[key]
        aligned += 1
    return total / aligned if aligned else 0.0


def _units(text):
    """The answer items of one character: the evaluator splits on commas and strips blanks,
    so a comma becomes two empty items and a blank one."""
    return [piece.strip() for piece in text.split(",")]


def _set_score(gold_units, predicted_units, threshold, similarity):
    """Malinowski–Fritz set score: the lower of how well each side is covered by the other,
    where coverage is the product over one side of its best match on the other."""

    def coverage(units, others):
        product = 1.0
        for unit in units:
            product *= max(_membership(unit, other, threshold, similarity) for other in others)
        return product

    return min(coverage(gold_units, predicted_units), coverage(predicted_units, gold_units))


def _membership(a, b, threshold, similarity):
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    value = similarity(a, b)
    return value if value >= threshold else value * BELOW_THRESHOLD_WEIGHT


def _exact(a, b):
    return 1.0 if a == b else 0.0


def _cached(word_similarity):
    if word_similarity is None:
        return _exact
    known = {}

    def similarity(a, b):
        if (a, b) not in known:
            known[(a, b)] = float(word_similarity(a, b))
        return known[(a, b)]

    return similarity


def _website(url_id):
    """A urlID is ``<websiteID>_<n>``; the website is the part before the underscore."""
    return url_id.split("_", 1)[0]
