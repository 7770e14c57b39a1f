"""Reads for the mining jobs: which QA pairs a run covers."""

from django.db.models import Exists, OuterRef, Q

from corpus.models import QAPair
from hits import registry

from . import categories
from .models import Distractor, MiningRun, ReasoningCheck


def mined_split_kinds():
    """Split kinds whose writing kind declares negatives to mine."""
    return registry.split_kinds(lambda kind: bool(kind.negatives))


def webqa_categorised_split_kinds():
    return registry.split_kinds(lambda kind: kind.categorised_as in ("webqa", "text"))


def pairs_in_scope(run):
    """The QA pairs ``run`` covers, by id: never drafts or rejected pairs, and only the
    kinds of question its job applies to."""
    pairs = QAPair.objects.filter(state__in=[QAPair.State.PENDING_VALIDATION, QAPair.State.ACCEPTED])
    if run.job == MiningRun.Job.MINE:
        pairs = pairs.filter(split_kind__in=mined_split_kinds())
        new = ~Exists(Distractor.objects.filter(qa_pair=OuterRef("pk")))
    else:
        pairs = pairs.filter(split_kind__in=categories.categorised_split_kinds())
        new = Q(
            split_kind__in=webqa_categorised_split_kinds(), question_category="", question_category_manual=False
        ) | Q(
            ~Exists(ReasoningCheck.objects.filter(qa_pair=OuterRef("pk"))),
            split_kind__in=categories.screen_split_kinds(),
        )
    if run.scope == MiningRun.Scope.NEW:
        pairs = pairs.filter(new)
    elif run.scope == MiningRun.Scope.BATCH:
        pairs = pairs.filter(assignment__batch_id=run.batch_id)
    elif run.scope == MiningRun.Scope.QA_PAIRS:
        pairs = pairs.filter(pk__in=run.qa_pair_ids)
    return pairs.order_by("pk")
