"""Finding hard negatives for a chunk of QA pairs (WebQA 4.1 and 4.2).

- Text: snippets that share terms with the question, best BM25 first, never a positive
  source, a copy of one, or a snippet that contains the answer or a keyword of it.
- Images: images whose title and description are close to the question and to the
  evidence images' own, and images that look like the evidence (perceptual hash), never a
  positive or a near-duplicate of one, and only images cleared by review.
- Screens: for trace questions, the trace's other screens, nearest the evidence first;
  for multi-screen questions, cleared screens of the same website category from other
  captures, those whose title and address share most with the question first.

Reads only; ``services.run_chunk`` stores what this finds.
"""

import re
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings

from assets.models import Asset
from corpus.models import Evidence, ImageSource, QAPair, Screen, Snippet, TraceStep
from hits import registry

from . import categories
from .index import hamming, terms
from .models import Distractor

# What each kind of negative is called in ``TaskKind.negatives``.
POOL_NEGATIVES = {"text": Distractor.Kind.TEXT, "image": Distractor.Kind.IMAGE}


def _negatives(split_kind):
    writer = registry.writing(split_kind)
    return writer.negatives if writer else ()


@dataclass(frozen=True)
class Pick:
    source_id: int
    method: str
    score: float


@dataclass
class Pair:
    """What mining needs to know of a QA pair and its evidence."""

    id: int
    split_kind: str
    question: str
    answer: str
    keyword_answer: str
    trace_id: int | None
    assignment_id: int | None
    category_id: int | None
    snippets: dict = field(default_factory=dict)  # positive snippet id -> normalised text (without title)
    facts: list = field(default_factory=list)  # normalised researched facts
    images: dict = field(default_factory=dict)  # positive image id -> (title and description, phash)
    screens: dict = field(default_factory=dict)  # positive screen id -> (asset id, phash, category id)
    steps: list = field(default_factory=list)  # positions of the evidence steps in the trace

    @property
    def kinds(self):
        """The kinds of distractor this pair gets."""
        wanted = _negatives(self.split_kind)
        kinds = tuple(POOL_NEGATIVES[name] for name in ("text", "image") if name in wanted)
        if "trace_screens" in wanted or "category_screens" in wanted:
            kinds += (Distractor.Kind.SCREEN,)
        return kinds


def normalised(text):
    """Lower-case words separated by single spaces, padded, for whole-word containment."""
    return " " + " ".join(re.findall(r"\w+", (text or "").lower())) + " "


def answer_phrases(pair):
    """The phrases whose presence in a snippet gives the answer away: the answer and each
    keyword of the keyword answer (split at commas, semicolons and slashes). "yes" and
    "no" give nothing away."""
    phrases = [pair.answer, *re.split(r"[,;/|]", pair.keyword_answer)]
    found = []
    for phrase in phrases:
        text = normalised(phrase)
        if text.strip() and text.strip() not in categories.answer_domains()["yesno"]:
            found.append(text)
    return found


def load_pairs(pair_ids):
    pairs = {
        row["id"]: Pair(**row)
        for row in QAPair.objects.filter(pk__in=pair_ids).values(
            "id", "split_kind", "question", "answer", "keyword_answer", "trace_id", "assignment_id", "category_id"
        )
    }
    evidence = Evidence.objects.filter(qa_pair_id__in=pair_ids).values_list(
        "qa_pair_id", "snippet_id", "snippet__text", "fact", "image_id", "image__title",
        "image__description", "image__asset__phash", "screen_id", "screen__asset_id", "screen__asset__phash",
        "screen__category_id", "step__position",
    )  # fmt: skip
    for pair_id, snippet_id, s_text, fact, image_id, i_title, i_description, i_phash, *screen in evidence:
        pair = pairs[pair_id]
        if snippet_id:
            pair.snippets[snippet_id] = normalised(s_text)
        if fact:
            pair.facts.append(normalised(fact))
        if image_id:
            pair.images[image_id] = (f"{i_title} {i_description}", int(i_phash, 16) if i_phash else None)
        screen_id, asset_id, phash, category_id, position = screen
        if screen_id:
            pair.screens[screen_id] = (asset_id, int(phash, 16) if phash else None, category_id)
        if position is not None:
            pair.steps.append(position)
    return pairs


def mine(pair_ids, index):
    """``{(pair id, kind): [Pick, …]}`` for every kind each pair gets, best first."""
    pairs = load_pairs(pair_ids)
    found = {}
    wanting = {name: [] for name in ("text", "image", "trace_screens", "category_screens")}
    for pair in pairs.values():
        for name in _negatives(pair.split_kind):
            wanting[name].append(pair)
    found.update(text_distractors(wanting["text"], index.snippets))
    found.update(image_distractors(wanting["image"], index.images))
    found.update(trace_distractors(wanting["trace_screens"]))
    found.update(category_distractors(wanting["category_screens"]))
    return found


def _searched(pool, queries, *, short_of, prepare=None):
    """Candidates for each query. A query whose candidates were all used up by exclusions
    (``short_of(number, candidates)`` is true) asks again for four times as many, until
    the pool runs out. ``prepare(results)`` runs first each time, e.g. to load texts."""
    k = settings.MINING_CANDIDATES_FACTOR * max(settings.MINING_TEXT_PER_QUESTION, settings.MINING_IMAGE_PER_QUESTION)
    results = pool.search(queries, k=k)
    while True:
        if prepare:
            prepare(results)
        short = [n for n, found in enumerate(results) if len(found) == k and short_of(n, found)]
        if not short or k >= len(pool):
            return results
        k *= 4
        for number, found in zip(short, pool.search([queries[n] for n in short], k=k), strict=True):
            results[number] = found


def text_distractors(pairs, pool):
    per_question = settings.MINING_TEXT_PER_QUESTION
    found = {(pair.id, Distractor.Kind.TEXT): [] for pair in pairs}
    if pool.retriever is None or not pairs:
        return found
    texts = {}

    def load_texts(results):
        # One query for every candidate not yet read, whatever the number of questions.
        missing = {int(pool.ids[p]) for candidates in results for p, _ in candidates} - texts.keys()
        for pk, title, text in Snippet.objects.filter(pk__in=missing).values_list("pk", "title", "text"):
            texts[pk] = (normalised(f"{title} {text}"), normalised(text))

    def keep(pair, candidates):
        phrases = answer_phrases(pair)
        positives = [text for text in (*pair.snippets.values(), *pair.facts) if text.strip()]
        picks = []
        for position, score in candidates:
            snippet_id = int(pool.ids[position])
            if snippet_id not in texts or snippet_id in pair.snippets:
                continue  # gone since the index was built, or a positive
            whole, body = texts[snippet_id]
            if any(phrase in whole for phrase in phrases):
                continue  # gives the answer away
            if any(body.strip() in positive or positive.strip() in body for positive in positives):
                continue  # a copy (or part) of a positive source
            picks.append(Pick(snippet_id, "bm25", round(score, 4)))
            if len(picks) == per_question:
                break
        return picks

    results = _searched(
        pool,
        [terms(pair.question) for pair in pairs],
        short_of=lambda n, candidates: len(keep(pairs[n], candidates)) < per_question,
        prepare=load_texts,
    )
    for pair, candidates in zip(pairs, results, strict=True):
        found[(pair.id, Distractor.Kind.TEXT)] = keep(pair, candidates)
    return found


def image_distractors(pairs, pool):
    per_question = settings.MINING_IMAGE_PER_QUESTION
    near = settings.MINING_NEAR_DUPLICATE_BITS
    found = {(pair.id, Distractor.Kind.IMAGE): [] for pair in pairs}
    if not len(pool) or not pairs:
        return found

    def fit(pair, position):
        image_id = int(pool.ids[position])
        if image_id in pair.images:
            return False
        phash = int(pool.phashes[position])
        return all(
            positive is None or int(hamming(np.uint64(phash), positive)) > near for _, positive in pair.images.values()
        )

    queries = []
    for pair in pairs:
        query = terms(pair.question)
        for text, _ in pair.images.values():
            query += terms(text)
        queries.append(list(dict.fromkeys(query)))
    by_description = _searched(
        pool, queries, short_of=lambda n, candidates: sum(fit(pairs[n], p) for p, _ in candidates) < per_question
    )
    visual = [_visually_close(pair, pool) for pair in pairs]

    # Recheck review: an image rejected since the index was built must not go out.
    candidate_ids = {int(pool.ids[p]) for found_ in by_description for p, _ in found_}
    candidate_ids |= {int(pool.ids[p]) for found_ in visual for p, _ in found_}
    cleared = set(
        ImageSource.objects.filter(pk__in=candidate_ids, asset__review_state=Asset.ReviewState.CLEARED).values_list(
            "pk", flat=True
        )
    )
    for pair, described, looks in zip(pairs, by_description, visual, strict=True):
        described = [Pick(int(pool.ids[p]), "description", round(s, 4)) for p, s in described if fit(pair, p)]
        looks = [Pick(int(pool.ids[p]), "visual", s) for p, s in looks]
        found[(pair.id, Distractor.Kind.IMAGE)] = _interleaved(
            [pick for pick in described if pick.source_id in cleared],
            [pick for pick in looks if pick.source_id in cleared][: settings.MINING_VISUAL_PER_QUESTION],
            per_question,
        )
    return found


def _visually_close(pair, pool):
    """Positions of the pool images that look most like the pair's evidence images without
    being near-duplicates of any: ``(position, score)``, score = 1 − distance / 64."""
    positives = [phash for _, phash in pair.images.values() if phash is not None]
    if not positives or pool.phashes is None:
        return []
    distances = np.min(np.stack([hamming(pool.phashes, phash) for phash in positives]), axis=0)
    usable = (distances > settings.MINING_NEAR_DUPLICATE_BITS) & (distances <= settings.MINING_VISUAL_MAX_BITS)
    positions = np.flatnonzero(usable)
    wanted = 3 * settings.MINING_VISUAL_PER_QUESTION + len(pair.images)
    # Closest first, ties by position (= id order): the same answer on every run.
    order = np.lexsort((positions, distances[positions]))[:wanted]
    return [
        (int(positions[i]), round(1 - int(distances[positions[i]]) / 64, 4))
        for i in order
        if int(pool.ids[positions[i]]) not in pair.images
    ]


def _interleaved(first, second, limit):
    """Picks from both lists in turn, each source once, up to ``limit``."""
    picks, seen = [], set()
    for number in range(max(len(first), len(second))):
        for source in (first, second):
            if number < len(source) and source[number].source_id not in seen and len(picks) < limit:
                seen.add(source[number].source_id)
                picks.append(source[number])
    return picks


def _looks_like_evidence(pair, asset_id, phash):
    near = settings.MINING_NEAR_DUPLICATE_BITS
    for positive_asset, positive_phash, _ in pair.screens.values():
        if asset_id == positive_asset:
            return True
        if phash is not None and positive_phash is not None and (phash ^ positive_phash).bit_count() <= near:
            return True
    return False


def trace_distractors(pairs):
    found = {(pair.id, Distractor.Kind.SCREEN): [] for pair in pairs}
    steps = defaultdict(list)
    rows = (
        TraceStep.objects.filter(trace_id__in={pair.trace_id for pair in pairs if pair.trace_id})
        .filter(screen__asset__review_state=Asset.ReviewState.CLEARED)
        .order_by("trace_id", "position")
        .values_list("trace_id", "position", "screen_id", "screen__asset_id", "screen__asset__phash")
    )
    for trace_id, position, screen_id, asset_id, phash in rows:
        steps[trace_id].append((position, screen_id, asset_id, int(phash, 16) if phash else None))
    for pair in pairs:
        evidence_positions = pair.steps or [p for p, screen_id, *_ in steps[pair.trace_id] if screen_id in pair.screens]
        candidates = {}
        for position, screen_id, asset_id, phash in steps[pair.trace_id]:
            if screen_id in pair.screens or _looks_like_evidence(pair, asset_id, phash):
                continue
            gap = min((abs(position - p) for p in evidence_positions), default=0)
            if screen_id not in candidates or gap < candidates[screen_id][0]:
                candidates[screen_id] = (gap, position)
        ranked = sorted(candidates.items(), key=lambda item: item[1])[: settings.MINING_SCREEN_PER_QUESTION]
        found[(pair.id, Distractor.Kind.SCREEN)] = [
            Pick(screen_id, "trace", round(1 / (1 + gap), 4)) for screen_id, (gap, _) in ranked
        ]
    return found


def category_distractors(pairs):
    found = {(pair.id, Distractor.Kind.SCREEN): [] for pair in pairs}

    def category_of(pair):
        evidence = sorted(c for *_, c in pair.screens.values() if c)
        return pair.category_id or (evidence[0] if evidence else None)

    by_category = defaultdict(list)
    rows = (
        Screen.objects.filter(
            category_id__in={category_of(pair) for pair in pairs} - {None},
            asset__review_state=Asset.ReviewState.CLEARED,
        )
        .order_by("-pk")
        .values_list("pk", "category_id", "assignment_id", "title", "url", "asset_id", "asset__phash")
    )
    for pk, category_id, assignment_id, title, url, asset_id, phash in rows:
        words = set(terms(f"{title} {re.sub(r'[^A-Za-z0-9]+', ' ', url)}"))
        by_category[category_id].append((pk, assignment_id, asset_id, int(phash, 16) if phash else None, words))
    for pair in pairs:
        query = set(terms(pair.question))
        picks = []
        for pk, assignment_id, asset_id, phash, words in by_category[category_of(pair)]:
            if pk in pair.screens or (pair.assignment_id and assignment_id == pair.assignment_id):
                continue
            if _looks_like_evidence(pair, asset_id, phash):
                continue
            picks.append(Pick(pk, "category", round(len(query & words) / max(len(query), 1), 4)))
        # Most shared words first, then the newest screen; sorted() keeps ties in that order.
        picks = sorted(picks, key=lambda pick: -pick.score)[: settings.MINING_SCREEN_PER_QUESTION]
        found[(pair.id, Distractor.Kind.SCREEN)] = picks
    return found
