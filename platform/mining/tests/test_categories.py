"""Question categories and keyword checks, on hand-written questions."""

import pytest

from mining.categories import categorise, detect_reasoning_types, keyword_problem, reasoning_disagreement

IMAGE_QUESTIONS = [
    # yes/no
    ("Is the roof of the Sydney Opera House white?", "Yes, the roof is white.", "yes", "YesNo"),
    ("Does the Eiffel Tower have more than two platforms?", "Yes, it has three.", "yes", "YesNo"),
    ("Are there any clouds above the Matterhorn in the photo?", "No, the sky is clear.", "no", "YesNo"),
    ("In the picture, can you see the river next to the castle?", "No.", "no", "YesNo"),
    ("Was the Taj Mahal built of the same stone as the Red Fort?", "No, one is marble.", "no", "YesNo"),
    ("Is either the mosque or the cathedral topped with a gold dome?", "Yes, the mosque.", "yes", "YesNo"),
    # which-of / choose
    (
        "Which is taller, the Big Ben clock tower or the London Eye?",
        "The London Eye is taller.",
        "London Eye",
        "choose",
    ),
    ("Which of the two bridges has more arches?", "The Pont Neuf has more arches.", "Pont Neuf", "choose"),
    ("Which one has a longer tail, the red panda or the raccoon?", "The red panda.", "red panda", "choose"),
    ("Is the Golden Gate Bridge red or blue?", "The Golden Gate Bridge is red.", "red", "choose"),
    # how many
    ("How many towers does Tower Bridge have?", "Tower Bridge has two towers.", "2", "number"),
    ("How many colours are on the flag of Chad?", "There are three colours.", "3", "number"),
    ("What is the number of columns at the front of the Pantheon?", "Eight.", "8", "number"),
    # colour
    ("What color is the belly of a Green Tree Frog?", "The belly of a Green Tree Frog is white.", "white", "color"),
    ("What colour are the flowers of the jacaranda tree?", "They are purple.", "purple", "color"),
    ("The domes of St Basil's Cathedral have what colors?", "Red, green and blue.", "red green blue", "color"),
    # shape
    ("What shape is the top of the Chrysler Building?", "It is pointed, like a spire.", "point", "shape"),
    ("What is the shape of the leaves of a ginkgo tree?", "They are fan shaped.", "fan", "shape"),
    # other
    ("What animal is carved above the entrance of the library?", "A lion.", "lion", "Others"),
    ("Where is the statue's right hand pointing?", "Towards the sea.", "sea", "Others"),
    ("What is the tallest building in the photo made of?", "Glass and steel.", "glass steel", "Others"),
]


@pytest.mark.parametrize(("question", "answer", "keyword", "expected"), IMAGE_QUESTIONS)
def test_image_questions_get_the_category_the_scorer_expects(question, answer, keyword, expected):
    fields = {"split_kind": "image", "question": question, "answer": answer, "keyword_answer": keyword}
    assert categorise(fields) == expected


def test_every_category_of_the_table_is_covered():
    assert {row[3] for row in IMAGE_QUESTIONS} == {"YesNo", "choose", "number", "color", "shape", "Others"}


def test_text_questions_are_text_whatever_their_wording():
    fields = {
        "split_kind": "text",
        "question": "How many moons does Mars have?",
        "answer": "Two.",
        "keyword_answer": "2",
    }
    assert categorise(fields) == "text"


def test_screen_questions_have_no_webqa_category():
    fields = {"split_kind": "trace", "question": "Is the cheapest flight under $200?", "answer": "Yes"}
    assert categorise(fields) == ""


def test_a_qa_pair_object_works_as_well_as_a_dict():
    class Pair:
        split_kind = "image"
        question = "What colour is the bus?"
        answer = "Red."
        keyword_answer = "red"

    assert categorise(Pair()) == "color"


@pytest.mark.parametrize(
    ("category", "keyword", "problem"),
    [
        ("YesNo", "yes", None),
        ("YesNo", "No", None),
        ("YesNo", "yes, it is", "just “yes” or “no”"),
        ("number", "3", None),
        ("number", "three", None),
        ("number", "1,200", None),
        ("number", "a few", "whole number"),
        ("color", "white", None),
        ("color", "navy blue", None),
        ("color", "navy", "colour words"),
        ("shape", "triangular", None),
        ("shape", "fan", "shape words"),
        ("choose", "London Eye", None),
        ("Others", "lion", None),
        ("text", "Ptolemy", None),
        ("text", "n/a", "Give a keyword answer"),
        ("Others", "", "Give a keyword answer"),
    ],
)
def test_keyword_answers_outside_the_scorers_domain_are_explained(category, keyword, problem):
    found = keyword_problem(category, keyword)
    if problem is None:
        assert found is None
    else:
        assert problem in found


def test_an_unknown_category_is_a_programming_error():
    with pytest.raises(ValueError, match="Unknown question category"):
        keyword_problem("colour", "red")


@pytest.mark.parametrize(
    ("question", "detected"),
    [
        ("How much do two large pizzas and a salad cost in total?", ["arithmetic"]),
        ("Which hotel is the cheapest?", ["comparison"]),
        ("How many restaurants are open on Sunday?", ["counting"]),
        ("How many laptops under $500 have 16 GB of memory?", ["counting", "filtering"]),
        ("What is the name of the store?", []),
    ],
)
def test_reasoning_cues_in_screen_questions(question, detected):
    assert detect_reasoning_types(question) == detected


def test_ticked_types_that_the_question_does_not_bear_out_are_a_disagreement():
    assert reasoning_disagreement("How many restaurants are open on Sunday?", ["counting"]) == ([], [])
    assert reasoning_disagreement("How many restaurants are open on Sunday?", ["arithmetic"]) == (
        ["counting"],
        ["arithmetic"],
    )
