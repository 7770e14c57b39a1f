"""Deterministic train / val / test splits.

A split is a function of the seed and an item's *group key* (``snapshot._group_key``):
everything that shares a trace, a six-image group, a site's navigation graph or a
screenshot shares a key, so it can never straddle two splits. The hash of seed and key
decides, so the same snapshot and seed always split the same way, with no state kept.

The adversarial strategy (WebQA's, for ``color``, ``shape`` and ``number`` questions)
splits those questions by their keyword answer instead: the answer values of each class,
most common first, fill train up to its share; the rarer values go to val and test. So
the answers a model sees most in train never appear in test. A six-image group follows its
first closed-class question, keeping its images in one split.
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
    def __init__(self, *, seed, percents, answers=None, group_anchors=None, joined=None):
        self.seed = seed
        self.percents = percents  # (train, val, test)
        self.answers = answers  # {category: {keyword: split}}, or None when not adversarial
        self.group_anchors = group_anchors or {}  # {image group id: split}
        self.joined = joined or {}  # {group key: the key it is split with} (joined_groups)

    @classmethod
    def make(cls, *, release, pairs):
        from .snapshot import answer_counts, keyword_answer  # the queries live with the other snapshot reads

        percents = (release.train_percent, release.val_percent, release.test_percent)
        joined = joined_groups(pairs) if "webvln" in release.families else {}
        if release.split_strategy != release.SplitStrategy.ADVERSARIAL:
            return cls(seed=release.seed, percents=percents, joined=joined)
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
        return cls(seed=release.seed, percents=percents, answers=answers, group_anchors=anchors, joined=joined)

    def to_json(self):
        return {"answers": self.answers} if self.answers is not None else {}

    def split_of(self, *, record, group_key):
        if record["image_group"] in self.group_anchors:
            return self.group_anchors[record["image_group"]]
        category = record["question_category"]
        if self.answers is not None and record["family"] == "webqa" and category in ADVERSARIAL_CATEGORIES:
            return self.answers[category].get(normalise_keyword(record["keyword_answer"]), "test")
        return self.by_share(_unit(self.seed, self.joined.get(group_key, group_key)))

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


def joined_groups(pairs):
    """Group keys that must share a split although they differ: a WebVLN episode is
    grouped by its site's navigation graph (``site:<host>``), while other questions on
    the same recorded trace are grouped by the trace (``trace:<id>``); both ship that
    trace's screens. Sites and traces linked this way form components; each key maps to
    its component's smallest key. Only keys that map elsewhere are returned."""
    from django.db.models import OuterRef, Subquery
    from django.db.models.functions import Coalesce

    from corpus.models import Evidence, TraceStep

    from .snapshot import host_of

    parent = {}

    def find(key):
        parent.setdefault(key, key)
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    # An episode's target page, as snapshot.target_step finds it: its last evidence step,
    # else its trace's last step.
    last_evidence = (
        Evidence.objects.filter(qa_pair=OuterRef("pk"), step__isnull=False).order_by("-position").values("step__url")
    )
    last_step = TraceStep.objects.filter(trace=OuterRef("trace_id")).order_by("-position").values("url")
    episodes = (
        pairs.filter(family="webvln", trace__isnull=False)
        .annotate(target=Coalesce(Subquery(last_evidence[:1]), Subquery(last_step[:1])))
        .order_by("id")
        .values_list("trace_id", "target")
    )
    for trace_id, url in episodes.iterator(chunk_size=5000):
        if url:
            first, second = sorted((find(f"trace:{trace_id}"), find("site:" + host_of(url))))
            parent[second] = first
    return {key: find(key) for key in list(parent) if find(key) != key}
