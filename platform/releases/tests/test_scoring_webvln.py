"""Golden cases for WebVLN scoring; every expected number is worked out by hand in a comment."""

import pytest

from releases.scoring import webvln


def episode(*pages, answer="blue"):
    return {"path": list(pages), "answer": answer}


def run(*pages, answer="blue"):
    return {"trajectory": list(pages), "answer": answer}


def score(items, predictions, **context):
    return webvln.score(items, predictions, shortest_paths={}, **context)


def test_stopping_on_the_target_by_the_gold_path_scores_full_marks():
    items = {"1": episode("shop_0", "shop_1", "shop_2")}
    report = score(items, {"1": run("shop_0", "shop_1", "shop_2")})

    assert report["metrics"] == {
        "sr": 1.0,
        "osr": 1.0,
        "spl": 1.0,
        "tl": 3.0,
        "wups_0.9": 1.0,
        "wups_0.0": 1.0,
    }
    assert report["missing"] == 0
    assert report["count"] == 1


def test_passing_through_the_target_without_stopping_is_an_oracle_success_only():
    items = {"1": episode("shop_0", "shop_1")}
    report = score(items, {"1": run("shop_0", "shop_1", "shop_2")})

    assert report["metrics"]["sr"] == 0.0
    assert report["metrics"]["osr"] == 1.0
    assert report["metrics"]["spl"] == 0.0


def test_answer_is_not_credited_when_navigation_fails():
    # Same answer as the gold, but the agent stopped on the wrong page.
    items = {"1": episode("shop_0", "shop_1", answer="blue")}
    report = score(items, {"1": run("shop_0", "shop_1", "shop_2", answer="blue")})

    assert report["metrics"]["wups_0.9"] == 0.0
    assert report["metrics"]["wups_0.0"] == 0.0


def test_stopping_one_page_before_the_target_fails_both_success_rates():
    items = {"1": episode("shop_0", "shop_1", "shop_2")}
    report = score(items, {"1": run("shop_0", "shop_1")})

    assert report["metrics"]["sr"] == 0.0
    assert report["metrics"]["osr"] == 0.0
    assert report["metrics"]["spl"] == 0.0
    assert report["metrics"]["tl"] == 2.0


def test_a_detour_to_the_target_is_weighted_by_pages_not_clicks():
    # Gold: 3 pages. Trajectory: 5 pages (a wrong turn and back). SPL = 3 / max(3, 5) = 0.6;
    # counted in clicks it would be 2 / 4 = 0.5, which is not what the evaluator does.
    items = {"1": episode("shop_0", "shop_1", "shop_2")}
    report = score(items, {"1": run("shop_0", "shop_3", "shop_0", "shop_1", "shop_2")})

    assert report["metrics"]["sr"] == 1.0
    assert report["metrics"]["spl"] == pytest.approx(0.6)


def test_spl_reads_the_gold_path_not_shortest_paths():
    # shortest_paths knows a 2-page route; the evaluator ignores it and uses the gold path (4 pages):
    # SPL = 4 / max(4, 4) = 1.0.
    items = {"1": episode("shop_0", "shop_1", "shop_2", "shop_3")}
    shortest = {"shop": {"shop_0": {"shop_3": ["shop_0", "shop_3"]}}}
    report = webvln.score(items, {"1": run("shop_0", "shop_1", "shop_2", "shop_3")}, shortest_paths=shortest)

    assert report["metrics"]["spl"] == 1.0


def test_trajectory_length_counts_pages_with_the_start_and_skips_missing_predictions():
    # Predicted trajectories of 1 and 4 pages; the missing one does not count: TL = (1 + 4) / 2.
    items = {
        "1": episode("shop_0", "shop_1"),
        "2": episode("shop_0", "shop_1"),
        "3": episode("shop_0", "shop_1"),
    }
    predictions = {"1": run("shop_0"), "2": run("shop_0", "shop_2", "shop_0", "shop_1")}
    report = score(items, predictions)

    assert report["metrics"]["tl"] == pytest.approx(2.5)


def test_missing_prediction_scores_zero_and_is_counted():
    # One perfect episode and one without a prediction: every rate is 1 / 2.
    items = {"1": episode("shop_0", "shop_1"), "2": episode("shop_0", "shop_2")}
    report = score(items, {"1": run("shop_0", "shop_1")})

    assert report["missing"] == 1
    assert report["count"] == 2
    for name in ("sr", "osr", "spl", "wups_0.9", "wups_0.0"):
        assert report["metrics"][name] == pytest.approx(0.5)
    assert report["metrics"]["tl"] == 2.0


def test_predictions_for_unknown_ids_are_ignored():
    items = {"1": episode("shop_0", "shop_1")}
    report = score(items, {"1": run("shop_0", "shop_1"), "99": run("shop_0")})

    assert report["count"] == 1
    assert report["metrics"]["tl"] == 2.0


def test_exact_wups_is_the_share_of_aligned_characters_that_match():
    # "cat" vs "cut": c=c, a≠u, t=t → 2/3 at both thresholds (exact similarity has no partial credit).
    items = {"1": episode("shop_0", "shop_1", answer="cat")}
    report = score(items, {"1": run("shop_0", "shop_1", answer="cut")})

    assert report["metrics"]["wups_0.9"] == pytest.approx(2 / 3)
    assert report["metrics"]["wups_0.0"] == pytest.approx(2 / 3)
    assert report["wups_similarity"] == "exact"


def test_exact_wups_is_case_sensitive():
    # "Yes" vs "yes": Y≠y, e=e, s=s → 2/3.
    assert webvln.wups("Yes", "yes", threshold=0.9) == pytest.approx(2 / 3)


def test_wups_stops_at_the_shorter_answer_so_a_prefix_scores_full():
    # "12.50" vs "12.5": only four positions are compared, all equal → 1.0.
    assert webvln.wups("12.50", "12.5", threshold=0.9) == 1.0
    assert webvln.wups("12.5", "12.50", threshold=0.0) == 1.0


def test_wups_treats_commas_and_blanks_as_matching_empty_units():
    # "red, blue" vs "red blue", eight aligned pairs:
    # r-r 1, e-e 1, d-d 1, ","-" " 1 (both empty units), " "-b 0, b-l 0, l-u 0, u-e 0 → 4/8.
    assert webvln.wups("red, blue", "red blue", threshold=0.9) == pytest.approx(0.5)


def test_wups_with_a_supplied_similarity_scales_scores_below_the_threshold():
    similarities = {frozenset("ab"): 0.95, frozenset("cd"): 0.5}

    def word_similarity(a, b):
        return similarities.get(frozenset((a, b)), 0.0)

    # Pairs: a-b 0.95 (above 0.9, kept); c-d 0.5 (below 0.9, ×0.1 = 0.05; kept at threshold 0.0).
    # WUPS@0.9 = (0.95 + 0.05) / 2 = 0.5; WUPS@0.0 = (0.95 + 0.5) / 2 = 0.725.
    items = {"1": episode("shop_0", "shop_1", answer="ac")}
    report = score(items, {"1": run("shop_0", "shop_1", answer="bd")}, word_similarity=word_similarity)

    assert report["metrics"]["wups_0.9"] == pytest.approx(0.5)
    assert report["metrics"]["wups_0.0"] == pytest.approx(0.725)
    assert report["wups_similarity"] == "supplied"


def test_a_comma_never_resembles_a_letter_whatever_the_similarity():
    # "a," vs "bx": a-b gets the generous 0.99; ","-x compares empty units with "x" → 0.
    # Both thresholds: (0.99 + 0) / 2 = 0.495.
    def generous(a, b):
        return 0.99

    assert webvln.wups("a,", "bx", threshold=0.9, word_similarity=generous) == pytest.approx(0.495)
    assert webvln.wups("a,", "bx", threshold=0.0, word_similarity=generous) == pytest.approx(0.495)


def test_empty_answer_scores_zero_wups():
    assert webvln.wups("blue", "", threshold=0.0) == 0.0


def test_rates_are_aggregated_per_website():
    # shop: one perfect episode, one passing its target → sr 1/2, osr 2/2, spl 1/2.
    # news: one detour of 4 pages for a 2-page gold path → sr 1, osr 1, spl 2/4.
    items = {
        "1": episode("shop_0", "shop_1"),
        "2": episode("shop_0", "shop_1"),
        "3": episode("news_0", "news_1"),
    }
    predictions = {
        "1": run("shop_0", "shop_1"),
        "2": run("shop_0", "shop_1", "shop_2"),
        "3": run("news_0", "news_2", "news_0", "news_1"),
    }
    report = score(items, predictions)

    assert report["per_category"]["website"] == {
        "news": {"sr": 1.0, "osr": 1.0, "spl": 0.5, "count": 1},
        "shop": {"sr": 0.5, "osr": 1.0, "spl": 0.5, "count": 2},
    }
    # Overall: sr 2/3, osr 3/3, spl (1 + 0 + 0.5) / 3 = 0.5, TL (2 + 3 + 4) / 3 = 3.
    assert report["metrics"]["sr"] == pytest.approx(2 / 3)
    assert report["metrics"]["osr"] == 1.0
    assert report["metrics"]["spl"] == pytest.approx(0.5)
    assert report["metrics"]["tl"] == 3.0


def test_a_missing_prediction_counts_against_its_website():
    items = {"1": episode("shop_0", "shop_1"), "2": episode("shop_0", "shop_1")}
    report = score(items, {"1": run("shop_0", "shop_1")})

    assert report["per_category"]["website"]["shop"] == {"sr": 0.5, "osr": 0.5, "spl": 0.5, "count": 2}


def test_trajectory_not_starting_on_the_homepage_is_refused():
    items = {"1": episode("shop_0", "shop_1")}

    with pytest.raises(ValueError, match="must start on the path's first page 'shop_0'"):
        score(items, {"1": run("shop_1")})


def test_no_items_reports_no_metrics():
    report = score({}, {})

    assert report["metrics"] == {name: None for name in ("sr", "osr", "spl", "tl", "wups_0.9", "wups_0.0")}
    assert report["per_category"] == {"website": {}}
    assert report["missing"] == 0
    assert report["count"] == 0


def test_only_missing_predictions_leave_trajectory_length_unknown():
    report = score({"1": episode("shop_0", "shop_1")}, {})

    assert report["metrics"]["sr"] == 0.0
    assert report["metrics"]["tl"] is None
    assert report["missing"] == 1


def test_two_thousand_episodes_on_seven_sites_all_succeed():
    answer = "The Mini Modine Legging is currently on sale for $16.10."
    items = {str(n): episode(f"site{n % 7}_0", f"site{n % 7}_{n}", answer=answer) for n in range(2000)}
    predictions = {
        str(n): run(f"site{n % 7}_0", f"site{n % 7}_{n}", answer=answer[::-1] if n % 2 else answer) for n in range(2000)
    }

    report = score(items, predictions)

    assert report["metrics"]["sr"] == 1.0
