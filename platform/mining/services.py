"""Writes of the mining app: runs and their chunks, categories, distractors, reasoning checks.

A run goes ``queued → indexing → running → done | failed``. ``plan_run`` fixes the QA
pairs it covers and splits them into chunks; ``prepare_run`` builds the index a mining
run needs (once) and hands the chunks to the workers; each ``run_chunk`` stores its
results in one transaction and counts them on the run; the last chunk to finish closes
the run. A chunk that fails is retried on its own; chunks that are done are never redone.
"""

import hashlib
import uuid
from collections import defaultdict

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, Max, Q
from django.utils import timezone

from config.errors import DomainError
from corpus.models import ImageSource, QAPair, Snippet
from outbox import services as outbox

from . import categories, distractors, index, selectors
from .models import Distractor, MiningChunk, MiningRun, ReasoningCheck


class RunConflict(DomainError):
    status = 409
    code = "conflict"


def start_run(
    *, job, scope=MiningRun.Scope.NEW, batch=None, qa_pair_ids=(), chunk_size=None, created_by=None, enqueue=True
):
    """Creates a run and, once committed, hands it to a worker (``enqueue=False`` leaves
    that to the caller, e.g. a shell command that runs it in-process)."""
    if scope == MiningRun.Scope.BATCH and batch is None:
        raise DomainError("Choose the batch to run over.")
    if scope == MiningRun.Scope.QA_PAIRS and not qa_pair_ids:
        raise DomainError("Choose the QA pairs to run over.")
    qa_pair_ids = sorted(set(qa_pair_ids))
    unknown = set(qa_pair_ids) - set(QAPair.objects.filter(pk__in=qa_pair_ids).values_list("pk", flat=True))
    if unknown:
        raise DomainError(f"There are no QA pairs {', '.join(map(str, sorted(unknown)))}.")
    with transaction.atomic():
        run = MiningRun.objects.create(
            job=job,
            scope=scope,
            batch=batch if scope == MiningRun.Scope.BATCH else None,
            qa_pair_ids=qa_pair_ids if scope == MiningRun.Scope.QA_PAIRS else [],
            chunk_size=chunk_size or settings.MINING_CHUNK_SIZE,
            created_by=created_by,
        )
        if enqueue:
            _enqueue(prepare=run.pk)
    return run


def _enqueue(*, prepare=None, chunks=()):
    from . import tasks

    if prepare is not None:
        outbox.enqueue(tasks.prepare_run, prepare)
    for chunk_id in chunks:
        outbox.enqueue(tasks.run_chunk, chunk_id)


def plan_run(*, run_id):
    """Fixes the run's QA pairs (and, for mining, the pools it sees) and splits them into
    chunks. Does nothing to a run that is already planned."""
    with transaction.atomic():
        run = MiningRun.objects.select_for_update().get(pk=run_id)
        if run.state != MiningRun.State.QUEUED:
            return run
        ids = list(selectors.pairs_in_scope(run).values_list("pk", flat=True))
        MiningChunk.objects.bulk_create(
            MiningChunk(run=run, number=number, qa_pair_ids=ids[start : start + run.chunk_size])
            for number, start in enumerate(range(0, len(ids), run.chunk_size))
        )
        run.total = len(ids)
        run.started_at = timezone.now()
        run.state = MiningRun.State.INDEXING
        if run.job == MiningRun.Job.MINE:
            run.index_key = uuid.uuid4().hex
            run.snippet_max_id = Snippet.objects.aggregate(top=Max("pk"))["top"] or 0
            run.image_max_id = ImageSource.objects.aggregate(top=Max("pk"))["top"] or 0
        run.save()
    return run


def prepare_run(*, run_id):
    """Plans the run, builds its index and hands its waiting chunks to the workers.
    Safe to repeat: a planned run is not planned again, an index on disk is reused."""
    run = plan_run(run_id=run_id)
    if run.state != MiningRun.State.INDEXING:
        return run
    if run.job == MiningRun.Job.MINE and run.total:
        try:
            index.for_run(run)
        except Exception as error:
            MiningRun.objects.filter(pk=run.pk).update(
                state=MiningRun.State.FAILED, message=f"Building the index failed: {error}", finished_at=timezone.now()
            )
            raise
    with transaction.atomic():
        MiningRun.objects.filter(pk=run.pk).update(state=MiningRun.State.RUNNING)
        waiting = list(run.chunks.filter(state=MiningChunk.State.QUEUED).values_list("pk", flat=True))
        _enqueue(chunks=waiting)
    _finish_if_complete(run_id=run.pk)
    return run


def run_in_process(*, run, on_chunk=None):
    """Runs every step of ``run`` here, one chunk after another (for the shell commands
    when no worker is wanted); ``on_chunk(chunk)`` after each."""
    run = plan_run(run_id=run.pk)
    if run.job == MiningRun.Job.MINE and run.total:
        index.for_run(run)
    MiningRun.objects.filter(pk=run.pk).update(state=MiningRun.State.RUNNING)
    for chunk in run.chunks.filter(state=MiningChunk.State.QUEUED):
        run_chunk(chunk_id=chunk.pk)
        if on_chunk:
            on_chunk(chunk)
    _finish_if_complete(run_id=run.pk)
    return MiningRun.objects.get(pk=run.pk)


def run_chunk(*, chunk_id, lock_timeout_seconds=None):
    """Processes one chunk; a chunk that is already done is left alone. Returns the
    number of QA pairs whose stored result changed."""
    chunk = MiningChunk.objects.select_related("run").get(pk=chunk_id)
    if chunk.state == MiningChunk.State.DONE:
        return 0
    MiningChunk.objects.filter(pk=chunk.pk).update(
        state=MiningChunk.State.RUNNING, attempts=F("attempts") + 1, started_at=timezone.now()
    )
    run, ids = chunk.run, chunk.qa_pair_ids
    if run.job == MiningRun.Job.MINE:
        found = distractors.mine(ids, index.for_run(run))

        def write():
            return store_distractors(found=found)
    else:
        results = categorised(ids)

        def write():
            return store_categories(results=results)

    with transaction.atomic():
        _lock_pairs(ids, timeout_seconds=lock_timeout_seconds)
        changed = write()
        finished = MiningChunk.objects.filter(pk=chunk.pk).exclude(state=MiningChunk.State.DONE)
        if finished.update(state=MiningChunk.State.DONE, changed=changed, error="", finished_at=timezone.now()):
            MiningRun.objects.filter(pk=run.pk).update(
                processed=F("processed") + len(ids), changed=F("changed") + changed
            )
    _finish_if_complete(run_id=run.pk)
    return changed


def _lock_pairs(ids, *, timeout_seconds):
    """Locks the chunk's QA pairs, in id order, so that two runs writing the same pair
    take turns; gives up (and the chunk is retried) after ``timeout_seconds``."""
    if connection.vendor == "postgresql":
        timeout = timeout_seconds if timeout_seconds is not None else settings.MINING_LOCK_TIMEOUT_SECONDS
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('lock_timeout', %s, true)", [f"{int(timeout * 1000)}ms"])
    list(QAPair.objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk", flat=True))


def chunk_failed(*, chunk_id, error, final):
    """Notes a failed attempt; after the last one the chunk is ``failed`` and the run can
    close without it (and be retried later with ``retry_failed_chunks``)."""
    state = MiningChunk.State.FAILED if final else MiningChunk.State.QUEUED
    message = f"{type(error).__name__}: {error}"[:2000]
    MiningChunk.objects.filter(pk=chunk_id).exclude(state=MiningChunk.State.DONE).update(state=state, error=message)
    if final:
        _finish_if_complete(run_id=MiningChunk.objects.get(pk=chunk_id).run_id)


def _finish_if_complete(*, run_id):
    with transaction.atomic():
        run = MiningRun.objects.select_for_update().get(pk=run_id)
        if run.state != MiningRun.State.RUNNING:
            return run
        counts = dict(run.chunks.values_list("state").annotate(n=Count("pk")).values_list("state", "n"))
        if counts.get(MiningChunk.State.QUEUED) or counts.get(MiningChunk.State.RUNNING):
            return run
        failed = counts.get(MiningChunk.State.FAILED, 0)
        run.state = MiningRun.State.FAILED if failed else MiningRun.State.DONE
        run.message = f"{failed} chunk(s) failed; retry them once the cause is fixed." if failed else ""
        run.finished_at = timezone.now()
        run.save(update_fields=["state", "message", "finished_at"])
    if run.state == MiningRun.State.DONE and run.job == MiningRun.Job.MINE:
        index.remove(run)
    return run


def retry_failed_chunks(*, run):
    """Hands a failed run's failed chunks to the workers again; done chunks stay done."""
    with transaction.atomic():
        run = MiningRun.objects.select_for_update().get(pk=run.pk)
        if run.state != MiningRun.State.FAILED:
            raise RunConflict(f"Only a failed run can be retried; this one is {run.get_state_display().lower()}.")
        run.chunks.filter(state=MiningChunk.State.FAILED).update(state=MiningChunk.State.QUEUED, error="")
        # prepare_run picks it up from here: the index (kept on failure) is loaded or
        # built again, and the waiting chunks go to the workers.
        run.state = MiningRun.State.INDEXING
        run.message = ""
        run.finished_at = None
        run.save(update_fields=["state", "message", "finished_at"])
        _enqueue(prepare=run.pk)
    return run


# --- Distractors ---------------------------------------------------------------------------


def store_distractors(*, found):
    """Stores ``{(pair id, kind): [Pick, …]}``, touching only the pairs and kinds whose
    picks differ from what is stored: a run over unchanged data writes nothing. Returns
    the number of QA pairs changed."""
    stored = defaultdict(list)
    rows = (
        Distractor.objects.filter(qa_pair_id__in={pair_id for pair_id, _ in found})
        .order_by("qa_pair_id", "kind", "rank")
        .values_list("qa_pair_id", "kind", "snippet_id", "image_id", "screen_id", "method", "score")
    )
    for pair_id, kind, snippet_id, image_id, screen_id, method, score in rows:
        stored[(pair_id, kind)].append((snippet_id or image_id or screen_id, method, score))
    changed = [
        key for key, picks in found.items() if stored.get(key, []) != [(p.source_id, p.method, p.score) for p in picks]
    ]
    if not changed:
        return 0
    stale = defaultdict(list)
    for pair_id, kind in changed:
        stale[kind].append(pair_id)
    Distractor.objects.filter(
        Q(*[Q(kind=kind, qa_pair_id__in=pair_ids) for kind, pair_ids in stale.items()], _connector=Q.OR)
    ).delete()
    source_field = {Distractor.Kind.TEXT: "snippet_id", Distractor.Kind.IMAGE: "image_id"}
    Distractor.objects.bulk_create(
        Distractor(
            qa_pair_id=pair_id,
            kind=kind,
            method=pick.method,
            score=pick.score,
            rank=rank,
            **{source_field.get(kind, "screen_id"): pick.source_id},
        )
        for pair_id, kind in changed
        for rank, pick in enumerate(found[(pair_id, kind)], start=1)
    )
    return len({pair_id for pair_id, _ in changed})


# --- Categories and reasoning checks ---------------------------------------------------------


def _digest(question):
    return hashlib.sha256(question.encode()).hexdigest()


def categorised(pair_ids):
    """What the categorisation job finds for each pair: ``{id: ("category", value)}`` for
    WebQA questions (None for a category staff set by hand) and ``{id: ("check", fields)}``
    for screen questions."""
    results = {}
    fields = ("pk", "split_kind", "question", "answer", "keyword_answer", "reasoning_types", "question_category_manual")
    checked = categories.screen_split_kinds()
    for row in QAPair.objects.filter(pk__in=pair_ids).values(*fields):
        if row["split_kind"] in checked:
            declared = sorted(set(row["reasoning_types"] or []))
            missing, unsupported = categories.reasoning_disagreement(row["question"], declared)
            agrees = declared and not missing and not unsupported
            results[row["pk"]] = (
                "check",
                {
                    "declared": declared,
                    "detected": categories.detect_reasoning_types(row["question"]),
                    "missing": missing,
                    "unsupported": unsupported,
                    "question_digest": _digest(row["question"]),
                    "state": ReasoningCheck.State.AGREES if agrees else ReasoningCheck.State.OPEN,
                },
            )
        elif not row["question_category_manual"]:
            results[row["pk"]] = ("category", categories.categorise(row))
    return results


def store_categories(*, results):
    """Stores what ``categorised`` found; never overwrites a category staff set by hand,
    and leaves a reviewer's decision on a check alone while the question and its ticked
    types stay the same. Returns the number of QA pairs changed."""
    changed = 0
    by_category = defaultdict(list)
    for pair_id, (what, value) in results.items():
        if what == "category":
            by_category[value].append(pair_id)
    for category, pair_ids in by_category.items():
        changed += (
            QAPair.objects.filter(pk__in=pair_ids, question_category_manual=False)
            .exclude(question_category=category)
            .update(question_category=category)
        )
    checks = {pair_id: value for pair_id, (what, value) in results.items() if what == "check"}
    existing = {check.qa_pair_id: check for check in ReasoningCheck.objects.filter(qa_pair_id__in=checks)}
    for pair_id, fields in checks.items():
        check = existing.get(pair_id)
        if check and check.question_digest == fields["question_digest"] and check.declared == fields["declared"]:
            continue  # same question, same ticks: the earlier verdict (or a reviewer's) stands
        ReasoningCheck.objects.update_or_create(
            qa_pair_id=pair_id, defaults={**fields, "resolved_by": None, "resolved_at": None, "note": ""}
        )
        changed += 1
    return changed


def set_question_category(*, qa_pair, category, actor=None):
    """Staff correct a question's category; the categorisation job never changes it again."""
    if category not in categories.CATEGORIES:
        raise DomainError(f"“{category}” is not a question category; use one of {', '.join(categories.CATEGORIES)}.")
    QAPair.objects.filter(pk=qa_pair.pk).update(question_category=category, question_category_manual=True)
    qa_pair.question_category, qa_pair.question_category_manual = category, True
    return qa_pair


def resolve_reasoning_check(*, check, actor, note=""):
    """A reviewer has looked at a disagreement (and corrected the pair's types, or kept
    the author's): the check is closed until the question or its types change."""
    with transaction.atomic():
        check = ReasoningCheck.objects.select_for_update().get(pk=check.pk)
        if check.state != ReasoningCheck.State.OPEN:
            raise RunConflict("This check is not open.")
        check.state = ReasoningCheck.State.RESOLVED
        check.resolved_by = actor
        check.resolved_at = timezone.now()
        check.note = note
        check.save(update_fields=["state", "resolved_by", "resolved_at", "note", "checked_at"])
    return check
