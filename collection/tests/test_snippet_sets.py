"""Sets of four snippets for text tasks: similar entities, little repeated wording, each
snippet once, the same sets every time, and a topic naming what they share."""

import random
from itertools import combinations

import pytest

from collection.snippet_sets import MAX_OVERLAP, build_sets, overlap

VOLCANOES = [
    (
        "Mount Etna",
        "Mount Etna is an active volcano on the east coast of Sicily. At about 3,350 metres it is the highest volcano in Europe outside the Caucasus.",
    ),
    (
        "Etna eruption of 1669",
        "The 1669 eruption of Etna sent lava flows down the volcano's southern flank that reached the walls of Catania and the sea.",
    ),
    (
        "Stromboli volcano",
        "Stromboli, a small island volcano north of Sicily, has erupted almost without pause for two thousand years, earning the name lighthouse of the Mediterranean.",
    ),
    (
        "Vesuvius volcano",
        "Vesuvius, the volcano above the Bay of Naples, buried Pompeii and Herculaneum under ash in the year 79.",
    ),
]
# Etna's first snippet again with a few words changed: a near copy, never in its set.
ETNA_COPY = (
    "Mount Etna volcano",
    "Mount Etna is an active volcano on the east coast of Sicily. At about 3,350 metres it is the tallest volcano in Europe outside the Caucasus.",
)
VIOLINS = [
    (
        "Antonio Stradivari",
        "Antonio Stradivari made violins in Cremona; about 650 of his instruments survive, among them the Messiah violin.",
    ),
    (
        "Guarneri del Gesù",
        "Giuseppe Guarneri, known as del Gesù, built violins in Cremona whose dark, powerful tone Paganini preferred.",
    ),
    (
        "Nicolò Amati",
        "Nicolò Amati of Cremona refined the violin's shape and was the teacher of several later violin makers.",
    ),
    (
        "Cremona violin museum",
        "The violin museum in Cremona keeps instruments by Amati, Guarneri and Stradivari, and a violin is played for visitors most mornings.",
    ),
]
RIVERS = [
    ("Danube river", "The Danube river rises in the Black Forest and flows through ten countries before it reaches the Black Sea."),
    ("Rhine river", "The Rhine river leaves Lake Constance, forms part of the border of Switzerland and Germany, and meets the North Sea in the Netherlands."),
    ("Elbe river", "The Elbe river rises in the mountains of the Czech Republic and flows past Dresden and Hamburg to the North Sea."),
    ("Rhône river", "The Rhône river flows out of a glacier in the Swiss Alps, through Lake Geneva, and past Lyon to the Mediterranean."),
]  # fmt: skip
GROUPS = {"volcano": VOLCANOES + [ETNA_COPY], "violin": VIOLINS, "river": RIVERS}


def _rows(*, seed=None):
    rows, group_of = [], {}
    for group, snippets in GROUPS.items():
        for title, text in snippets:
            rows.append((len(rows) + 1, title, text))
            group_of[len(rows)] = group
    if seed is not None:
        random.Random(seed).shuffle(rows)
    return rows, group_of


def test_each_set_is_four_snippets_about_similar_entities():
    rows, group_of = _rows()
    sets = build_sets(rows)
    assert len(sets) == 3
    assert sorted({group_of[pk] for pk in made.ids}.pop() for made in sets) == ["river", "violin", "volcano"]
    assert all(len(made.ids) == 4 and len({group_of[pk] for pk in made.ids}) == 1 for made in sets)


def test_no_two_snippets_of_a_set_repeat_each_other():
    rows, _ = _rows()
    text = {pk: f"{title} {body}" for pk, title, body in rows}
    copy_id = next(pk for pk, title, _ in rows if title == ETNA_COPY[0])
    original_id = next(pk for pk, title, _ in rows if title == VOLCANOES[0][0])
    assert overlap(text[copy_id], text[original_id]) > MAX_OVERLAP
    for made in build_sets(rows):
        assert {copy_id, original_id} - set(made.ids), "the near copy is in its original's set"
        assert all(overlap(text[a], text[b]) <= MAX_OVERLAP for a, b in combinations(made.ids, 2))
    # With no cap the near copy is the closest neighbour of all, and joins its original.
    volcano_set = next(made for made in build_sets(rows, max_overlap=1.0) if original_id in made.ids)
    assert copy_id in volcano_set.ids


def test_every_snippet_is_used_at_most_once_and_the_rest_wait():
    rows, _ = _rows()
    used = [pk for made in build_sets(rows) for pk in made.ids]
    assert len(used) == len(set(used)) == 12
    assert build_sets(rows[:3]) == []  # too few for a set
    assert build_sets([(pk, title, text) for pk, title, text in rows if pk not in used]) == []


def test_the_same_snippets_give_the_same_sets_in_any_order():
    rows, _ = _rows()
    first = build_sets(rows)
    assert first == build_sets(list(reversed(rows))) == build_sets(_rows(seed=7)[0])


def test_each_set_has_a_topic_from_the_words_its_snippets_share():
    rows, group_of = _rows()
    topics = {group_of[made.ids[0]]: made.topic for made in build_sets(rows)}
    assert "volcano" in topics["volcano"].lower().split()
    assert {"violin", "cremona"} & set(topics["violin"].lower().split())
    assert "river" in topics["river"].lower().split()
    assert all(len(topic.split()) <= 3 for topic in topics.values())


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [("the old stone bridge over the river", "the old stone bridge over the river", 1.0),
     ("the old stone bridge", "a new steel tower", 0.0), ("too short", "too short", 0.0)],
)  # fmt: skip
def test_overlap_is_the_jaccard_of_word_trigrams(first, second, expected):
    assert overlap(first, second) == pytest.approx(expected)
