"""Deterministic train / val / test splits.

A split is a function of the seed and an item's *group key* (``snapshot._group_key``):
everything that shares a trace, a six-image group or a screenshot shares a key, so it can never straddle two splits. The hash of seed and key
decides, so the same snapshot and seed always split the same way, with no state kept.

The adversarial strategy (WebQA's, for ``color``, ``shape`` and ``number`` questions)
splits those questions by their keyword answer instead: the answer values of each class,
most common first, fill train up to its share; the rarer values go to val and test. So
the answers a model sees most in train never appear in test. A six-image group follows its
first closed-class question, keeping its images in one split.

WebVLN episodes are dealt out per website (``webvln_splits``), so that every website is
in every split (the ``seen`` setting) or each website in one (``unseen``).
"""

import hashlib

ADVERSARIAL_CATEGORIES = ("color", "shape", "number")


def _unit(*parts):
    """A number in [0, 1) fixed by ``parts``."""
    digest = hashlib.sha256(":".join(str(part) for part in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def normalise_keyword(keyword):
    return keyword.strip().lower()


class SplitPlan:
    def __init__(self, *, seed, percents, answers=None, group_anchors=None, fixed=None):
        self.seed = seed
        self.percents = percents  # (train, val, test)
        self.answers = answers  # {category: {keyword: split}}, or None when not adversarial
        self.group_anchors = group_anchors or {}  # {image group id: split}
        self.fixed = fixed or {}  # {group key: split} (webvln_splits)

    @classmethod
    def make(cls, *, release, pairs):
        from .snapshot import answer_counts, keyword_answer  # the queries live with the other snapshot reads

        percents = (release.train_percent, release.val_percent, release.test_percent)
        fixed = webvln_splits(release=release, pairs=pairs, percents=percents) if "webvln" in release.families else {}
        if release.split_strategy != release.SplitStrategy.ADVERSARIAL:
            return cls(seed=release.seed, percents=percents, fixed=fixed)
        counts = answer_counts(pairs, ADVERSARIAL_CATEGORIES)
        answers = {
            category: partition_answers(
                {keyword: n for (cat, keyword), n in counts.items() if cat == category},
                seed=release.seed, percents=percents,
            )
            for category in ADVERSARIAL_CATEGORIES
        }  # fmt: skip
        anchors = {}
        first = (
            pairs.filter(family="webqa", image_group__isnull=False, question_category__in=ADVERSARIAL_CATEGORIES)
            .annotate(keyword=keyword_answer())
            .order_by("image_group_id", "id")
            .values_list("image_group_id", "question_category", "keyword")
        )
        for group, category, keyword in first.iterator(chunk_size=5000):
            if group not in anchors:
                anchors[group] = answers[category].get(normalise_keyword(keyword), "train")
        return cls(seed=release.seed, percents=percents, answers=answers, group_anchors=anchors, fixed=fixed)

    def to_json(self):
        return {"answers": self.answers} if self.answers is not None else {}

    def split_of(self, *, record, group_key):
        if group_key in self.fixed:
            return self.fixed[group_key]
        if record["image_group"] in self.group_anchors:
            return self.group_anchors[record["image_group"]]
        category = record["question_category"]
        if self.answers is not None and record["family"] == "webqa" and category in ADVERSARIAL_CATEGORIES:
            return self.answers[category].get(normalise_keyword(record["keyword_answer"]), "test")
        return self.by_share(_unit(self.seed, group_key))

    def by_share(self, unit):
        train, val, _test = self.percents
        if unit < train / 100:
            return "train"
        if unit < (train + val) / 100:
            return "val"
        return "test"


def partition_answers(counts, *, seed, percents):
    """``{keyword: split}``: the most common answers fill train to its share of the
    questions; the rest go to val and test in seeded order, by their shares."""
    total = sum(counts.values())
    train, val, test = percents
    splits, filled = {}, 0
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    rest = []
    for keyword, n in ranked:
        if filled < total * train / 100:
            splits[keyword] = "train"
            filled += n
        else:
            rest.append((keyword, n))
    rest_total = sum(n for _, n in rest)
    rest.sort(key=lambda item: _unit(seed, "answer", item[0]))
    filled = 0
    for keyword, n in rest:
        splits[keyword] = "val" if val and filled < rest_total * val / max(val + test, 1) else "test"
        filled += n
    return splits


def webvln_splits(*, release, pairs, percents):
    """``{group key: split}`` of the selected WebVLN episodes (and so of the other
    questions on an episode's trace), by the release's setting:

    - ``seen`` (WebVLN-v1's protocol): within each website, the episodes' groups are put
      in seeded order and dealt to train, val and test by the release's shares, each
      split getting at least one when the site has a group for each; so every website
      appears in every split, and no episode in two.
    - ``unseen``: the websites themselves are dealt out the same way, whole.
    """
    from corpus.models import Episode

    sites = {}
    rows = Episode.objects.filter(qa_pair__in=pairs.filter(family="webvln")).order_by("qa_pair_id")
    for pair_id, trace_id, host in rows.values_list("qa_pair_id", "qa_pair__trace_id", "site__host"):
        key = f"trace:{trace_id}" if trace_id else f"episode:{pair_id}"
        sites.setdefault(host, {})[key] = True
    splits = {}
    if release.webvln_setting == "unseen":
        order = sorted(sites, key=lambda host: _unit(release.seed, "site", host))
        for host, split in zip(order, deal(len(order), percents), strict=True):
            for key in sites[host]:
                splits.setdefault(key, split)
        return splits
    for host in sorted(sites):
        order = sorted(sites[host], key=lambda key: _unit(release.seed, key))
        for key, split in zip(order, deal(len(order), percents), strict=True):
            splits.setdefault(key, split)
    return splits


def deal(n, percents):
    """``n`` splits in order, train first: each split's share of ``n``, rounded, and at
    least one for every split with a share when ``n`` allows it."""
    shares = dict(zip(("train", "val", "test"), percents, strict=True))
    wanted = [split for split in ("train", "val", "test") if shares[split]]
    counts = {split: round(n * shares[split] / 100) for split in ("val", "test")}
    floor = 0
    if n >= len(wanted):
        for split in ("val", "test"):
            if shares[split]:
                counts[split] = max(counts[split], 1)
        floor = 1 if shares["train"] else 0
    while counts["val"] + counts["test"] > n - floor:
        larger = "val" if counts["val"] > counts["test"] else "test"
        counts[larger] -= 1
    counts["train"] = n - counts["val"] - counts["test"]
    return ["train"] * counts["train"] + ["val"] * counts["val"] + ["test"] * counts["test"]
