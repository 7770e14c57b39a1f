"""WebQA's adversarial test split: closed-class answers never cross the partition, and the
yes/no and choice questions a question-only model always misses go to test."""

import pytest

from corpus.models import QAPair
from releases import difficulty
from releases.models import ReleaseItem
from releases.snapshot import draft_records
from releases.splits import LEFT_OUT, SplitPlan, test_candidates

from . import data
from .helpers import build_now, release

pytestmark = pytest.mark.django_db

PERCENTS = (60, 20, 20)
SEEDS = range(1, 11)


def _splits(seed, percents=PERCENTS):
    """``{pair id: (split or None, record)}`` as a release with ``seed`` would split the pairs."""
    pairs = QAPair.objects.filter(family="webqa")
    plan = SplitPlan.draft(seed=seed, percents=percents, strategy="adversarial", pairs=pairs)
    return {record["id"]: (plan.split_of(record=record, group_key=key), record) for record, key in draft_records(pairs)}


@pytest.fixture
def colours(rater):
    """Colour questions with answers from common to rare, and six-image groups whose two
    colour questions have answers that the partition may put in different splits."""
    for colour, n in (("white", 8), ("red", 6), ("blue", 4), ("green", 3), ("teal", 2), ("pink", 1), ("gray", 1)):
        for _ in range(n):
            data.webqa_image_pair(rater, keyword=colour, negatives=0)
    for first, second in (("white", "teal"), ("red", "pink"), ("white", "red"), ("blue", "gray"), ("green", "tan"),
                          ("teal", "pink")):  # fmt: skip
        group = data.image_group(f"{first} and {second}")
        data.webqa_image_pair(rater, keyword=first, group=group, negatives=0)
        data.webqa_image_pair(rater, keyword=second, group=group, negatives=0)
        data.webqa_image_pair(rater, category="Others", keyword="frog", group=group, negatives=0)


def test_over_ten_seeds_no_closed_class_answer_reserved_for_test_appears_in_train(colours):
    left_out = 0
    for seed in SEEDS:
        answers_in, groups_in = {"train": set(), "val": set(), "test": set()}, {}
        for split, record in _splits(seed).values():
            if split is None:
                left_out += 1
                continue
            if record["question_category"] == "color":
                answers_in[split].add(record["keyword_answer"])
            if record["image_group"]:
                groups_in.setdefault(record["image_group"], set()).add(split)
        assert answers_in["test"], seed
        assert not answers_in["train"] & answers_in["test"], seed
        assert not answers_in["train"] & answers_in["val"], seed
        assert not answers_in["val"] & answers_in["test"], seed
        assert all(len(splits) == 1 for splits in groups_in.values()), seed
    assert left_out  # some groups' answers disagreed, and a question gave way


def test_a_six_image_group_whose_answers_disagree_leaves_the_odd_question_out(admin_user, colours):
    built = build_now(release(admin_user, families=["webqa"], seed=3, train_percent=60, val_percent=20))
    assert built.state == "published", built.message
    plan = _splits(3)
    expected = sum(split is None for split, _ in plan.values())
    assert expected and built.counts["excluded"] == {LEFT_OUT: expected}
    colours_in = {}
    for split, record in ReleaseItem.objects.filter(release=built).values_list("split", "record"):
        if record["question_category"] == "color":
            colours_in.setdefault(record["keyword_answer"], set()).add(split)
    assert all(len(splits) == 1 for splits in colours_in.values()), colours_in
    assert built.split_plan["left_out"] == expected


def _yes_no_items():
    """Forty questions whose wording gives the answer away (red roofs: yes; blue: no),
    and three red-roof questions whose answer is no."""
    items = [(n, f"Is the roof of hall {n} red?", "yes") for n in range(1, 21)]
    items += [(n, f"Is the roof of hall {n} blue?", "no") for n in range(21, 41)]
    items += [(n, f"Is the roof of hall {n} red?", "no") for n in (41, 42, 43)]
    return items


def test_the_question_only_baseline_always_misses_the_questions_whose_wording_misleads():
    items = _yes_no_items()
    found = difficulty.consistently_difficult(items, seed=4)
    assert found == {41, 42, 43}
    assert difficulty.consistently_difficult(items, seed=4) == found  # fixed by the seed
    assert difficulty.consistently_difficult(items[:15], seed=4) == set()  # too few to learn from


def test_labels_say_yes_or_no_and_which_side_of_the_or_a_choice_answer_is_on():
    assert difficulty.label_of("YesNo", "Is it red?", "Yes") == "yes"
    assert difficulty.label_of("YesNo", "Is it red?", "blue") is None
    question = "Which is taller, the tower or the bridge?"
    assert difficulty.label_of("choose", question, "the tower") == "first"
    assert difficulty.label_of("choose", question, "The bridge") == "second"
    assert difficulty.label_of("choose", "Which tower is taller?", "the tower") is None


def test_consistently_difficult_yes_no_and_choice_questions_land_in_test(admin_user, rater):
    misleading = []
    for _n, question, answer in _yes_no_items():
        pair = data.webqa_image_pair(rater, category="YesNo", keyword=answer, question=question, negatives=0)
        if "red" in question and answer == "no":
            misleading.append(pair.pk)
    for n in range(12):
        data.webqa_image_pair(rater, category="choose", keyword=f"the tower {n}", negatives=0,
                              question=f"Which is taller, the tower {n} or the bridge {n}?")  # fmt: skip
        data.webqa_image_pair(rater, category="choose", keyword=f"the castle {n}", negatives=0,
                              question=f"Which is older, the church {n} or the castle {n}?")  # fmt: skip
    for n in (20, 21):
        pair = data.webqa_image_pair(rater, category="choose", keyword=f"the bridge {n}", negatives=0,
                                     question=f"Which is taller, the tower {n} or the bridge {n}?")  # fmt: skip
        misleading.append(pair.pk)
    pairs = QAPair.objects.filter(family="webqa")
    for seed in SEEDS:
        in_test = set(test_candidates(seed=seed, percents=(80, 10, 10), strategy="adversarial", pairs=pairs))
        assert set(misleading) <= in_test, seed
        assert len(in_test) < pairs.count() / 2, seed  # the rest keeps the release's shares, roughly
        # A random split knows nothing of difficulty.
        randomly = set(test_candidates(seed=seed, percents=(80, 10, 10), strategy="random", pairs=pairs))
        assert not set(misleading) <= randomly, seed
    built = build_now(release(admin_user, families=["webqa"], seed=5))
    assert built.state == "published", built.message
    splits = dict(ReleaseItem.objects.filter(release=built).values_list("qa_pair_id", "split"))
    assert {splits[pair_id] for pair_id in misleading} == {"test"}
    assert built.split_plan["difficult"] >= len(misleading)
