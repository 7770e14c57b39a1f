"""What the WebQA-style kinds share: answers as full sentences with a keyword answer,
questions that make sense without the page they were written on, and ids checked
against the task's own sources."""

import re

from rest_framework import serializers

# Questions that point at what the worker sees rather than naming it: they mean nothing
# to someone given the question alone, as a model is.
_BOUND_TO_PAGE = re.compile(
    r"\b(this|that|these|those|the above|the following|the shown|the left|the right|the first|the second|the third|"
    r"the fourth|the fifth|the sixth|the last)\s+(image|images|picture|pictures|photo|photos|photograph|photographs|"
    r"snippet|snippets|passage|passages|text)\b"
    r"|\b(image|picture|photo|snippet|passage)\s*(#\s*)?\d\b"
    r"|\b(shown|pictured|depicted)\s+(above|below|here)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?][\"'”’)]*$")


QUESTION_ERRORS = {"blank": "Write the question.", "required": "Write the question."}
ANSWER_ERRORS = {"blank": "Write the answer as a full sentence.", "required": "Write the answer as a full sentence."}
KEYWORD_ERRORS = {
    "blank": "Give the keyword answer: the few words that answer the question.",
    "required": "Give the keyword answer: the few words that answer the question.",
}


def check_standalone_question(question):
    match = _BOUND_TO_PAGE.search(question)
    if match:
        raise serializers.ValidationError(
            f"The question refers to “{match.group(0)}”. Name what you mean instead, so that the question "
            "makes sense to someone who does not see the task's sources."
        )
    return question.strip()


def check_full_sentence(answer):
    answer = answer.strip()
    if len(answer.split()) < 4 or not _SENTENCE_END.search(answer):
        raise serializers.ValidationError(
            "Write the answer as a full sentence that repeats what the question asks about and ends with a full "
            "stop, e.g. “The tower of the old town hall is taller than the cathedral's spire.”"
        )
    return answer


def check_keyword_answer(keyword):
    keyword = keyword.strip()
    if len(keyword.split()) > 6:
        raise serializers.ValidationError("Keep the keyword answer to the few words that answer the question.")
    return keyword


def checked_ids(ids, *, allowed, what):
    """``ids`` without repeats and all in ``allowed``, else a clear error."""
    if len(set(ids)) != len(ids):
        raise serializers.ValidationError(f"The same {what} is chosen twice.")
    unknown = [pk for pk in ids if pk not in allowed]
    if unknown:
        raise serializers.ValidationError(f"{what.capitalize()} {unknown[0]} is not one of this task's {what}s.")
    return ids


def existing_ids(ids, *, model, what):
    """Task input: ``ids`` without repeats, each a ``model`` row, else a clear error."""
    if len(set(ids)) != len(ids):
        raise serializers.ValidationError(f"A {what} is listed twice.")
    found = set(model.objects.filter(pk__in=ids).values_list("pk", flat=True))
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise serializers.ValidationError(f"There is no pool {what} {missing[0]}.")
    return ids


class WebQAAnswer(serializers.Serializer):
    """A WebQA question with its full-sentence and keyword answers, held to the guidelines."""

    question = serializers.CharField(max_length=1000, error_messages=QUESTION_ERRORS)
    answer = serializers.CharField(max_length=1000, error_messages=ANSWER_ERRORS)
    keyword_answer = serializers.CharField(max_length=100, error_messages=KEYWORD_ERRORS)

    def validate_question(self, question):
        return check_standalone_question(question)

    def validate_answer(self, answer):
        return check_full_sentence(answer)

    def validate_keyword_answer(self, keyword):
        return check_keyword_answer(keyword)


def int_list(values):
    """Form values as ints, dropping anything that is not a number (the server checks the rest)."""
    return [int(value) for value in values if str(value).isdigit()]
