"""Sets of four snippets for text multi-hop tasks, built as WebQA built theirs (§4.2):
each set is a cluster of snippets about similar entities, yet no two of them say much
the same thing in the same words, so a question has to join separate facts.

Similar means a BM25 neighbour: every snippet (title and text) is a query against all
the others, and a neighbour's score is read relative to the snippet's score against
itself, so that one threshold (``SNIPPET_SET_MIN_SIMILARITY``) fits short and long
snippets alike. Saying the same thing is measured as the Jaccard overlap of two
snippets' word 3-grams, at most ``SNIPPET_SET_MAX_OVERLAP`` within a set.

Sets are taken greedily, the most closely knit neighbourhoods first; each snippet goes
into at most one set, and snippets that fit no full set wait for more to arrive. The
same snippets always give the same sets. Each set's topic is the words its snippets
share, title words first (e.g. "Harrowmouth lighthouse keepers").
"""

import logging
import re
from array import array
from collections import Counter
from dataclasses import dataclass

import bm25s
from bm25s.stopwords import STOPWORDS_EN
from django.conf import settings

# bm25s sets its own logger to DEBUG on import, which floods a worker's log.
logging.getLogger("bm25s").setLevel(logging.WARNING)

SET_SIZE = 4
MAX_OVERLAP = 0.2  # word 3-gram Jaccard between two snippets of one set
MIN_SIMILARITY = 0.05  # a neighbour's BM25 score over the seed snippet's own score
NEIGHBOURS = 30  # neighbours looked at per snippet
TOPIC_WORDS = 3

_WORD = re.compile(r"\w+")
_TERM = re.compile(r"\b\w\w+\b")
_STOPWORDS = frozenset(STOPWORDS_EN)


@dataclass(frozen=True)
class SnippetSet:
    ids: tuple[int, ...]
    topic: str


@dataclass
class _Snippet:
    id: int
    title: str
    text: str

    def __post_init__(self):
        self.terms = _terms(f"{self.title} {self.text}")
        self.title_terms = set(_terms(self.title))
        words = [word.lower() for word in _WORD.findall(f"{self.title} {self.text}")]
        self.trigrams = {tuple(words[i : i + 3]) for i in range(len(words) - 2)}


def _terms(text):
    """Lower-cased words of two or more characters, no stopwords, no bare numbers."""
    return [term for term in _TERM.findall(text.lower()) if term not in _STOPWORDS and not term.isdigit()]


def overlap(first, second):
    """Jaccard overlap (0–1) of two texts' word 3-grams; 0 when either has none."""
    return _jaccard(_Snippet(0, "", first).trigrams, _Snippet(0, "", second).trigrams)


def _jaccard(first, second):
    if not first or not second:
        return 0.0
    return len(first & second) / len(first | second)


def build_sets(snippets, *, size=SET_SIZE, max_overlap=None, min_similarity=None, neighbours=NEIGHBOURS):
    """``snippets``: ``(id, title, text)`` rows. Returns ``[SnippetSet]``, each of ``size``
    snippets close to its first one and to each other, with no two overlapping more than
    ``max_overlap``; every snippet in at most one set."""
    max_overlap = _setting("SNIPPET_SET_MAX_OVERLAP", MAX_OVERLAP) if max_overlap is None else max_overlap
    min_similarity = (
        _setting("SNIPPET_SET_MIN_SIMILARITY", MIN_SIMILARITY) if min_similarity is None else min_similarity
    )
    pool = sorted((_Snippet(*row) for row in snippets), key=lambda snippet: snippet.id)
    if len(pool) < size:
        return []
    similarity = _similarities(pool, k=min(len(pool), neighbours + 1))
    # The most closely knit neighbourhoods first: their sets are the surest.
    cohesion = [sum(sorted(similarity[i].values(), reverse=True)[: size - 1]) for i in range(len(pool))]
    used, sets = set(), []
    for seed in sorted(range(len(pool)), key=lambda i: (-cohesion[i], pool[i].id)):
        if seed in used:
            continue
        members = _grow(seed, pool, similarity, used=used, size=size, max_overlap=max_overlap, floor=min_similarity)
        if len(members) == size:
            used.update(members)
            chosen = [pool[i] for i in members]
            sets.append(SnippetSet(ids=tuple(snippet.id for snippet in chosen), topic=topic_of(chosen)))
    return sets


def _grow(seed, pool, similarity, *, used, size, max_overlap, floor):
    """The seed and up to ``size - 1`` of its unused neighbours, each time the one
    closest on average to those already in, skipping any that repeats one of them."""
    members = [seed]
    candidates = {j for j, score in similarity[seed].items() if score >= floor and j not in used}
    while len(members) < size and candidates:
        best = max(candidates, key=lambda j: (sum(similarity[j].get(m, 0.0) for m in members), -pool[j].id))
        candidates.discard(best)
        if all(_jaccard(pool[best].trigrams, pool[m].trigrams) <= max_overlap for m in members):
            members.append(best)
    return members


def _setting(name, default):
    return float(getattr(settings, name, default))


def _similarities(pool, *, k):
    """For each snippet, its BM25 neighbours among the ``k`` best as ``{position:
    similarity}``: the mean of each one's score as a query for the other, relative to
    the query's score for itself (0 where one is not among the other's best)."""
    vocabulary = {}
    documents = [array("i", (vocabulary.setdefault(term, len(vocabulary)) for term in s.terms)) for s in pool]
    # Every document needs a term for BM25's length normalisation: "" stands for none.
    empty = vocabulary.setdefault("", len(vocabulary))
    retriever = bm25s.BM25()
    retriever.index(([document or array("i", [empty]) for document in documents], vocabulary), show_progress=False)
    queries = [sorted(set(s.terms)) or [""] for s in pool]
    positions, scores = retriever.retrieve(queries, k=k, show_progress=False, n_threads=1)
    relative = []
    for i, (row_positions, row_scores) in enumerate(zip(positions, scores, strict=True)):
        found = {int(p): float(s) for p, s in zip(row_positions, row_scores, strict=True) if s > 0}
        own = found.get(i) or max(found.values(), default=0.0)
        relative.append({j: score / own for j, score in found.items() if j != i})
    similarity = [{} for _ in pool]
    for i, row in enumerate(relative):
        for j, score in row.items():
            similarity[i][j] = similarity[j][i] = (score + relative[j].get(i, 0.0)) / 2
    return similarity


def topic_of(snippets):
    """Up to ``TOPIC_WORDS`` title words that two or more of the snippets share, those in
    the most titles and then the most snippets first, in the order and spelling the
    snippets first use; failing those, the words most shared; failing any, the first
    snippet's title."""
    in_titles = Counter(term for snippet in snippets for term in snippet.title_terms)
    in_snippets = Counter(term for snippet in snippets for term in set(snippet.terms))
    shared = [term for term, count in in_snippets.items() if count >= 2]
    if not shared:
        return snippets[0].title[:200]
    entities = [term for term in shared if in_titles[term]] or shared
    order = _first_seen(snippets)
    chosen = sorted(entities, key=lambda term: (-in_titles[term], -in_snippets[term], order[term]))[:TOPIC_WORDS]
    spelling = _spelling(snippets)
    return " ".join(spelling[term] for term in sorted(chosen, key=order.__getitem__))[:200]


def _first_seen(snippets):
    order = {}
    for snippet in snippets:
        for term in _terms(snippet.title) + snippet.terms:
            order.setdefault(term, len(order))
    return order


def _spelling(snippets):
    """Each term as first written: "Harrowmouth", not "harrowmouth"."""
    spelling = {}
    for snippet in snippets:
        for word in _TERM.findall(f"{snippet.title} {snippet.text}"):
            spelling.setdefault(word.lower(), word)
    return spelling
