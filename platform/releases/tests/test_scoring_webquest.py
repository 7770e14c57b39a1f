"""WebQuest relaxed accuracy on hand-computed cases: reading numbers (currency, commas,
percent, words, sizes, signs), the 5% float allowance, exact integers, SQuAD-normalised
text, the best of several variants, the report's tallies, and answer variants."""

import pytest

from releases.scoring.webquest import answer_variants, item_score, score


def _item(*answers, answer_type="text", reasoning_types=("arithmetic",), kind="single"):
    return {"answers": list(answers), "answer_type": answer_type, "reasoning_types": list(reasoning_types),
            "kind": kind}  # fmt: skip


@pytest.mark.parametrize(
    ("answers", "answer_type", "prediction", "expected"),
    [
        # Currency symbols, codes and words are marks around the same number.
        (["$127.77"], "decimal", "127.77 dollars", 1.0),
        (["USD 127.77"], "decimal", "$127.77", 1.0),
        (["€5"], "integer", "5 euros", 1.0),
        (["-$5"], "integer", "-5 dollars", 1.0),
        # Thousands commas.
        (["1,299"], "integer", "1299", 1.0),
        (["1299"], "integer", "$1,299", 1.0),
        # Percent is a unit: 45% reads as 45, so 0.45 is another number.
        (["45%"], "integer", "45 percent", 1.0),
        (["45 percent"], "integer", "45%", 1.0),
        (["45%"], "integer", "0.45", 0.0),
        # Number words, and sizes that multiply.
        (["7"], "integer", "seven", 1.0),
        (["21"], "integer", "The answer is twenty-one.", 1.0),
        (["105"], "integer", "one hundred and five", 1.0),
        (["3000"], "integer", "three thousand", 1.0),
        (["1500"], "integer", "1.5k", 1.0),
        (["2000000"], "integer", "2 million", 1.0),
        (["5"], "integer", "5kg", 1.0),
        (["0.5"], "decimal", ".5", 1.0),
        # A float gold allows 5% of itself either way: 127.77 * 0.05 = 6.3885.
        (["127.77"], "decimal", "134.15", 1.0),
        (["127.77"], "decimal", "134.16", 0.0),
        (["127.77"], "decimal", "121.39", 1.0),
        (["127.77"], "decimal", "121.38", 0.0),
        (["100.0"], "decimal", "105", 1.0),
        (["100.0"], "decimal", "105.01", 0.0),
        (["1.5k"], "integer", "1450", 1.0),
        (["40"], "decimal", "41.5", 1.0),
        (["0.0"], "decimal", "0.01", 0.0),
        (["0.0"], "decimal", "0", 1.0),
        # An integer gold needs the very number.
        (["42"], "integer", "43", 0.0),
        (["42"], "integer", "42.0", 1.0),
        (["42"], "integer", "42.4", 0.0),
        (["2000000"], "integer", "2.05 million", 0.0),
        # Signs: glued minus (ASCII or Unicode) and the words; a hyphen between numbers is a range.
        (["-5"], "integer", "−5", 1.0),
        (["-5"], "integer", "minus five", 1.0),
        (["-5"], "integer", "5", 0.0),
        (["2020"], "integer", "2019-2020", 1.0),
        # With several numbers the last one is the answer.
        (["3"], "integer", "There are 5 shops, and 3 of them sell shoes", 1.0),
        (["3"], "integer", "3 of the 5 shops", 0.0),
        (["3"], "integer", "3 or 4", 0.0),
        (["3"], "integer", "no number here", 0.0),
        # Text: lower-case, no punctuation, no articles, whitespace collapsed, then exact.
        (["The Eiffel Tower"], "text", "eiffel   tower.", 1.0),
        (["an apple"], "text", "Apple!", 1.0),
        (["Blue, Red"], "text", "blue red", 1.0),
        (["Eiffel Tower"], "text", "Eiffel Tower, Paris", 0.0),
        (["Eiffel-Tower"], "text", "Eiffel Tower", 0.0),
        # A number with a word beside it is a number only when the item expects a number.
        (["Route 66"], "text", "66", 0.0),
        (["Route 66"], "text", "route 66", 1.0),
        (["7 stores"], "integer", "seven", 1.0),
        # The best over the variants.
        (["New York City", "NYC"], "text", "nyc", 1.0),
        (["1,299", "about 1300"], "integer", "About 1300.", 1.0),
        (["Paris", "Paris, France"], "text", "Lyon", 0.0),
    ],
)
def test_item_scores_relaxed_accuracy(answers, answer_type, prediction, expected):
    assert item_score(_item(*answers, answer_type=answer_type), prediction) == expected


def test_no_prediction_scores_zero():
    assert item_score(_item("7"), None) == 0.0


def test_empty_input_leaves_the_metric_not_computed():
    assert score({}, {}) == {
        "metrics": {"relaxed_accuracy": None},
        "per_category": {"reasoning_type": {}, "kind": {}},
        "missing": 0,
        "count": 0,
    }


def test_missing_prediction_counts_as_wrong_and_in_missing():
    items = {"a": _item("7"), "b": _item("8")}

    report = score(items, {"a": "7"})

    assert report["metrics"] == {"relaxed_accuracy": 0.5}
    assert report["missing"] == 1
    assert report["count"] == 2


def test_report_tallies_each_reasoning_type_and_kind():
    items = {
        "right-1": _item("$10", reasoning_types=["arithmetic", "comparison"], kind="single"),
        "wrong": _item("12", reasoning_types=["arithmetic"], kind="multi"),
        "missing": _item("Paris", reasoning_types=["counting"], kind="trace"),
        "right-2": _item("the red one", reasoning_types=["comparison", "filtering", "filtering"], kind="single"),
    }
    predictions = {"right-1": "10 dollars", "wrong": "13", "right-2": "Red one", "not-an-item": "5"}

    report = score(items, predictions)

    # 2 of 4 right; "filtering", listed twice on one item, counts once.
    assert report == {
        "metrics": {"relaxed_accuracy": 0.5},
        "per_category": {
            "reasoning_type": {
                "arithmetic": {"relaxed_accuracy": 0.5, "count": 2},
                "comparison": {"relaxed_accuracy": 1.0, "count": 2},
                "counting": {"relaxed_accuracy": 0.0, "count": 1},
                "filtering": {"relaxed_accuracy": 1.0, "count": 1},
            },
            "kind": {
                "multi": {"relaxed_accuracy": 0.0, "count": 1},
                "single": {"relaxed_accuracy": 1.0, "count": 2},
                "trace": {"relaxed_accuracy": 0.0, "count": 1},
            },
        },
        "missing": 1,
        "count": 4,
    }


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("$127.77", ["$127.77", "127.77", "127.77 dollars"]),
        ("USD 127.77", ["USD 127.77", "127.77", "$127.77", "127.77 dollars"]),
        ("5 euros", ["5 euros", "5", "€5", "five euros", "five"]),
        ("$1", ["$1", "1", "1 dollar", "one", "one dollar"]),
        ("1,299", ["1,299", "1299", "one thousand two hundred ninety-nine"]),
        ("45%", ["45%", "45 percent", "forty-five percent"]),
        ("45 percent", ["45 percent", "45%", "forty-five percent"]),
        ("seven", ["seven", "7"]),
        ("one hundred and five", ["one hundred and five", "105", "one hundred five"]),
        ("1.5k", ["1.5k", "1,500", "1500", "one thousand five hundred"]),
        ("2 million", ["2 million", "2,000,000", "2000000"]),
        ("12.0", ["12.0"]),
        ("−5", ["−5", "-5"]),
        ("The Eiffel Tower", ["The Eiffel Tower"]),
        ("Route 66", ["Route 66"]),
    ],
)
def test_answer_variants_list_the_original_first_then_each_rewrite_once(answer, expected):
    assert answer_variants(answer) == expected


@pytest.mark.parametrize(
    "answer",
    ["$127.77", "USD 1,299", "€9,999", "£2,500.50", "45%", "twenty-one dollars", "$1.2 million", "-$5", "0", "7"],
)
def test_answer_variants_all_score_against_each_other(answer):
    variants = answer_variants(answer)

    assert len(variants) > 1
    for gold in variants:
        for prediction in variants:
            assert item_score(_item(gold), prediction) == 1.0, (gold, prediction)


def test_ten_thousand_items_of_two_shapes_all_score():
    items = {str(i): _item("$1,299.50", "1299.5 dollars", answer_type="decimal") for i in range(5000)}
    items |= {f"t{i}": _item("The Eiffel Tower", "Eiffel tower, Paris") for i in range(5000)}
    predictions = {item_id: "It costs $1,300" if item_id.isdigit() else "eiffel tower paris" for item_id in items}

    report = score(items, predictions)

    assert report["metrics"]["relaxed_accuracy"] == 1.0
