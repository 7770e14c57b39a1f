"""The trace question form as the task page posts it: blocks added and left blank."""

from django.http import QueryDict

from collection.kinds.trace_qa import TraceQA


def _post(fields):
    data = QueryDict(mutable=True)
    for key, values in fields.items():
        data.setlist(key, values)
    return data


def test_a_block_added_and_left_blank_is_not_sent_as_a_question():
    post = _post({
        "pair_count": ["2"],
        "pair-0-question": ["How many?"], "pair-0-answer": ["2"], "pair-0-steps": ["4", "5", "6"],
        "pair-1-question": [" "], "pair-1-answer": [""],
    })  # fmt: skip
    pairs = TraceQA().form_data(post)["pairs"]
    assert [pair["question"] for pair in pairs] == ["How many?"] and pairs[0]["steps"] == ["4", "5", "6"]


def test_a_lone_blank_block_stays_so_that_the_errors_say_what_is_missing():
    pairs = TraceQA().form_data(_post({"pair_count": ["1"], "pair-0-question": [""], "pair-0-answer": [""]}))["pairs"]
    assert pairs == [{"steps": [], "question": "", "answer": "", "reasoning_types": []}]
