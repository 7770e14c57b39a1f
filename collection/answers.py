"""Answer types: WebQuest scores numbers and text differently, so each answer's type is
detected when it is written and shown to the rater (the page's script mirrors this)."""

import re

from corpus.models import AnswerType

_CURRENCY = "$€£¥₹"
_INTEGER = re.compile(r"^[+-]?\d{1,3}(,\d{3})+$|^[+-]?\d+$")
_DECIMAL = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d*)\.\d+$")


def answer_type(answer):
    """``integer`` for whole numbers (1,234 and $40 included), ``decimal`` for numbers
    with a fractional part (3.5, $12.99, 7.5%), ``text`` for everything else."""
    value = answer.strip().strip(_CURRENCY).removesuffix("%").strip()
    if _INTEGER.match(value):
        return AnswerType.INTEGER
    if _DECIMAL.match(value):
        return AnswerType.DECIMAL
    return AnswerType.TEXT
