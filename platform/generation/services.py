"""Generation runs (WebVLN §4.2): a generator writes QA candidates from the text of
recorded site pages; assessors check a sample of each site's candidates, and the sample
decides for the rest.

1. ``start_run`` records the run and queues ``plan_run``, which lists the pages (those of
   the chosen sites' navigation graphs at least two clicks from the homepage, with a
   cleared screenshot), skips the ones the same generator version did in an earlier run,
   and hands the rest out in chunks.
2. ``generate_chunk`` reads each page's text (its stored HTML, else OCR of its
   screenshot), masks what the personal-data detectors find, runs the generator, and
   writes each candidate as a navigation question on that page: a QA pair in the
   ``candidate`` state with its episode, evidence and provenance. A page that fails is
   recorded with the reason; the run goes on.
3. When every page is done, ``finish_generation`` draws each site's sample (seeded) and
   sends it for assessment (``review_wanted``: validation queues a candidate-review task
   for each, two assessors, a third on disagreement).
4. As sampled candidates are decided (``corpus.signals.pair_decided``), ``count_decision``
   tallies the site's sample; once it is all decided, an acceptance rate at or above the
   run's threshold accepts the rest of the site's candidates, and a lower one holds them
   for full review (each is sent for assessment too). Nothing unaccepted is ever released.
"""

import random

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from assets.models import Asset
from config.errors import DomainError
from corpus.models import Episode, Evidence, NavPage, QAPair, Site
from corpus.navigation import MIN_TRANSITIONS, Graph
from outbox.services import enqueue

from . import pagetext
from .generators import BudgetExhausted, GenerationFailed, PageInput
from .generators import get as get_generator
from .generators import names as generator_names
from .models import Candidate, CandidateEdit, GeneratedPage, GenerationRun, SiteSample
from .signals import review_wanted


class BadRun(DomainError):
    status = 400
    code = "invalid"


@transaction.atomic
def start_run(*, created_by, generator="rules", parameters=None, sites=(), sample_size=100, threshold=0.8,
              chunk_size=20):  # fmt: skip
    """Records a run and queues its planning; refuses an unknown generator or bad parameters."""
    if generator not in generator_names():
        raise BadRun(f"There is no generator named “{generator}”; known: {', '.join(generator_names())}.")
    if not 0 <= threshold <= 1:
        raise BadRun("The threshold is an acceptance rate between 0 and 1.")
    try:
        made = get_generator(generator, **(parameters or {}))
    except (TypeError, ValueError) as error:
        raise BadRun(str(error)) from None
    secret = set(made.secret_parameters) & set(parameters or {})
    if secret:
        raise BadRun(
            f"Set {', '.join(sorted(secret))} in the server's settings, not in a run: runs are shown to staff."
        )
    described = made.describe()
    run = GenerationRun.objects.create(
        generator=generator, parameters=parameters or {}, generator_version=described["version"],
        prompt_version=described.get("prompt_version", ""), prompt=described.get("prompt", ""),
        sample_size=sample_size, threshold=threshold, chunk_size=chunk_size, created_by=created_by,
    )  # fmt: skip
    run.sites.set(sites)
    enqueue("generation.plan_run", run.pk)
    return run


def _target_pages(run):
    sites = run.sites.all() if run.sites.exists() else Site.objects.filter(active=True)
    return (
        NavPage.objects.filter(
            site__in=sites, depth__gte=MIN_TRANSITIONS, step__screen__asset__review_state=Asset.ReviewState.CLEARED
        )
        .select_related("site")
        .order_by("site_id", "number")
    )


@transaction.atomic
def plan_run(*, run_id):
    """Lists a queued run's pages into chunks and queues them. Safe to run twice."""
    run = GenerationRun.objects.select_for_update().get(pk=run_id)
    if run.state != GenerationRun.State.QUEUED:
        return run
    done_before = set(
        GeneratedPage.objects.filter(
            state=GeneratedPage.State.DONE, run__generator=run.generator,
            run__generator_version=run.generator_version, run__prompt_version=run.prompt_version,
        ).values_list("site_id", "url")
    )  # fmt: skip
    rows, pending = [], 0
    for page in _target_pages(run):
        skipped = (page.site_id, page.url) in done_before
        rows.append(
            GeneratedPage(
                run=run, page=page, site=page.site, url=page.url, chunk=pending // run.chunk_size,
                state=GeneratedPage.State.SKIPPED if skipped else GeneratedPage.State.PENDING,
                reason="done by this generator version in an earlier run" if skipped else "",
            )
        )  # fmt: skip
        pending += not skipped
    GeneratedPage.objects.bulk_create(rows)
    run.total = len(rows)
    run.skipped = len(rows) - pending
    run.processed = run.skipped
    run.state = GenerationRun.State.RUNNING
    run.save(update_fields=["total", "skipped", "processed", "state"])
    chunks = sorted({row.chunk for row in rows if row.state == GeneratedPage.State.PENDING})
    for chunk in chunks:
        enqueue("generation.generate_chunk", run.pk, chunk)
    if not chunks:
        return finish_generation(run_id=run.pk)
    return run


def page_text(page):
    """The page's cleaned text, and where it came from: its stored HTML, else OCR."""
    from django.core.files.storage import default_storage

    step = page.step
    if step.html_key:
        with default_storage.open(step.html_key, "rb") as handle:
            return pagetext.from_html(handle.read().decode("utf-8", "replace"), url=page.url), "html"
    from moderation.prescreen import group_lines, read_words

    with default_storage.open(step.screen.asset.storage_key, "rb") as handle:
        lines = group_lines(read_words(handle.read()))
    return pagetext.from_words([line.text for line in lines]), "ocr"


def generate_chunk(*, run_id, chunk):
    """Generates candidates for one chunk's pending pages; a page done is never redone."""
    run = GenerationRun.objects.get(pk=run_id)
    if run.state != GenerationRun.State.RUNNING:
        return {"run": run_id, "chunk": chunk, "pages": 0}
    generator = get_generator(run.generator, **_remaining_budget(run))
    pages = GeneratedPage.objects.filter(run=run, chunk=chunk, state=GeneratedPage.State.PENDING).select_related(
        "page__step__screen__asset", "site__category"
    )
    done = 0
    for row in pages:
        generator.calls = []
        try:
            if row.page is None or row.page.step is None:
                raise GenerationFailed("the page left the site's graph")
            text, source = page_text(row.page)
            found = generator.generate(
                PageInput(page_id=f"{row.site.host}_{row.page.number}", url=row.url, title=row.page.title,
                          text=pagetext.redacted(text))
            )  # fmt: skip
        except BudgetExhausted as spent:
            _record_page(run, row, state=GeneratedPage.State.FAILED, reason=str(spent), calls=generator.calls)
            _stop_for_budget(run, str(spent))
            break
        except GenerationFailed as failure:
            _record_page(run, row, state=GeneratedPage.State.FAILED, reason=str(failure), calls=generator.calls)
        else:
            with transaction.atomic():
                made = _write_candidates(run, row, found)
                _record_page(run, row, state=GeneratedPage.State.DONE, calls=generator.calls, made=made,
                             source=source)  # fmt: skip
        done += 1
    if not GeneratedPage.objects.filter(run=run, state=GeneratedPage.State.PENDING).exists():
        finish_generation(run_id=run.pk)
    return {"run": run_id, "chunk": chunk, "pages": done}


def _remaining_budget(run):
    """The run's parameters with its request and token caps lowered by what its pages
    have spent so far: a cap is per run, while each chunk makes its own generator."""
    parameters = dict(run.parameters)
    caps = {key: parameters.get(key) for key in ("max_requests", "max_total_tokens")}
    if not any(caps.values()):
        return parameters
    spent_requests = spent_tokens = 0
    for calls in GeneratedPage.objects.filter(run=run).exclude(calls=[]).values_list("calls", flat=True):
        for call in calls:
            spent_requests += call.get("attempts", 0)
            spent_tokens += call.get("total_tokens", 0) or 0
    if caps["max_requests"]:
        parameters["max_requests"] = max(caps["max_requests"] - spent_requests, 0)
    if caps["max_total_tokens"]:
        parameters["max_total_tokens"] = max(caps["max_total_tokens"] - spent_tokens, 0)
    return parameters


def _stop_for_budget(run, reason):
    """The run's budget is spent: every page still waiting fails with that reason."""
    left = GeneratedPage.objects.filter(run=run, state=GeneratedPage.State.PENDING)
    n = left.update(state=GeneratedPage.State.FAILED, reason=f"not sent: {reason}")
    GenerationRun.objects.filter(pk=run.pk).update(
        processed=F("processed") + n, failures=F("failures") + n, message=f"Stopped early: {reason}"
    )


def _record_page(run, row, *, state, reason="", calls=(), made=0, source=""):
    updated = GeneratedPage.objects.filter(pk=row.pk, state=GeneratedPage.State.PENDING).update(
        state=state, reason=reason[:2000], calls=list(calls)[-20:], candidates=made, text_source=source
    )
    if updated:
        GenerationRun.objects.filter(pk=run.pk).update(
            processed=F("processed") + 1,
            candidates=F("candidates") + made,
            failures=F("failures") + int(state == GeneratedPage.State.FAILED),
        )


def _write_candidates(run, row, found):
    site, page = row.site, row.page
    path = Graph.of_site(site).shortest_path(page.url)
    if path is None or len(path) - 1 < MIN_TRANSITIONS:
        return 0
    steps = {p.url: p.step for p in NavPage.objects.filter(site=site, url__in=path).select_related("step__screen")}
    title = page.title.split(" – ")[0].split(" | ")[0].strip() or page.url
    made = 0
    for candidate in found:
        pair = QAPair.objects.create(
            family=QAPair.Family.WEBVLN, split_kind=QAPair.SplitKind.NAVIGATION, question=candidate.question[:1000],
            answer=candidate.answer[:300], category=site.category, author=run.created_by,
            state=QAPair.State.CANDIDATE,
        )  # fmt: skip
        description = f"{title}: {candidate.evidence}"[:2000] if candidate.evidence else title
        Evidence.objects.bulk_create(
            Evidence(qa_pair=pair, position=n, screen=steps[url].screen, step=steps[url],
                     note=description if n == len(path) - 1 else "")
            for n, url in enumerate(path)
        )  # fmt: skip
        Episode.objects.create(qa_pair=pair, site=site, target_url=page.url, path=path, description=description)
        Candidate.objects.create(
            qa_pair=pair, run=run, site=site, page_url=page.url, generator=run.generator,
            generator_version=run.generator_version, prompt_version=run.prompt_version,
            kind=getattr(candidate, "kind", "")[:40], evidence=candidate.evidence or "",
        )  # fmt: skip
        made += 1
    return made


@transaction.atomic
def finish_generation(*, run_id):
    """Draws each site's sample once every page is done, and sends it for assessment."""
    run = GenerationRun.objects.select_for_update().get(pk=run_id)
    if run.state != GenerationRun.State.RUNNING:
        return run
    sampled_pairs = []
    by_site = {}
    for candidate in Candidate.objects.filter(run=run).order_by("qa_pair_id"):
        by_site.setdefault(candidate.site_id, []).append(candidate)
    for site_id, candidates in sorted(by_site.items()):
        rng = random.Random(f"{run.pk}:{site_id}")
        sample = rng.sample(candidates, min(run.sample_size, len(candidates)))
        SiteSample.objects.create(run=run, site_id=site_id, candidates=len(candidates), size=len(sample))
        ids = [candidate.pk for candidate in sample]
        Candidate.objects.filter(pk__in=ids).update(decision=Candidate.Decision.SAMPLED)
        pairs = [candidate.qa_pair_id for candidate in sample]
        QAPair.objects.filter(pk__in=pairs).update(state=QAPair.State.PENDING_VALIDATION)
        sampled_pairs += pairs
    run.state = GenerationRun.State.SAMPLING if sampled_pairs else GenerationRun.State.DONE
    run.finished_at = None if sampled_pairs else timezone.now()
    run.save(update_fields=["state", "finished_at"])
    if sampled_pairs:
        review_wanted.send(sender=GenerationRun, qa_pairs=list(QAPair.objects.filter(pk__in=sampled_pairs)))
    return run


def count_decision(*, qa_pair, state, **_signal):
    """A sampled candidate was accepted or rejected: tally its site's sample, and decide
    the rest of the site's candidates once the whole sample is decided. An accepted
    candidate that an assessor fixed takes the fix."""
    candidate = Candidate.objects.filter(qa_pair_id=qa_pair.pk).first()
    if candidate is None:
        return
    if state == QAPair.State.ACCEPTED:
        _apply_edit(candidate)
    if candidate.decision != Candidate.Decision.SAMPLED:
        return
    sample = SiteSample.objects.select_for_update().get(run_id=candidate.run_id, site_id=candidate.site_id)
    if sample.state != SiteSample.State.ASSESSING:
        return
    if state == QAPair.State.ACCEPTED:
        sample.accepted += 1
    else:
        sample.rejected += 1
    if sample.accepted + sample.rejected < sample.size:
        sample.save(update_fields=["accepted", "rejected"])
        return
    run = GenerationRun.objects.select_for_update().get(pk=candidate.run_id)
    rest = Candidate.objects.filter(run=run, site_id=sample.site_id, decision=Candidate.Decision.UNDECIDED)
    pairs = list(rest.values_list("qa_pair_id", flat=True))
    if sample.acceptance >= run.threshold:
        sample.state = SiteSample.State.PASSED
        rest.update(decision=Candidate.Decision.BY_SAMPLE)
        QAPair.objects.filter(pk__in=pairs, state=QAPair.State.CANDIDATE).update(state=QAPair.State.ACCEPTED)
    else:
        sample.state = SiteSample.State.FAILED
        rest.update(decision=Candidate.Decision.HELD)
        QAPair.objects.filter(pk__in=pairs, state=QAPair.State.CANDIDATE).update(state=QAPair.State.PENDING_VALIDATION)
        review_wanted.send(sender=GenerationRun, qa_pairs=list(QAPair.objects.filter(pk__in=pairs)))
    sample.decided_at = timezone.now()
    sample.save(update_fields=["accepted", "rejected", "state", "decided_at"])
    if not SiteSample.objects.filter(run=run, state=SiteSample.State.ASSESSING).exists():
        run.state = GenerationRun.State.DONE
        run.finished_at = timezone.now()
        run.save(update_fields=["state", "finished_at"])


@transaction.atomic
def propose_edit(*, qa_pair, assessor, question="", answer=""):
    """An assessor's fix of a candidate (question, answer or both), taken if it is accepted."""
    candidate = Candidate.objects.filter(qa_pair_id=qa_pair.pk).first()
    if candidate is None or not (question.strip() or answer.strip()):
        return None
    return CandidateEdit.objects.create(
        candidate=candidate, assessor=assessor, question=question.strip(), answer=answer.strip()
    )


def _apply_edit(candidate):
    edit = CandidateEdit.objects.filter(candidate=candidate, applied=False).order_by("created_at", "id").first()
    if edit is None or candidate.edited_by_id:
        return
    pair = QAPair.objects.select_for_update().get(pk=candidate.qa_pair_id)
    candidate.original_question, candidate.original_answer = pair.question, pair.answer
    candidate.edited_by_id = edit.assessor_id
    candidate.save(update_fields=["original_question", "original_answer", "edited_by"])
    pair.question = edit.question or pair.question
    pair.answer = edit.answer or pair.answer
    pair.save(update_fields=["question", "answer"])
    edit.applied = True
    edit.save(update_fields=["applied"])
