"""Reads for the mining jobs: which QA pairs a run covers."""

from django.db.models import Exists, OuterRef, Q

from collection.models import QAPair

from . import categories
from .models import Distractor, MiningRun, ReasoningCheck

WEBQA_SPLIT_KINDS = ("image", "text")
MINED_SPLIT_KINDS = (*WEBQA_SPLIT_KINDS, "trace", "multi_screen")
CATEGORISED_SPLIT_KINDS = (*WEBQA_SPLIT_KINDS, *categories.SCREEN_SPLIT_KINDS)


def pairs_in_scope(run):
    """The QA pairs ``run`` covers, by id: never drafts or rejected pairs, and only the
    kinds of question its job applies to."""
    pairs = QAPair.objects.filter(state__in=[QAPair.State.PENDING_VALIDATION, QAPair.State.ACCEPTED])
    if run.job == MiningRun.Job.MINE:
        pairs = pairs.filter(split_kind__in=MINED_SPLIT_KINDS)
        new = ~Exists(Distractor.objects.filter(qa_pair=OuterRef("pk")))
    else:
        pairs = pairs.filter(split_kind__in=CATEGORISED_SPLIT_KINDS)
        new = Q(split_kind__in=WEBQA_SPLIT_KINDS, question_category="", question_category_manual=False) | Q(
            ~Exists(ReasoningCheck.objects.filter(qa_pair=OuterRef("pk"))),
            split_kind__in=categories.SCREEN_SPLIT_KINDS,
        )
    if run.scope == MiningRun.Scope.NEW:
        pairs = pairs.filter(new)
    elif run.scope == MiningRun.Scope.BATCH:
        pairs = pairs.filter(assignment__batch_id=run.batch_id)
    elif run.scope == MiningRun.Scope.QA_PAIRS:
        pairs = pairs.filter(pk__in=run.qa_pair_ids)
    return pairs.order_by("pk")
