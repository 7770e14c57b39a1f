"""Hard-negative mining in this process, on PostgreSQL: what it picks, what it never picks,
and that running it again changes nothing."""

import pytest

from corpus.models import QAPair
from mining import services
from mining.models import Distractor, MiningRun
from tests.factories import UserFactory

from . import factories as make

pytestmark = pytest.mark.django_db

FROG = 0x0F0F_3C3C_A5A5_9696


def mine(**fields):
    run = services.start_run(job=MiningRun.Job.MINE, enqueue=False, **fields)
    return services.run_in_process(run=run)


def picked(pair, kind):
    rows = Distractor.objects.filter(qa_pair=pair, kind=kind).order_by("rank")
    return [row.snippet_id or row.image_id or row.screen_id for row in rows]


@pytest.fixture
def image_question():
    """An image question with one positive, and traps around it."""
    positive = make.image("Green tree frog on a leaf", "A green tree frog sits on a leaf in Queensland.", phash=FROG)
    traps = {
        "near_duplicate": make.image("Green tree frog on a leaf", "A green tree frog on a leaf.", phash=FROG ^ 0b10110),
        "uncleared": make.image("Green tree frog close up", "A green tree frog.", cleared=False),
        "answer_snippet": make.snippet("Green tree frog", "The green tree frog has a white belly and a green back."),
        "full_answer_snippet": make.snippet("Frogs", "Indeed the belly of a green tree frog is white as snow."),
    }
    good = {
        "frog_on_verandah": make.image("Green tree frog on verandah tiles", "A tree frog at a staff house."),
        "frog_in_pond": make.image("Frog in a pond", "A green frog swims in a pond.", phash=0x1234_5678_9ABC_DEF0),
        "looks_alike": make.image("A bowl of soup", "Soup.", phash=FROG ^ 0x7FFF),  # 15 bits off: visually close
        "tree_snippet": make.snippet("Tree frogs", "Tree frogs live in trees across Australia and climb well."),
        "belly_snippet": make.snippet("Frog anatomy", "The belly of a frog helps it breathe through its skin."),
    }
    make.image("Mount Everest", "The highest mountain.", phash=FROG ^ 0xFFFF_FFFF_0000_0000)  # unrelated, far
    pair = make.qa_pair(
        "What color is the belly of a green tree frog?",
        "The belly of a Green Tree Frog is white.",
        keyword_answer="white",
        split_kind="image",
        evidence=[positive],
    )
    return pair, positive, traps, good


def test_image_question_gets_close_images_and_snippets_but_never_a_positive_or_a_trap(image_question):
    pair, positive, traps, good = image_question
    run = mine()
    assert run.state == MiningRun.State.DONE and run.total == 1 and run.processed == 1

    images = picked(pair, "image")
    snippets = picked(pair, "text")
    assert positive.pk not in images
    assert traps["near_duplicate"].pk not in images, "a near-duplicate of the evidence is no distractor"
    assert traps["uncleared"].pk not in images, "only cleared images may leave the platform"
    assert traps["answer_snippet"].pk not in snippets, "a snippet that states the answer is no distractor"
    assert traps["full_answer_snippet"].pk not in snippets
    assert {good["frog_on_verandah"].pk, good["frog_in_pond"].pk, good["looks_alike"].pk} <= set(images)
    assert {good["tree_snippet"].pk, good["belly_snippet"].pk} == set(snippets)
    methods = dict(Distractor.objects.filter(qa_pair=pair, kind="image").values_list("image_id", "method"))
    assert methods[good["looks_alike"].pk] == "visual"
    assert methods[good["frog_on_verandah"].pk] == "description"


def test_text_question_never_gets_its_own_snippets_or_copies_of_them():
    first = make.snippet("Ptolemaic coinage", "Ptolemaic coinage was struck in Phoenician weight, about 14.2 grams.")
    second = make.snippet("Ptolemy I", "Ptolemy I founded the Ptolemaic dynasty of Egypt after Alexander.")
    copy = make.snippet("Coins of Egypt", "Ptolemaic coinage was struck in Phoenician weight, about 14.2 grams.")
    answer = make.snippet("Attic weight", "Ptolemaic coins weighed less than the Attic weight of the Ptolemaic rivals.")
    related = make.snippet("Egyptian dynasty", "The Ptolemaic dynasty ruled Egypt for three centuries with coinage.")
    pair = make.qa_pair(
        "Was Ptolemaic coinage heavier than the coins of the dynasty's rivals?",
        "No, Ptolemaic coinage was lighter than the Attic weight.",
        keyword_answer="Attic weight",
        split_kind="text",
        evidence=[first, second],
    )
    mine()
    snippets = picked(pair, "text")
    assert first.pk not in snippets and second.pk not in snippets
    assert copy.pk not in snippets, "a copy of a positive snippet is a positive"
    assert answer.pk not in snippets, "it names the keyword answer"
    assert snippets == [related.pk]


def test_text_distractors_rank_by_bm25_and_stop_at_the_setting(settings):
    settings.MINING_TEXT_PER_QUESTION = 3
    for number in range(6):
        make.snippet(f"Lighthouse {number}", "A lighthouse on the coast. " + "lighthouse keeper " * number)
    pair = make.qa_pair(
        "Who kept the lighthouse keeper's log?", "Nobody knows.", keyword_answer="nobody", split_kind="text"
    )
    mine()
    rows = list(Distractor.objects.filter(qa_pair=pair, kind="text").order_by("rank"))
    assert [row.rank for row in rows] == [1, 2, 3]
    assert [row.score for row in rows] == sorted((row.score for row in rows), reverse=True)
    assert {row.method for row in rows} == {"bm25"}


def test_trace_question_gets_the_traces_other_cleared_screens_nearest_first():
    rater = UserFactory()
    shots = [make.screen(author=rater, url=f"https://shop.example.com/{n}") for n in range(7)]
    recorded, steps = make.trace(author=rater, screens=shots)
    # The traps: screen 0 shows the same bytes as evidence screen 3, screen 4 is a
    # near-duplicate of evidence screen 2, screen 5 is not cleared.
    shots[0].asset = shots[3].asset
    shots[0].save()
    shots[4].asset.phash = f"{int(shots[2].asset.phash, 16) ^ 1:016x}"
    shots[4].asset.save()
    shots[5].asset.review_state = "pending_review"
    shots[5].asset.save()
    pair = make.qa_pair(
        "How much do the two cheapest lamps cost together?", "$40", split_kind="trace", trace=recorded,
        evidence=[steps[2], steps[3]], reasoning_types=["arithmetic", "comparison"],
    )  # fmt: skip
    mine()
    assert picked(pair, "screen") == [shots[1].pk, shots[6].pk]
    assert set(Distractor.objects.filter(qa_pair=pair).values_list("method", flat=True)) == {"trace"}


def test_multi_screen_question_gets_cleared_screens_of_its_category_from_other_captures():
    rater = UserFactory()
    evidence = [
        make.screen(author=rater, title=f"Laptop deals {n}", url=f"https://a{n}.example.com/") for n in range(3)
    ]
    same_category = make.screen(author=rater, title="Laptop offers", url="https://b.example.com/laptops")
    unrelated = make.screen(author=rater, title="Garden chairs", url="https://c.example.com/")
    other_category = make.screen(author=rater, title="Laptop hotel", category="hotels")
    uncleared = make.screen(author=rater, title="Laptop sale", cleared=False)
    near_copy = make.screen(author=rater, title="Laptop", phash=int(evidence[0].asset.phash, 16) ^ 0b11)
    pair = make.qa_pair(
        "Which laptop is the cheapest across the three shops?", "The X13", split_kind="multi_screen",
        evidence=evidence, category=evidence[0].category,
    )  # fmt: skip
    mine()
    assert picked(pair, "screen") == [same_category.pk, unrelated.pk]
    assert not {other_category.pk, uncleared.pk, near_copy.pk} & set(picked(pair, "screen"))


def test_running_again_changes_nothing(image_question):
    pair, *_ = image_question
    first = mine(scope=MiningRun.Scope.ALL)
    before = list(
        Distractor.objects.order_by("pk").values_list("pk", "qa_pair_id", "kind", "rank", "score", "created_at")
    )
    again = mine(scope=MiningRun.Scope.ALL)
    after = list(
        Distractor.objects.order_by("pk").values_list("pk", "qa_pair_id", "kind", "rank", "score", "created_at")
    )
    assert first.changed == 1 and again.changed == 0
    assert before == after and before


def test_everything_new_skips_pairs_already_mined_and_rejected_pairs(image_question):
    pair, *_ = image_question
    mine()
    rejected = make.qa_pair("Is it green?", "Yes", keyword_answer="yes", split_kind="image", state="rejected")
    fresh = make.qa_pair("What shape is a frog's pupil?", "Round", keyword_answer="round", split_kind="image")
    run = mine()
    assert run.total == 1 and run.chunks.get().qa_pair_ids == [fresh.pk]
    assert not Distractor.objects.filter(qa_pair=rejected).exists()


def test_a_pool_change_replaces_only_the_distractors_it_affects(image_question):
    pair, positive, traps, good = image_question
    mine()
    texts_before = list(Distractor.objects.filter(qa_pair=pair, kind="text").values_list("pk", flat=True))
    good["frog_in_pond"].asset.review_state = "rejected"
    good["frog_in_pond"].asset.save()
    run = mine(scope=MiningRun.Scope.ALL)
    assert run.changed == 1
    assert good["frog_in_pond"].pk not in picked(pair, "image")
    assert list(Distractor.objects.filter(qa_pair=pair, kind="text").values_list("pk", flat=True)) == texts_before


def test_chosen_pairs_are_mined_in_chunks_of_the_runs_size():
    pairs = [
        make.qa_pair(f"What colour is sign {n}?", "Red.", keyword_answer="red", split_kind="image") for n in range(5)
    ]
    make.image("Red sign", "A red road sign.")
    run = mine(scope=MiningRun.Scope.QA_PAIRS, qa_pair_ids=[p.pk for p in pairs[:4]], chunk_size=3)
    assert [chunk.qa_pair_ids for chunk in run.chunks.all()] == [[p.pk for p in pairs[:3]], [pairs[3].pk]]
    assert run.processed == 4 and run.progress == 1.0
    assert not Distractor.objects.filter(qa_pair=pairs[4]).exists()


def test_an_empty_pool_finishes_the_run_with_no_distractors():
    make.qa_pair("What colour is the sky?", "Blue.", keyword_answer="blue", split_kind="image")
    run = mine()
    assert run.state == MiningRun.State.DONE and Distractor.objects.count() == 0
    assert QAPair.objects.count() == 1
