"""The run index's ranking: bm25s's own scores, the best first, ties in a fixed order."""

import numpy as np

from mining.index import Pool, best


def test_scores_are_those_of_bm25s_and_the_best_come_first():
    documents = ["red apple pie", "green apple", "apple apple tart", "blue sky", "red red car", "pie crust"]
    pool = Pool.build((n, text) for n, text in enumerate(documents, start=1))
    for query in (["apple"], ["red", "pie"], ["apple", "apple", "red"], ["sky"], ["unknown"]):
        mine = pool.scores(query)
        theirs = pool.retriever.get_scores(query)
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs), query
    (found,) = pool.search([["red", "pie"]], k=3)
    positions = [position for position, _score in found]
    assert positions[0] == 0  # "red apple pie" has both terms
    assert {1, 3}.isdisjoint(positions)  # no shared term, no place
    assert all(a[1] >= b[1] for a, b in zip(found, found[1:], strict=False))


def test_best_skips_zeros_and_breaks_ties_by_position():
    scores = np.array([0, 2, 5, 2, 0, 2, 5, 1], dtype=np.float32)
    assert best(scores, 3).tolist() == [2, 6, 1]  # 5, 5, then the first of the three 2s
    assert best(scores, 10).tolist() == [2, 6, 1, 3, 5, 7]  # never a zero
    assert best(np.zeros(4, dtype=np.float32), 2).tolist() == []
