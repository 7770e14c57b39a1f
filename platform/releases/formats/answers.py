"""A record's answers, and the answer domains of WebQA's accuracy metric: a closed-class
keyword answer outside them scores 0 however right it is, so releases leave such pairs out
(and count them)."""

import re
from functools import cache

from mining.categories import answer_domains

from ..scoring import webquest


@cache
def domains():
    """The scorer's word lists (kept once, with the categoriser: ``mining.categories``)."""
    data = answer_domains()
    return {"color": data["color"], "shape": data["shape"], "YesNo": data["yesno"]}


def keyword_fits_domain(category, keyword):
    """Whether ``keyword`` can score for a WebQA question of ``category``."""
    words = re.findall(r"[a-z0-9]+", keyword.lower())
    if category == "number":
        return any(word.isdigit() for word in words)
    if category in domains():
        return any(word in domains()[category] for word in words)
    return True


def answers_of(record):
    """The pair's answer, then the reference answers validators wrote, each once. A
    WebQuest answer also carries its variants (relaxed accuracy takes the best match):
    those made by rule from the author's answer (with or without a currency sign or
    word, thousands separators, percent, number words), then those validators added."""
    answers = [record["answer"]]
    extra = list(record.get("reference_answers", ()))
    if record.get("family") == "webquest":
        extra += webquest.answer_variants(record["answer"]) + list(record.get("answer_variants", ()))
    for answer in extra:
        if answer not in answers:
            answers.append(answer)
    return answers
