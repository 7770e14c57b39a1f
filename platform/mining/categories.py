"""Question categories, by our own rules over the question and its answer.

WebQA's scorer reads a question's category (``Qcate``) to decide how its keyword answer
is marked: ``YesNo``, ``color``, ``shape`` and ``number`` answers only count words of a
fixed answer domain (``data/webqa_answer_domains.json``, the scorer's own lists), so a
closed-class question whose keyword answer is outside its domain scores 0 however well
it is answered. ``keyword_problem`` says so while the worker can still fix it.

Screen questions (WebQuest) have no WebQA category; their authors tick reasoning types,
which ``reasoning_disagreement`` checks against cues in the question.

Everything here is pure: no database, so the QA kinds can call it on a submission.
"""

import json
import re
from functools import cache
from pathlib import Path

from hits import registry

YES_NO = "YesNo"
CHOOSE = "choose"
NUMBER = "number"
COLOR = "color"
SHAPE = "shape"
OTHERS = "Others"
TEXT = "text"
IMAGE_CATEGORIES = (YES_NO, CHOOSE, NUMBER, COLOR, SHAPE, OTHERS)
CATEGORIES = (*IMAGE_CATEGORIES, TEXT)


# Which split kinds get which treatment is declared by the task kind writing them
# (``TaskKind.categorised_as``, ``TaskKind.negatives``); a split kind no kind writes
# gets neither a category nor negatives.
def screen_split_kinds():
    """Split kinds whose writers tick reasoning types (checked instead of categorised)."""
    return registry.split_kinds(lambda kind: kind.categorised_as == "reasoning")


def categorised_split_kinds():
    return registry.split_kinds(lambda kind: kind.categorised_as in ("webqa", "text", "reasoning"))


# Words a yes/no question can start with ("Is the roof red?", "Can you see …?").
AUXILIARIES = {
    "is", "are", "was", "were", "am", "do", "does", "did", "can", "could", "will", "would",
    "shall", "should", "may", "might", "must", "has", "have", "had",
    "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't", "didn't", "can't", "couldn't",
    "won't", "wouldn't", "shouldn't", "hasn't", "haven't", "hadn't",
}  # fmt: skip
PLACEHOLDERS = {"", "-", "?", "n/a", "na", "none", "null", "unknown", "tbd", "todo", "see answer", "answer", "keyword"}
NUMBER_WORDS = {
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty",
    "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand", "million",
}  # fmt: skip

_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")


@cache
def answer_domains():
    """The scorer's answer domains: ``{"color": set, "shape": set, "yesno": set}``."""
    data = json.loads((Path(__file__).parent / "data" / "webqa_answer_domains.json").read_text())
    return {name: frozenset(data[name]) for name in ("color", "shape", "yesno")}


def _words(text):
    return _WORD.findall((text or "").lower().replace("’", "'"))


def _fields(qa_pair_or_fields):
    """(split_kind, question, answer, keyword_answer) of a QA pair or a mapping of its fields."""
    source = qa_pair_or_fields
    if isinstance(source, dict):
        get = source.get
    else:

        def get(name, default=""):
            return getattr(source, name, default)

    return (
        get("split_kind", "") or "",
        get("question", "") or "",
        get("answer", "") or "",
        get("keyword_answer", "") or "",
    )


def _opening_words(question):
    """The question's first word, and the first word after a leading phrase set off by a
    comma ("In this picture, is …"): either can be what makes it a yes/no question."""
    words = _words(question)
    openings = words[:1]
    head, comma, rest = question.partition(",")
    if comma and len(_words(head)) <= 6:
        openings += _words(rest)[:1]
    return openings


def _is_yes_or_no(answer, keyword_answer):
    first = (_words(keyword_answer) or _words(answer) or [""])[0]
    return first in answer_domains()["yesno"]


def _offers_alternatives(question):
    """ "…, the hare or the rabbit?" / "Which of the two …" / "Which one …"."""
    text = question.lower()
    return bool(re.search(r"\bor\b", text)) or bool(re.search(r"\bwhich (one|of)\b", text))


def categorise_image_question(question, answer="", keyword_answer=""):
    """The WebQA category of an image question, first rule that matches:

    1. ``YesNo`` — it opens with an auxiliary verb ("Is …", "Does …") and is not a
       choice between alternatives, or its answer is yes/no;
    2. ``choose`` — it offers alternatives ("… A or B?", "Which of …", "Which one …");
    3. ``number`` — it asks how many, or for a number of something;
    4. ``color`` — it asks about a colour;
    5. ``shape`` — it asks about a shape;
    6. ``Others``.
    """
    words = set(_words(question))
    opens_as_yes_no = any(word in AUXILIARIES for word in _opening_words(question))
    if _is_yes_or_no(answer, keyword_answer) and (opens_as_yes_no or not _offers_alternatives(question)):
        return YES_NO
    if _offers_alternatives(question):
        return CHOOSE
    if opens_as_yes_no:
        return YES_NO
    text = " ".join(_words(question))
    if re.search(r"\bhow many\b|\bnumber of\b|\bwhat number\b|\bcount\b", text):
        return NUMBER
    if words & {"color", "colour", "colors", "colours", "colored", "coloured"}:
        return COLOR
    if words & {"shape", "shapes", "shaped"}:
        return SHAPE
    return OTHERS


def categorise(qa_pair_or_fields):
    """The WebQA category of a QA pair (or of a dict with ``split_kind``, ``question``,
    ``answer`` and ``keyword_answer``): one of ``CATEGORIES`` for WebQA questions, ``""``
    for screen questions, which have none."""
    split_kind, question, answer, keyword_answer = _fields(qa_pair_or_fields)
    writer = registry.writing(split_kind)
    scheme = writer.categorised_as if writer else ""
    if scheme == "text":
        return TEXT
    if scheme == "webqa":
        return categorise_image_question(question, answer, keyword_answer)
    return ""


def _as_integer(word):
    return word.replace(",", "").isdigit() or word in NUMBER_WORDS


def keyword_problem(category, keyword_answer):
    """What is wrong with ``keyword_answer`` for a question of ``category``, in words a
    worker can act on; None when the scorer can mark it."""
    if category not in CATEGORIES and category != "":
        raise ValueError(f"Unknown question category {category!r}; expected one of {', '.join(CATEGORIES)}.")
    keyword = (keyword_answer or "").strip()
    words = _words(keyword)
    if category == "":
        return None
    if keyword.lower().strip(" .\"'") in PLACEHOLDERS:
        return "Give a keyword answer: the few words of the answer that a correct reply must contain."
    domains = answer_domains()
    if category == YES_NO and (len(words) != 1 or words[0] not in domains["yesno"]):
        return f"A yes/no question's keyword answer must be just “yes” or “no”, not “{keyword}”."
    if category == NUMBER and not any(_as_integer(word) for word in keyword.lower().split()):
        return f"A how-many question's keyword answer must be a whole number, in digits (e.g. 3), not “{keyword}”."
    for name, label in ((COLOR, "colour"), (SHAPE, "shape")):
        if category == name and not set(words) & domains[name]:
            examples = ", ".join(sorted(domains[name])[:8])
            return (
                f"A {label} question's keyword answer must use the scorer's {label} words; “{keyword}” has none "
                f"(e.g. {examples}; the full list is in mining/data/webqa_answer_domains.json)."
            )
    return None


# --- Reasoning types of screen questions ------------------------------------------------
# Cues that a question needs a kind of reasoning. They are deliberately plain: a question
# whose ticked types disagree with them goes to a person, who decides.
REASONING_CUES = {
    "arithmetic": (
        r"\bhow much\b|\btotal\b|\bin all\b|\baltogether\b|\bcombined\b|\bsum\b|\baverage\b|\bdifference\b"
        r"|\bhow (much|many) (more|less|fewer|longer|shorter|cheaper)\b|\bpercent(age)?\b|\bplus\b|\bminus\b"
        r"|\btimes as\b|\bsave\b|\bafter (a|the)\b.*\bdiscount\b|\bper (night|person|day|month|hour)\b"
    ),
    "comparison": (
        r"\b(cheap|expensive|high|low|large|small|big|long|short|fast|slow|good|bad|near|far|old|new|late|early)"
        r"(er|est)\b|\bmost\b|\bleast\b|\bbest\b|\bworst\b|\bbetter\b|\bworse\b|\bcompare[ds]?\b"
        r"|\bhigher\b|\blower\b|\bmore expensive\b|\bless expensive\b|\bmaximum\b|\bminimum\b"
    ),
    "counting": r"\bhow many\b|\bnumber of\b|\bcount\b",
    "filtering": (
        r"\bunder\b|\bover\b|\bbelow\b|\babove\b|\bat least\b|\bat most\b|\bonly\b|\bwith (a|an|the)?\b"
        r"|\bwhich of\b|\bamong\b|\bthat (are|is|have|has|cost|offer)\b|\bbetween\b|\bwithin\b|\bexcluding\b"
        r"|\bmore than\b|\bless than\b|\bfewer than\b|\brated\b|\bavailable\b"
    ),
}


def detect_reasoning_types(question):
    """The reasoning types whose cues appear in ``question``, in a fixed order."""
    text = " ".join(_words(question))
    return [name for name, pattern in REASONING_CUES.items() if re.search(pattern, text)]


def reasoning_disagreement(question, declared):
    """How the author's ticked reasoning types (``declared``) disagree with the cues in the
    question: ``(missing, unsupported)`` lists, both empty when they agree.

    ``missing``: types the question plainly needs that were not ticked; ``unsupported``:
    ticked types with no cue in the question at all.
    """
    detected = detect_reasoning_types(question)
    declared = sorted(set(declared or []))
    missing = [name for name in detected if name not in declared]
    unsupported = [name for name in declared if name not in detected]
    return missing, unsupported
