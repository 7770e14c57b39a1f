"""WebQA's answer accuracy and source retrieval, computed the way the dataset's own scorer
computes them (``WebQnA/WebQA_Baseline``, ``vlp/eval_1022.py``, the script behind the
leaderboard).

**Accuracy** (the paper's Acc, section 5.1) compares a prediction with the question's
keyword answer, word by word, after normalising both texts (below):

- ``color``, ``shape``, ``YesNo``: only words of the category's answer domain count
  (``mining.categories.answer_domains()``, the scorer's own word lists), each word at most
  once; the item scores the F1 of those words. A keyword answer with no domain word scores
  0 however the question is answered, and wrong domain words next to the right one cost
  precision ("red and blue" for "red" scores 0.67, not 1).
- ``number``: only whole numbers count (number words become digits first), repeats kept;
  the item scores their F1. Decimals ("2.5") are not whole numbers, so they never count.
- ``choose``, ``Others``, ``text``: the share of the keyword answer's words found in the
  prediction (recall), each word as often as the keyword answer has it.

The official F1 divides by ``precision + recall + 1e-5``, so a perfect closed-class answer
scores 0.999995, not 1; we keep that, so numbers agree with published ones. Recall has no
such term.

**Overall accuracy** is the mean over items (the official ``acc_avg`` over all rows), not
over categories: frequent categories weigh more. An item without a prediction scores 0
everywhere and is counted in ``missing`` (the leaderboard divides by the whole test set).

**Normalising a text**, as the official scorer does: lower-case; drop ASCII punctuation
except a ``.`` before a digit; drop the articles a/an/the (unless the text is one word);
turn each number word ("three", "twenty", "hundred") into digits and write digit strings
without leading zeros ("007" is "7"), word by word, so "twenty three" is "20 3" and
"twenty-three" (hyphen dropped: "twentythree") is no number at all; then lemmatise. A text
of one character is only lower-cased, so a keyword answer "A" is matched by the answer
"a" but not by "The answer is A." (its "a" is dropped as an article).

**Where this knowingly differs.** The official scorer lemmatises with spaCy's
``en_core_web_sm``, whose lemmas depend on the part of speech it guesses from context. This
module stays pure Python and approximates it (``_lemma``): forms of be/have/do/go, regular
and common irregular plurals (including spaCy's quirk of turning "crosses" into "crosse",
the reason "crosse" is in the shape list), and spaCy's splitting of a number from a unit
glued to it ("300m" is "300 m") and of non-ASCII punctuation at a word's edges ("€5" is
"€ 5"). It does not reduce verbs in -ing/-ed or comparatives ("rounded" stays "rounded",
where spaCy may say "round"), nor split clipped contractions ("dont"); on such words the
two scorers can disagree.

**Source retrieval** (``source_f1``): the F1 of the predicted source ids against the
item's positive sources, per item, then averaged over items. Precision, recall and F1 each
add 1e-5 to their denominator, as the baseline's retrieval metric does
(``pytorch_pretrained_bert/modeling.py``, ``filter_metric``); the leaderboard's own
retrieval code is not public. Ids are compared as strings, so an image id sent as
``"30000001"`` matches ``30000001``; a repeated id counts once.

**Fluency** (FL, from BARTScore) needs a language model, so it is not computed here: pass
``fluency`` to ``score`` to have it, otherwise the metric is None.
"""

import re
import string
import unicodedata
from collections import Counter
from functools import cache, lru_cache

from mining.categories import CATEGORIES, COLOR, NUMBER, SHAPE, YES_NO, answer_domains

# The official scorer's guard against dividing by zero; it shifts every F1 slightly.
EPSILON = 1e-5

# Closed-class categories, scored by F1 over the words of their answer domain.
_DOMAIN_OF_CATEGORY = {COLOR: "color", SHAPE: "shape", YES_NO: "yesno"}
F1_CATEGORIES = frozenset({*_DOMAIN_OF_CATEGORY, NUMBER})
METRICS = ("accuracy", "source_f1", "fluency")

# The number words the scorer turns into digits (word2number's list; "point" it leaves).
_NUMBER_VALUES = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 1_000_000, "billion": 1_000_000_000,
}  # fmt: skip

_PUNCTUATION_BUT_DOT = str.maketrans("", "", string.punctuation.replace(".", ""))
_DOT_NOT_BEFORE_DIGIT = re.compile(r"\.(?!\d)")
_ARTICLE = re.compile(r"\b(?:a|an|the)\b")

# spaCy splits a unit glued to the digits before it, and "5pm" into "5 pm".
_UNITS = "kmh|km²|km³|km|dm²|dm³|dm|cm²|cm³|cm|mm²|mm³|mm|m²|m³|mph|mbar|mb|kb|gb|tb|ha|nm|yd|in|ft|kg|mg|lb|oz|m|g|t"
_NUMBER_AND_UNIT = re.compile(rf"(.*\d)({_UNITS})")
_HOUR_AND_PERIOD = re.compile(r"(1[0-2]|[1-9])(am|pm)")

# Forms spaCy reduces whatever the context, and plurals no suffix rule gets right.
_IRREGULAR = {
    "is": "be", "are": "be", "was": "be", "were": "be", "am": "be", "been": "be",
    "has": "have", "had": "have", "does": "do", "did": "do", "goes": "go", "went": "go",
    "men": "man", "women": "woman", "children": "child", "feet": "foot", "teeth": "tooth", "mice": "mouse",
    "geese": "goose", "wolves": "wolf", "knives": "knife", "wives": "wife", "shelves": "shelf", "halves": "half",
    "calves": "calf", "thieves": "thief", "hooves": "hoof", "scarves": "scarf", "loaves": "loaf",
    "potatoes": "potato", "tomatoes": "tomato", "heroes": "hero", "echoes": "echo", "volcanoes": "volcano",
    "mosquitoes": "mosquito", "tornadoes": "tornado", "buses": "bus", "gases": "gas", "lenses": "lens",
    "viruses": "virus", "bonuses": "bonus", "campuses": "campus", "circuses": "circus", "quizzes": "quiz",
}  # fmt: skip
# Words ending in -s that are no plural.
_NOT_PLURAL = {
    "always", "perhaps", "towards", "afterwards", "besides", "sometimes", "nowadays", "whereas", "news",
    "series", "species", "lens", "physics", "mathematics", "politics", "economics", "athletics", "gymnastics",
    "christmas", "yours", "ours", "hers", "theirs",
}  # fmt: skip
# Plurals in -ies of nouns ending in -ie (not -y), and in -es of nouns ending in -e.
_IE_NOUNS = {"movie", "cookie", "calorie", "zombie", "brownie", "rookie", "selfie", "goalie", "prairie", "genie",
             "hippie", "smoothie", "magpie", "hoodie", "veggie", "birdie", "collie", "budgie", "pixie"}  # fmt: skip
_E_NOUNS = {"headache", "ache", "niche", "cache", "avalanche", "moustache", "mustache", "quiche", "cliche",
            "brioche", "psyche", "axe", "crosse"}  # fmt: skip


def item_accuracy(item, answer: str) -> float:
    """The official accuracy of ``answer`` for ``item`` (its ``category`` and
    ``keyword_answer``), in [0, 1]."""
    category = item.get("category")
    if category not in CATEGORIES:
        raise ValueError(f"Unknown WebQA question category {category!r}; expected one of {', '.join(CATEGORIES)}.")
    keyword_words = _words(item.get("keyword_answer") or "")
    answer_words = _words(answer or "")
    if category == NUMBER:
        keyword_words, answer_words = _whole_numbers(keyword_words), _whole_numbers(answer_words)
    elif category in _DOMAIN_OF_CATEGORY:
        domain = answer_domains()[_DOMAIN_OF_CATEGORY[category]]
        keyword_words, answer_words = list(domain.intersection(keyword_words)), list(domain.intersection(answer_words))
    shared = sum((Counter(keyword_words) & Counter(answer_words)).values())
    if not shared:
        return 0.0
    recall = shared / len(keyword_words)
    if category not in F1_CATEGORIES:
        return recall
    precision = shared / len(answer_words)
    return 2 * precision * recall / (precision + recall + EPSILON)


def score(items, predictions, *, fluency=None, **context):
    """Accuracy, source F1 and (given a scorer) fluency of ``predictions`` over ``items``.

    ``items``: ``{guid: {"category", "keyword_answer", "answers": [full sentences],
    "sources": [positive image or snippet ids]}}``. ``predictions``: ``{guid: {"answer":
    str, "sources": [ids]}}``; predictions for guids that are not items are ignored.

    ``fluency``, when given, is called once as ``fluency(answers, references)`` with the
    predicted answers and, for each, its item's full-sentence answers; it returns one FL
    score in [0, 1] per answer (the paper's best normalised BARTScore over references).
    The reported fluency is their mean over all items, a missing prediction scoring 0.
    ``context`` is accepted for the shared scorer interface and not used.
    """
    count = len(items)
    if not count:
        return {"metrics": dict.fromkeys(METRICS), "per_category": {}, "missing": 0, "count": 0}
    missing = 0
    accuracy_total = 0.0
    source_total = 0.0
    by_category = {}
    answered = []  # (answer, references) of each item with a prediction, for the fluency scorer
    for guid, item in items.items():
        category = item.get("category")
        if category not in CATEGORIES:
            raise ValueError(
                f"Item {guid!r} has the question category {category!r}; expected one of {', '.join(CATEGORIES)}."
            )
        prediction = predictions.get(guid)
        if prediction is None:
            missing += 1
            accuracy = 0.0
        else:
            answer = prediction.get("answer") or ""
            accuracy = item_accuracy(item, answer)
            source_total += _source_f1(prediction.get("sources") or (), item.get("sources") or ())
            answered.append((answer, list(item.get("answers") or ())))
        accuracy_total += accuracy
        summed, seen = by_category.get(category, (0.0, 0))
        by_category[category] = (summed + accuracy, seen + 1)
    return {
        "metrics": {
            "accuracy": accuracy_total / count,
            "source_f1": source_total / count,
            "fluency": None if fluency is None else _mean_fluency(fluency, answered, count),
        },
        "per_category": {
            category: {"accuracy": summed / seen, "count": seen}
            for category, (summed, seen) in sorted(by_category.items(), key=lambda entry: CATEGORIES.index(entry[0]))
        },
        "missing": missing,
        "count": count,
    }


def _mean_fluency(fluency, answered, count):
    if not answered:  # every prediction is missing, so every item scores 0
        return 0.0
    scores = list(fluency([answer for answer, _ in answered], [references for _, references in answered]))
    if len(scores) != len(answered):
        raise ValueError(
            f"The fluency scorer returned {len(scores)} scores for {len(answered)} answers; it must return one per answer."
        )
    for value in scores:
        if not 0.0 <= value <= 1.0:  # also refuses NaN
            raise ValueError(f"The fluency scorer returned {value!r}; FL scores lie in [0, 1].")
    return sum(float(value) for value in scores) / count


def _source_f1(predicted, positives):
    predicted = {str(source) for source in predicted}
    positives = {str(source) for source in positives}
    overlap = len(predicted & positives)
    precision = overlap / (len(predicted) + EPSILON)
    recall = overlap / (len(positives) + EPSILON)
    return 2 * precision * recall / (precision + recall + EPSILON)


@lru_cache(maxsize=1 << 16)
def _words(text):
    """The words of ``text`` as the official scorer's normalisation leaves them."""
    if len(text.strip()) == 1:
        return tuple(_as_digits(word) for word in text.lower().split())
    cleaned = _DOT_NOT_BEFORE_DIGIT.sub("", text.lower().translate(_PUNCTUATION_BUT_DOT))
    if len(text.split()) > 1:
        cleaned = _ARTICLE.sub(" ", cleaned)
    return tuple(lemma for word in cleaned.split() for lemma in _lemmas(word))


@lru_cache(maxsize=1 << 16)
def _lemmas(word):
    """One whitespace word of a cleaned text as spaCy would leave it: number words become
    digits first, then spaCy may split the word, then lemmatises each piece."""
    return tuple(_lemma(piece) for piece in _spacy_pieces(_as_digits(word)))


def _as_digits(word):
    # isdecimal() holds exactly for the digit strings int() reads ("٣" yes, "²" no).
    if word.isdecimal():
        return str(int(word))
    value = _NUMBER_VALUES.get(word)
    return word if value is None else str(value)


def _whole_numbers(words):
    """The words the official scorer reads as integers (signs and other characters int()
    would accept are gone by now), written without leading zeros."""
    return [str(int(word)) for word in words if word.isdecimal()]


def _detached(character):
    """Non-ASCII punctuation and symbols, which spaCy splits off a word's edges (the
    ASCII ones are gone by then)."""
    return not character.isascii() and unicodedata.category(character)[0] in "PS"


def _spacy_pieces(word):
    start, end = 0, len(word)
    while start < end and _detached(word[start]):
        start += 1
    while end > start and _detached(word[end - 1]):
        end -= 1
    core = word[start:end]
    pieces = list(word[:start])
    glued = _NUMBER_AND_UNIT.fullmatch(core) or _HOUR_AND_PERIOD.fullmatch(core)
    if glued:
        pieces += glued.groups()
    elif core:
        pieces.append(core)
    return pieces + list(word[end:])


@cache
def _domain_words():
    return frozenset().union(*answer_domains().values())


def _lemma(word):
    """Approximately spaCy's lemma of ``word``; see the module docstring for its limits."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) < 4 or not word.endswith("s") or not word.isalpha() or word in _NOT_PLURAL or word in _domain_words():
        return word
    if word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4 and word[:-1] not in _IE_NOUNS:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zzes")) and word[:-1] not in _E_NOUNS:
        return word[:-2]
    return word[:-1]
