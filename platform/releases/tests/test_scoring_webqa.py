"""Golden cases for the WebQA scorer. Every expected value is worked out by hand from the
official rules: closed classes score F1 = 2PR / (P + R + 1e-5) over their answer-domain
words (a perfect answer: 2 / (2 + 1e-5)); the other classes score recall."""

import math

import pytest

from mining.categories import NUMBER_WORDS
from releases.scoring.webqa import item_accuracy, score

EPS = 1e-5
PERFECT = 2 / (2 + EPS)  # P = R = 1
HALF_PRECISION = 1 / (1.5 + EPS)  # P = 1/2, R = 1: 2 * 0.5 / (1.5 + eps)


def item(category, keyword_answer, *, sources=(30_000_001,), answers=("A full sentence.",)):
    return {"category": category, "keyword_answer": keyword_answer, "answers": list(answers), "sources": list(sources)}


GOLDEN = [
    pytest.param("color", "red", "The car is red.", PERFECT, id="colour_in_the_domain_answered_exactly"),
    pytest.param(
        "color", "magenta", "The car is magenta.", 0.0, id="colour_outside_the_domain_scores_zero_even_if_equal"
    ),
    # Domain words: answer {red, blue, green}, keyword {red, white}: P = 1/3, R = 1/2.
    pytest.param(
        "color",
        "red and white",
        "The flag is red, blue and a bit of green.",
        (2 * (1 / 3) * (1 / 2)) / (1 / 3 + 1 / 2 + EPS),
        id="colour_answer_mixing_domain_and_other_words_scores_f1_of_domain_words",
    ),
    pytest.param("color", "red", "red red red", PERFECT, id="repeated_domain_word_counts_once"),
    pytest.param("YesNo", "yes", "Yes, both bridges are made of steel.", PERFECT, id="yes_no_answered_right"),
    pytest.param("YesNo", "no", "Yes.", 0.0, id="yes_no_answered_wrong"),
    pytest.param("YesNo", "yes", "Yes and no.", HALF_PRECISION, id="yes_no_hedged_with_both_loses_precision"),
    pytest.param("number", "3", "There are three dogs.", PERFECT, id="number_word_in_answer_matches_digits"),
    pytest.param("number", "three", "I count 3.", PERFECT, id="digits_in_answer_match_number_word_keyword"),
    pytest.param("number", "12", "There are twelve of them.", PERFECT, id="twelve_reads_as_12"),
    # Numbers: answer [2, 3], keyword [2].
    pytest.param("number", "2", "There are 2 dogs and 3 cats.", HALF_PRECISION, id="extra_number_halves_precision"),
    pytest.param("number", "3", "3 dogs and 3 cats", HALF_PRECISION, id="repeated_number_counts_twice"),
    pytest.param("number", "23", "There are twenty-three.", 0.0, id="hyphenated_number_words_are_no_number"),
    pytest.param("number", "2.5", "It is 2.5 metres long.", 0.0, id="decimals_are_no_whole_number"),
    pytest.param("number", "300", "The tower is 300m tall.", PERFECT, id="number_with_a_glued_unit_still_counts"),
    pytest.param("shape", "round", "The window is round.", PERFECT, id="shape_in_the_domain"),
    pytest.param("shape", "circle", "The windows are circles.", PERFECT, id="plural_shape_is_lemmatised"),
    pytest.param(
        "shape", "square", "It is a square with a round top.", HALF_PRECISION, id="extra_shape_halves_precision"
    ),
    # Keyword "red car" (articles dropped), answer "it be red 1": one of two words.
    pytest.param("choose", "the red car", "It is the red one.", 0.5, id="choose_recall_with_partial_overlap"),
    pytest.param(
        "Others", "Eiffel Tower", "It is the Eiffel Tower in Paris.", 1.0, id="others_recall_ignores_extra_words"
    ),
    pytest.param("Others", "dogs", "A dog.", 1.0, id="others_keyword_plural_matches_singular"),
    # Keyword [1889, in, paris], answer [tower, opened, in, 1889]: two of three.
    pytest.param("text", "1889 in Paris", "The tower opened in 1889.", 2 / 3, id="text_recall_with_partial_overlap"),
    pytest.param("choose", "A", "A", 1.0, id="single_letter_keyword_matched_by_single_letter"),
    pytest.param("choose", "A", "The answer is A.", 0.0, id="single_letter_keyword_lost_as_article_in_a_sentence"),
    pytest.param("color", "red", "", 0.0, id="empty_prediction_scores_zero_on_closed_class"),
    pytest.param("text", "Paris", "   ", 0.0, id="blank_prediction_scores_zero_on_recall"),
]


@pytest.mark.parametrize(("category", "keyword_answer", "answer", "expected"), GOLDEN)
def test_item_accuracy_matches_hand_computed_value(category, keyword_answer, answer, expected):
    assert item_accuracy(item(category, keyword_answer), answer) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_every_number_word_the_keyword_check_accepts_is_read_as_a_number():
    for word in NUMBER_WORDS:
        assert item_accuracy(item("number", word), f"I count {word}.") == pytest.approx(PERFECT), word


def test_an_unknown_category_is_refused():
    with pytest.raises(ValueError, match="category 'colour'"):
        item_accuracy(item("colour", "red"), "red")
    with pytest.raises(ValueError, match="'q1'"):
        score({"q1": item("colour", "red")}, {})


def test_source_f1_with_partial_overlap():
    # One of three predicted sources is one of the two positives.
    precision, recall = 1 / (3 + EPS), 1 / (2 + EPS)
    report = score(
        {"q1": item("text", "Paris", sources=[30_000_001, "q1_2"])},
        {"q1": {"answer": "Paris", "sources": [30_000_001, 30_000_003, "q1_9"]}},
    )
    assert report["metrics"]["source_f1"] == pytest.approx(2 * precision * recall / (precision + recall + EPS))
    assert report["metrics"]["source_f1"] == pytest.approx(0.4, abs=1e-4)


def test_source_f1_is_zero_without_predicted_sources():
    report = score({"q1": item("text", "Paris")}, {"q1": {"answer": "Paris", "sources": []}})
    assert report["metrics"]["source_f1"] == 0.0
    assert report["metrics"]["accuracy"] == 1.0


def test_source_ids_match_whether_sent_as_numbers_or_strings_and_count_once():
    precision = recall = 1 / (1 + EPS)
    report = score(
        {"q1": item("text", "Paris", sources=[30_000_001])},
        {"q1": {"answer": "Paris", "sources": ["30000001", 30_000_001]}},
    )
    assert report["metrics"]["source_f1"] == pytest.approx(2 * precision * recall / (precision + recall + EPS))


def test_missing_prediction_scores_zero_and_is_counted():
    report = score(
        {"q1": item("text", "Paris"), "q2": item("text", "Rome")}, {"q1": {"answer": "Paris", "sources": [30_000_001]}}
    )
    assert report["missing"] == 1
    assert report["count"] == 2
    assert report["metrics"]["accuracy"] == pytest.approx(0.5)
    assert report["metrics"]["source_f1"] == pytest.approx((2 / (1 + EPS) ** 2) / (2 / (1 + EPS) + EPS) / 2)
    assert report["per_category"] == {"text": {"accuracy": 0.5, "count": 2}}


def test_per_category_table_and_overall_accuracy_as_mean_over_items():
    items = {
        "c1": item("color", "red"),
        "t1": item("text", "1889 in Paris"),
        "t2": item("text", "Rome"),
        "y1": item("YesNo", "no"),
    }
    predictions = {
        "c1": {"answer": "It is red.", "sources": []},
        "t1": {"answer": "The tower opened in 1889.", "sources": []},
        "y1": {"answer": "Yes.", "sources": []},
    }
    report = score(items, predictions)
    assert list(report["per_category"]) == ["YesNo", "color", "text"]  # the categories' own order
    assert report["per_category"]["color"] == {"accuracy": pytest.approx(PERFECT), "count": 1}
    assert report["per_category"]["text"] == {"accuracy": pytest.approx((2 / 3 + 0) / 2), "count": 2}
    assert report["per_category"]["YesNo"] == {"accuracy": 0.0, "count": 1}
    # Items, not categories: (0.999995 + 2/3 + 0 + 0) / 4, where a mean of categories would give 0.44.
    assert report["metrics"]["accuracy"] == pytest.approx((PERFECT + 2 / 3) / 4)
    assert report["missing"] == 1
    assert report["metrics"]["fluency"] is None


def test_empty_input_has_no_metrics():
    assert score({}, {}) == {
        "metrics": {"accuracy": None, "source_f1": None, "fluency": None},
        "per_category": {},
        "missing": 0,
        "count": 0,
    }


def test_predictions_for_ids_that_are_not_items_are_ignored():
    report = score({"q1": item("text", "Paris")}, {"q1": {"answer": "Paris", "sources": []}, "zz": {"answer": "x"}})
    assert report["count"] == 1
    assert report["metrics"]["accuracy"] == 1.0


def test_fluency_scorer_gets_answers_and_references_and_missing_items_score_zero():
    calls = []

    def fluency(answers, references):
        calls.append((answers, references))
        return [0.8 for _ in answers]

    items = {"q1": item("text", "Paris", answers=["It is Paris.", "Paris."]), "q2": item("text", "Rome")}
    report = score(items, {"q1": {"answer": "Paris it is.", "sources": []}}, fluency=fluency)
    assert calls == [(["Paris it is."], [["It is Paris.", "Paris."]])]
    assert report["metrics"]["fluency"] == pytest.approx(0.4)


def test_fluency_scorer_must_return_one_score_in_range_per_answer():
    items = {"q1": item("text", "Paris")}
    predictions = {"q1": {"answer": "Paris", "sources": []}}
    with pytest.raises(ValueError, match="one per answer"):
        score(items, predictions, fluency=lambda answers, references: [])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        score(items, predictions, fluency=lambda answers, references: [math.nan])
