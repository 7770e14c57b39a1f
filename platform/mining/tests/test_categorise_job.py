"""The categorisation job: categories stored on the pairs, staff corrections kept,
reasoning checks of screen questions, and running again changes nothing."""

import pytest
from django.core.management import call_command

from corpus.models import QAPair
from mining import services
from mining.models import MiningRun, ReasoningCheck
from tests.factories import UserFactory

from . import factories as make

pytestmark = pytest.mark.django_db


def categorise(**fields):
    run = services.start_run(job=MiningRun.Job.CATEGORISE, enqueue=False, **fields)
    return services.run_in_process(run=run)


def test_webqa_questions_get_their_category_and_staff_corrections_stick():
    colour = make.qa_pair("What colour is the tram?", "It is green.", keyword_answer="green", split_kind="image")
    text = make.qa_pair("Who founded the city?", "Romulus.", keyword_answer="Romulus", split_kind="text")
    corrected = make.qa_pair("How many domes are there?", "Three.", keyword_answer="3", split_kind="image")
    services.set_question_category(qa_pair=corrected, category="Others")

    run = categorise(scope=MiningRun.Scope.ALL)
    assert run.state == MiningRun.State.DONE and run.changed == 2
    assert QAPair.objects.get(pk=colour.pk).question_category == "color"
    assert QAPair.objects.get(pk=text.pk).question_category == "text"
    assert QAPair.objects.get(pk=corrected.pk).question_category == "Others", "a staff correction is never overwritten"
    assert categorise(scope=MiningRun.Scope.ALL).changed == 0


def test_screen_questions_whose_ticked_types_disagree_are_flagged_for_review():
    agreeing = make.qa_pair(
        "How many hotels cost less than $100 a night?", "4", split_kind="single_screen",
        reasoning_types=["counting", "filtering"],
    )  # fmt: skip
    disagreeing = make.qa_pair("How many hotels have a pool?", "3", split_kind="trace", reasoning_types=["arithmetic"])
    run = categorise()
    assert run.total == 2
    assert ReasoningCheck.objects.get(qa_pair=agreeing).state == "agrees"
    check = ReasoningCheck.objects.get(qa_pair=disagreeing)
    assert check.state == "open" and check.missing == ["counting"] and check.unsupported == ["arithmetic"]
    assert "counting" in check.message
    assert QAPair.objects.get(pk=disagreeing.pk).question_category == ""

    services.resolve_reasoning_check(check=check, actor=UserFactory(role="reviewer"), note="The author is right.")
    assert categorise(scope=MiningRun.Scope.ALL).changed == 0
    assert ReasoningCheck.objects.get(qa_pair=disagreeing).state == "resolved", "a reviewer's decision stands"

    QAPair.objects.filter(pk=disagreeing.pk).update(reasoning_types=["counting", "arithmetic"])
    categorise(scope=MiningRun.Scope.ALL)
    check = ReasoningCheck.objects.get(qa_pair=disagreeing)
    assert check.state == "open" and check.resolved_by is None, "new ticks are checked afresh"


def test_everything_new_covers_only_pairs_not_yet_categorised():
    make.qa_pair("What colour is the tram?", "Green.", keyword_answer="green", split_kind="image")
    assert categorise().total == 1
    fresh = make.qa_pair("What shape is the roof?", "Round.", keyword_answer="round", split_kind="image")
    run = categorise()
    assert run.total == 1 and run.chunks.get().qa_pair_ids == [fresh.pk]


def test_the_commands_run_the_jobs_here_and_report(capsys):
    pair = make.qa_pair("Is the tram green?", "Yes.", keyword_answer="yes", split_kind="image")
    call_command("categorise_questions", "--pair", str(pair.pk))
    assert QAPair.objects.get(pk=pair.pk).question_category == "YesNo"
    call_command("mine_distractors", "--all")
    out = capsys.readouterr().out
    assert "Categorise questions run" in out and "1 of 1 QA pairs processed" in out
    assert MiningRun.objects.filter(job="mine", state="done").exists()


def test_the_commands_refuse_an_unknown_batch_or_pair():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no batch 999"):
        call_command("mine_distractors", "--batch", "999")
    with pytest.raises(CommandError, match="no QA pairs 999"):
        call_command("categorise_questions", "--pair", "999")
