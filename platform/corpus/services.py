"""Every write to the dataset's records that more than one app makes: QA pairs with their
evidence, and what follows a review decision on an asset the records cite."""

from django.db import transaction
from django.utils import timezone

from .models import Episode, Evidence, QAPair, Screen
from .signals import pair_decided, pairs_written

EVIDENCE_FIELDS = {"screen", "step", "image_id", "snippet_id", "fact", "url", "note"}


@transaction.atomic
def write_pairs(*, assignment, pairs, kind=None):
    """Writes the QA pairs a submission made, each with its ordered evidence, and sends
    ``pairs_written`` (validation queues them). Returns the pairs, in order.

    ``pairs`` is a list of dicts of ``QAPair`` fields (``question``, ``answer`` …) with an
    ``evidence`` list of dicts naming one source each: ``screen`` (and ``step`` for a
    trace), ``image_id``, ``snippet_id``, or ``fact`` with its ``url``; any may carry a
    ``note``; a navigation question has an ``episode`` dict (``Episode`` fields but the
    pair). ``kind`` (the task kind writing them) gives each pair the family and split
    kind it declares. The author is the assignment's worker. Meant to run inside the
    submission's transaction: a refused piece of evidence (the database checks that each
    names exactly one source) rolls the whole submission back.
    """
    written, evidence = [], []
    for fields in pairs:
        fields = dict(fields)
        if kind is not None:
            fields.update(_declared_by(kind, fields))
        pieces = fields.pop("evidence")
        episode = fields.pop("episode", None)
        qa_pair = QAPair.objects.create(author_id=assignment.worker_id, assignment=assignment, **fields)
        if episode is not None:
            Episode.objects.create(qa_pair=qa_pair, **episode)
        for position, piece in enumerate(pieces):
            unknown = set(piece) - EVIDENCE_FIELDS
            if unknown:
                raise TypeError(f"Evidence has no field {sorted(unknown)[0]!r}.")
            evidence.append(Evidence(qa_pair=qa_pair, position=position, **piece))
        written.append(qa_pair)
    Evidence.objects.bulk_create(evidence)
    pairs_written.send(sender=QAPair, qa_pairs=written)
    return written


@transaction.atomic
def add_answer_variants(*, qa_pair, variants):
    """Other ways to write the pair's answer (a validator's, while judging it): kept in
    order, each once, never the answer itself. Scorers take the best match over them."""
    pair = QAPair.objects.select_for_update().only("answer", "answer_variants").get(pk=qa_pair.pk)
    known = {pair.answer.strip(), *pair.answer_variants}
    added = [variant for variant in dict.fromkeys(v.strip() for v in variants) if variant and variant not in known]
    if added:
        pair.answer_variants = [*pair.answer_variants, *added]
        pair.save(update_fields=["answer_variants"])
    qa_pair.answer_variants = pair.answer_variants
    return pair.answer_variants


def _declared_by(kind, fields):
    declared = {"family": kind.family, "split_kind": kind.split_kind}
    for name, value in declared.items():
        if fields.get(name, value) != value:
            raise ValueError(f"The {kind.name} kind writes {name} {value!r}, not {fields[name]!r}.")
    return declared


@transaction.atomic
def decide_pair(*, qa_pair, state, reason=""):
    """Sets an accepted or rejected pair's state (with the reason its author reads) and
    sends ``pair_decided``. Meant for the caller's transaction (validation's decision)."""
    QAPair.objects.filter(pk=qa_pair.pk).update(state=state, state_reason=reason, decided_at=timezone.now())
    qa_pair.state, qa_pair.state_reason = state, reason
    pair_decided.send(sender=QAPair, qa_pair=qa_pair, state=state)
    return qa_pair


def follow_redaction(*, original, replacement, **_signal):
    """A redacted copy takes the original's place in every screen."""
    Screen.objects.filter(asset=original).update(asset=replacement)


def reject_pairs_citing(*, asset, reason, **_signal):
    """Questions citing a rejected screen are rejected too, with the reviewer's reason."""
    QAPair.objects.filter(evidence__screen__asset=asset).exclude(state=QAPair.State.REJECTED).update(
        state=QAPair.State.REJECTED, state_reason=f"A screen it uses was rejected in review: {reason}"
    )


def regraph_sites_showing(*, asset=None, replacement=None, **_signal):
    """A screenshot cleared, uncleared, redacted or rejected changes the navigation graphs of the sites
    whose trace steps show it: each is rebuilt by a job."""
    from .models import TraceStep

    _regraph(TraceStep.objects.filter(screen__asset=asset or replacement).values_list("url", flat=True).distinct())


def regraph_sites_of_trace(*, trace):
    """A finished trace whose screenshots were already cleared (e.g. pages recorded before)
    feeds its sites' graphs at once."""
    from assets.models import Asset

    steps = trace.steps.filter(screen__asset__review_state=Asset.ReviewState.CLEARED)
    _regraph(steps.values_list("url", flat=True).distinct())


def request_rebuild(*, site):
    """Asks a worker to rebuild ``site``'s navigation graph from its traces now; returns the job."""
    from django.utils import timezone

    from outbox.services import enqueue

    return enqueue("corpus.rebuild_site_graph", site.pk, timezone.now().isoformat())


def _regraph(urls):
    from django.utils import timezone

    from outbox.services import enqueue

    from .models import Site, host_of

    hosts = {host_of(url) for url in urls}
    for site_id in Site.objects.filter(host__in=hosts - {""}).values_list("pk", flat=True):
        enqueue("corpus.rebuild_site_graph", site_id, timezone.now().isoformat())
