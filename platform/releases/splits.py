"""Deterministic train / val / test splits.

A split is a function of the seed and an item's *group key* (``snapshot._group_key``):
everything that shares a trace, a six-image group or a screenshot shares a key, so it can
never straddle two splits. The hash of seed and key decides, so the same snapshot and seed
always split the same way, with no state kept.

The adversarial strategy is WebQA's (§4.1 of its paper), for its image questions:

- ``color``, ``shape`` and ``number`` questions are split by their keyword answer: the
  answer values of each class, most common first, fill train up to its share; the rarer
  values go to val and test. So the answers a model sees most in train never appear in
  test, and no answer is in two splits. A six-image group shares its images, so it lands
  in one split: the one its closed-class questions' answers send it to. When they
  disagree, the group goes where most of them point (ties: test, then val, then train)
  and the questions whose answers belong to another split are left out of the release,
  counted as ``closed_class_answer_in_other_split``.
- ``YesNo`` and ``choose`` questions that a question-only baseline answers wrongly in
  every one of ten seeded train/test rounds (``difficulty``) go to test; the rest of each
  class is split by hash with shares set so that the class as a whole keeps the release's
  proportions where it can. A six-image group with such a question and no closed-class
  question goes to test; with one, the answer partition decides.
- Every other question is split by hash.

Test candidates for reference answers are chosen with ``test_candidates``, which runs
the same plan over the pairs a release would select, without building anything. The
random split of a pair never changes as the corpus grows; the adversarial one may, since
it depends on how common each answer is and on what the baseline learns.

WebVLN episodes are dealt out per website (``webvln_splits``), so that every website is
in every split (the ``seen`` setting) or each website in one (``unseen``).
"""

import hashlib
from collections import defaultdict

ADVERSARIAL_CATEGORIES = ("color", "shape", "number")  # split by answer
DIFFICULTY_CATEGORIES = ("YesNo", "choose")  # the baseline's hardest go to test
SPLITS = ("train", "val", "test")
# A six-image group whose closed-class answers disagree goes where most point; on a tie,
# to the split that is hardest to fill.
TIE_ORDER = {"test": 2, "val": 1, "train": 0}
LEFT_OUT = "closed_class_answer_in_other_split"


def _unit(*parts):
    """A number in [0, 1) fixed by ``parts``."""
    digest = hashlib.sha256(":".join(str(part) for part in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def normalise_keyword(keyword):
    return keyword.strip().lower()


class SplitPlan:
    def __init__(self, *, seed, percents, answers=None, group_splits=None, fixed=None, left_out=None,
                 difficult=(), shares=None):  # fmt: skip
        self.seed = seed
        self.percents = percents  # (train, val, test)
        self.answers = answers  # {category: {keyword: split}}, or None when not adversarial
        self.group_splits = group_splits or {}  # {image group id: split}
        self.fixed = fixed or {}  # {group key: split} (webvln_splits)
        self.left_out = left_out or {}  # {pair id: reason}: questions no split can take
        self.difficult = frozenset(difficult)  # pair ids the baseline always gets wrong: test
        self.shares = shares or {}  # {category: (train, val, test)} for the rest of those classes

    @classmethod
    def make(cls, *, release, pairs):
        percents = (release.train_percent, release.val_percent, release.test_percent)
        fixed = webvln_splits(release=release, pairs=pairs, percents=percents) if "webvln" in release.families else {}
        return cls.draft(
            seed=release.seed, percents=percents, strategy=release.split_strategy, pairs=pairs, fixed=fixed
        )

    @classmethod
    def draft(cls, *, seed, percents, strategy, pairs, fixed=None):
        """The plan a release with this seed, these shares and this strategy would split
        ``pairs`` (the QA pairs it selects) by."""
        from .snapshot import answer_counts, keyword_answer  # the queries live with the other snapshot reads

        if strategy != "adversarial":
            return cls(seed=seed, percents=percents, fixed=fixed)
        counts = answer_counts(pairs, ADVERSARIAL_CATEGORIES)
        answers = {
            category: partition_answers(
                {keyword: n for (cat, keyword), n in counts.items() if cat == category}, seed=seed, percents=percents
            )
            for category in ADVERSARIAL_CATEGORIES
        }
        rows = list(
            pairs.filter(family="webqa", question_category__in=ADVERSARIAL_CATEGORIES + DIFFICULTY_CATEGORIES)
            .annotate(keyword=keyword_answer())
            .order_by("id")
            .values_list("id", "image_group_id", "question_category", "question", "keyword")
        )
        group_splits, left_out = _split_groups_by_answer(rows, answers)
        difficult, shares = _difficult_items(rows, seed=seed, percents=percents)
        for pair_id, group, *_ in rows:
            if group is not None and pair_id in difficult:
                group_splits.setdefault(group, "test")  # the answer partition, where it spoke, wins
        return cls(seed=seed, percents=percents, answers=answers, group_splits=group_splits, fixed=fixed,
                   left_out=left_out, difficult=difficult, shares=shares)  # fmt: skip

    def to_json(self):
        if self.answers is None:
            return {}
        return {
            "answers": self.answers,
            "left_out": len(self.left_out),
            "difficult": len(self.difficult),
            "shares": {category: list(shares) for category, shares in sorted(self.shares.items())},
        }

    def split_of(self, *, record, group_key):
        """The record's split, or None when it is left out (``left_out`` says why)."""
        if group_key in self.fixed:
            return self.fixed[group_key]
        if record["id"] in self.left_out:
            return None
        if record["image_group"] in self.group_splits:
            return self.group_splits[record["image_group"]]
        category = record["question_category"]
        if self.answers is not None and record["family"] == "webqa":
            if category in ADVERSARIAL_CATEGORIES:
                return self.answers[category].get(normalise_keyword(record["keyword_answer"]), "test")
            if record["id"] in self.difficult:
                return "test"
            if category in self.shares:
                return by_share(_unit(self.seed, group_key), self.shares[category])
        return self.by_share(_unit(self.seed, group_key))

    def by_share(self, unit):
        return by_share(unit, self.percents)


def by_share(unit, percents):
    train, val, _test = percents
    if unit < train / 100:
        return "train"
    if unit < (train + val) / 100:
        return "val"
    return "test"


def _split_groups_by_answer(rows, answers):
    """``({image group: split}, {pair id: reason})``: each six-image group with
    closed-class questions goes where most of their answers belong; the questions whose
    answers belong elsewhere are left out, so no answer crosses the partition."""
    wanted = defaultdict(lambda: defaultdict(list))  # group -> split -> [pair id]
    for pair_id, group, category, _question, keyword in rows:
        if group is not None and category in ADVERSARIAL_CATEGORIES:
            wanted[group][answers[category].get(normalise_keyword(keyword), "test")].append(pair_id)
    group_splits, left_out = {}, {}
    for group, by_split in wanted.items():
        split = max(by_split, key=lambda name: (len(by_split[name]), TIE_ORDER[name]))
        group_splits[group] = split
        for other, pair_ids in by_split.items():
            if other != split:
                left_out.update(dict.fromkeys(pair_ids, LEFT_OUT))
    return group_splits, left_out


def _difficult_items(rows, *, seed, percents):
    """``(difficult pair ids, {category: shares of the rest})`` of the yes/no and choice
    questions: the baseline's consistent failures go to test, and the rest of each class
    is split with the test share reduced by as much, so the class keeps the release's
    proportions when its difficult items do not outnumber its test share."""
    from .difficulty import consistently_difficult, label_of

    difficult, shares = set(), {}
    for category in DIFFICULTY_CATEGORIES:
        items = [(pair_id, question, label_of(category, question, keyword))
                 for pair_id, _group, cat, question, keyword in rows if cat == category]  # fmt: skip
        hard = consistently_difficult([item for item in items if item[2] is not None], seed=seed)
        difficult |= hard
        if hard and len(items) > len(hard):
            shares[category] = rest_shares(percents, total=len(items), taken=len(hard))
    return difficult, shares


def rest_shares(percents, *, total, taken):
    """Shares (in percent) for the ``total - taken`` items left once ``taken`` went to
    test, so that the ``total`` keep ``percents`` as far as possible."""
    train, val, test = percents
    rest = total - taken
    test_left = max(total * test / 100 - taken, 0)
    other = rest - test_left
    if train + val == 0:
        return (0.0, 0.0, 100.0)
    return (
        100 * other * train / (train + val) / rest,
        100 * other * val / (train + val) / rest,
        100 * test_left / rest,
    )


def test_candidates(*, seed, percents, strategy, pairs):
    """The ids of the WebQA pairs among ``pairs`` that a release with this seed, these
    shares and this strategy would put in test, in id order; computed, not built.

    ``pairs`` are the QA pairs the release would select (its families and states). The
    snapshot may still leave some of these out (uncleared images, no keyword answer), and
    references that disagree leave a test item out too."""
    from .snapshot import draft_records

    webqa = pairs.filter(family="webqa")
    plan = SplitPlan.draft(seed=seed, percents=percents, strategy=strategy, pairs=webqa)
    return [
        record["id"] for record, key in draft_records(webqa) if plan.split_of(record=record, group_key=key) == "test"
    ]


test_candidates.__test__ = False  # a function named test_… that pytest must not collect


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
