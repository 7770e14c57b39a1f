"""Every write of checking work, one function each with keyword-only arguments, in one
transaction (or the caller's, where a function says so).

- Qualification tests: a worker marks each item as following the guidelines or breaking
  one of the test's rules, and explains every rule they say is broken; the score is the
  share marked right. At or above ``QUALIFICATION_PASS_SCORE`` the test's qualification
  is granted; a first attempt at or above ``QUALIFICATION_RETRY_SCORE`` earns one more.
  Every attempt, grant and revocation is kept (``QualificationChange``).
- Validation of QA pairs: every new pair gets a task wanting two validators; a third is
  asked when the two disagree; the majority decides and the pair's state follows.
  Validators never see each other's verdicts, and never get their own pairs (the
  validation kind excludes them at hand-out).
- Reference answers for test items: chosen from the test split of the next release's
  definition; five different workers each write the answer of a chosen pair as a full
  sentence, one of them also the keyword answer; the fifth answer sets how far they agree.
"""

import re
from typing import NamedTuple

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from rest_framework import serializers

from accounts.models import QualificationGrant, RaterProfile, Role
from config.errors import DomainError
from corpus import services as corpus
from corpus.models import QAPair, ReferenceAnswer, ReferenceSet
from hits import services as hits
from hits.models import Task

from . import quality
from .batches import batch_for
from .errors import AlreadyQualified, MissingReason, NoAttemptLeft, NotAllowed
from .models import Judgement, PairValidation, QualificationAttempt, QualificationChange, QualificationItem
from .selectors import outcome_of, score_of, status_of

Outcome = QualificationAttempt.Outcome
VALIDATORS_WANTED = 2
TIE_BREAKER = 3
WRITERS_WANTED = 5

PROBLEMS = {
    "answer_correct": "the answer is not correct",
    "follows_guidelines": "the question does not follow the guidelines",
    "sources_needed": "not every cited source is needed, or two repeat each other",
}
# A navigation episode is checked on the same three questions, asked of its parts: the
# target page and answer, the path from the homepage, and the description of the target.
EPISODE_PROBLEMS = {
    "answer_correct": "the target page does not answer the question, or the answer is wrong",
    "follows_guidelines": "the path is not a reasonable way to reach the target page",
    "sources_needed": "the description does not match the target page",
}


# A generated candidate is checked on the criteria its generator was given.
CANDIDATE_PROBLEMS = {
    "answer_correct": "the answer is not what the page shows",
    "follows_guidelines": "the question is not about what the page actually shows",
    "sources_needed": "the question is not brief, or not answerable from the page alone",
}


def problems_of(pair):
    from generation.models import Candidate

    if Candidate.objects.filter(qa_pair_id=pair.pk).exists():
        return CANDIDATE_PROBLEMS
    return EPISODE_PROBLEMS if pair.family == QAPair.Family.WEBVLN else PROBLEMS


# --- Qualification tests -------------------------------------------------------------------


FOLLOWS = "ok"  # the flag meaning "follows the guidelines"


class AttemptAnswer(serializers.Serializer):
    flag = serializers.CharField(error_messages={"blank": "Mark this item.", "required": "Mark this item."})
    explanation = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)


def _clean_answers(test, items, answers):
    if not isinstance(answers, dict):
        raise serializers.ValidationError({"answers": ["Give one answer per item, by item id."]})
    errors, cleaned = {}, {}
    for item in items:
        raw = answers.get(str(item.pk), answers.get(item.pk))
        if raw is None:
            errors[str(item.pk)] = [f"Mark item {item.position}."]
            continue
        answer = AttemptAnswer(data=raw)
        if not answer.is_valid():
            errors[str(item.pk)] = [f"Item {item.position}: {m}" for ms in answer.errors.values() for m in ms]
            continue
        flag, explanation = answer.validated_data["flag"], answer.validated_data["explanation"].strip()
        if flag != FOLLOWS and flag not in test.rules:
            errors[str(item.pk)] = [f"Item {item.position}: “{flag}” is not one of the test's rules."]
        elif flag != FOLLOWS and not explanation:
            errors[str(item.pk)] = [f"Item {item.position}: say what is wrong with it."]
        else:
            cleaned[item] = (flag, explanation)
    if errors:
        raise serializers.ValidationError(errors)
    return cleaned


@transaction.atomic
def submit_attempt(*, test, worker, answers):
    """Scores one attempt and records it, granting the qualification on a pass.

    ``answers`` maps item ids to ``{"flag": "ok" | rule key, "explanation": …}``. An item
    counts as right when it is marked as following the guidelines and does, or as
    breaking a rule and breaks one. Refused with nothing saved when answers are missing
    or a flag has no explanation.
    """
    # One worker's attempts queue on their profile row, so two tabs cannot both take
    # the last attempt (the unique attempt number backs this).
    RaterProfile.objects.select_for_update().get(user=worker)
    current = status_of(worker=worker, test=test)
    if current.qualified:
        raise AlreadyQualified(f"You already hold the qualification “{test.qualification.name}”.")
    if not current.may_attempt:
        raise NoAttemptLeft(current.message)
    items = list(QualificationItem.objects.filter(test=test).order_by("position"))
    cleaned = _clean_answers(test, items, answers)
    record, correct = {}, 0
    for item, (flag, explanation) in cleaned.items():
        right = (flag == FOLLOWS) == item.follows_guidelines
        correct += right
        record[str(item.pk)] = {"flag": flag, "explanation": explanation, "right": right}
    number = current.next_number
    score = score_of(correct, len(items))
    attempt = QualificationAttempt.objects.create(
        test=test,
        worker=worker,
        number=number,
        answers=record,
        correct=correct,
        total=len(items),
        score=score,
        outcome=outcome_of(score=score, number=number),
    )
    if attempt.outcome == Outcome.PASSED:
        _grant(
            worker=worker,
            qualification=test.qualification,
            reason=f"Passed “{test.title}” with {score:.0%} on attempt {number}.",
            attempt=attempt,
        )
    return attempt


def _check_admin(actor):
    if actor is not None and not actor.has_role(Role.ADMIN):
        raise NotAllowed("Only admins grant and revoke qualifications.")


def _grant(*, worker, qualification, reason, actor=None, attempt=None):
    grant, created = QualificationGrant.objects.get_or_create(
        user=worker, qualification=qualification, defaults={"granted_by": actor, "note": reason[:200]}
    )
    if created:
        QualificationChange.objects.create(
            worker=worker,
            qualification=qualification,
            action=QualificationChange.Action.GRANTED,
            reason=reason,
            actor=actor,
            attempt=attempt,
        )
    return grant


@transaction.atomic
def grant(*, worker, qualification, actor, reason):
    """An admin grants a qualification by hand (with or without a test)."""
    _check_admin(actor)
    if not reason or not reason.strip():
        raise MissingReason("Say why the qualification is granted.")
    return _grant(worker=worker, qualification=qualification, reason=reason.strip(), actor=actor)


@transaction.atomic
def revoke(*, worker, qualification, reason, actor=None):
    """Takes a qualification away; the worker sees ``reason`` in their history.

    ``actor`` None means the platform did it (e.g. for low quality). Returns whether
    the worker held it.
    """
    _check_admin(actor)
    if not reason or not reason.strip():
        raise MissingReason("Say why the qualification is revoked: the worker sees it.")
    deleted, _ = QualificationGrant.objects.filter(user=worker, qualification=qualification).delete()
    if deleted:
        QualificationChange.objects.create(
            worker=worker,
            qualification=qualification,
            action=QualificationChange.Action.REVOKED,
            reason=reason.strip(),
            actor=actor,
        )
    return bool(deleted)


# --- Validation of QA pairs ----------------------------------------------------------------


def queue_for_validation(*, qa_pairs, kind=None, **_signal):
    """Gives each pair still pending validation a validation task (of ``kind``, by default
    the validation kind), once. Runs inside the transaction that wrote the pairs (the
    ``corpus.signals.pairs_written`` signal)."""
    from .kinds.validation import Validation

    pending = [p for p in qa_pairs if p.state == QAPair.State.PENDING_VALIDATION]
    queued = set(PairValidation.objects.filter(qa_pair__in=pending).values_list("qa_pair_id", flat=True))
    created = []
    for pair in pending:
        if pair.pk in queued:
            continue
        batch = batch_for(kind=kind or Validation.name, family=pair.family)
        if batch is None:
            continue
        (task,) = hits.add_tasks(batch=batch, payloads=[{"qa_pair": pair.pk}], assignments_wanted=VALIDATORS_WANTED)
        created.append(PairValidation.objects.create(qa_pair=pair, task=task))
    return created


def queue_candidate_review(*, qa_pairs, **_signal):
    """Generated candidates that assessors should check (``generation.signals.review_wanted``)."""
    from .kinds.candidate_review import CandidateReview

    with transaction.atomic():
        return queue_for_validation(qa_pairs=qa_pairs, kind=CandidateReview.name)


def queue_pending_pairs():
    """Queues pairs written before validation was set up (or by the demo)."""
    with transaction.atomic():
        return queue_for_validation(
            qa_pairs=QAPair.objects.filter(state=QAPair.State.PENDING_VALIDATION, validation__isnull=True).order_by(
                "id"
            )
        )


def record_judgement(*, assignment, answer):
    """Stores a validator's judgement and decides the pair when the votes allow.

    Called from the validation kind inside the submit transaction; the pair's
    validation row is locked so that judgements arriving together are counted one
    after the other.
    """
    validation = PairValidation.objects.select_for_update().select_related("qa_pair").get(task_id=assignment.task_id)
    accept = all(answer[key] for key in PROBLEMS)
    judgement = Judgement.objects.create(
        validation=validation,
        qa_pair=validation.qa_pair,
        assignment=assignment,
        validator_id=assignment.worker_id,
        answer_correct=answer["answer_correct"],
        follows_guidelines=answer["follows_guidelines"],
        sources_needed=answer["sources_needed"],
        corrected_answer=answer.get("corrected_answer", "").strip(),
        comment=answer.get("comment", "").strip(),
        accept=accept,
    )
    if answer["answer_correct"] and answer.get("answer_variants"):
        corpus.add_answer_variants(qa_pair=validation.qa_pair, variants=answer["answer_variants"])
    if validation.outcome:
        # A late judgement on a decided pair (e.g. the third of a task that wanted
        # three): it counts for the validator's agreement, not for the verdict.
        judgement.agrees_with_majority = accept == (validation.outcome == PairValidation.Outcome.ACCEPTED)
        judgement.save(update_fields=["agrees_with_majority"])
        quality.count_judgements([judgement])
        return judgement
    _decide_if_ready(validation)
    return judgement


def _decide_if_ready(validation):
    judgements = list(validation.judgements.all())
    accepts = sum(j.accept for j in judgements)
    rejects = len(judgements) - accepts
    validation.accept_votes, validation.reject_votes = accepts, rejects
    if len(judgements) < VALIDATORS_WANTED:
        validation.save(update_fields=["accept_votes", "reject_votes"])
        return
    if accepts == rejects:
        # Two validators disagree: one more decides.
        Task.objects.filter(pk=validation.task_id, assignments_wanted__lt=TIE_BREAKER).update(
            assignments_wanted=F("assignments_wanted") + 1
        )
        validation.save(update_fields=["accept_votes", "reject_votes"])
        return
    accepted = accepts > rejects
    _decide(validation, judgements, accepted=accepted)


def _decide(validation, judgements, *, accepted):
    """Records the majority's verdict on the pair, the judgements and the workers."""
    now = timezone.now()
    Outcome = PairValidation.Outcome
    validation.outcome, validation.decided_at = (Outcome.ACCEPTED if accepted else Outcome.REJECTED), now
    validation.save(update_fields=["outcome", "decided_at", "accept_votes", "reject_votes"])
    for judgement in judgements:
        judgement.agrees_with_majority = judgement.accept == accepted
    Judgement.objects.bulk_update(judgements, ["agrees_with_majority"])
    pair = QAPair.objects.select_for_update().get(pk=validation.qa_pair_id)
    if pair.state == QAPair.State.PENDING_VALIDATION:
        # A pair rejected meanwhile (e.g. its screen failed review) stays rejected.
        state = QAPair.State.ACCEPTED if accepted else QAPair.State.REJECTED
        reason = "" if accepted else rejection_reason(judgements, problems=problems_of(pair))
        corpus.decide_pair(qa_pair=pair, state=state, reason=reason)
    quality.count_decision(judgements=judgements, pair=pair, accepted=accepted)
    quality.recompute_agreement_later(batch_ids={validation_batch_id(validation), pair_batch_id(pair)})


def rejection_reason(judgements, problems=PROBLEMS):
    """The problems the rejecting validators found, in words for the pair's author."""
    rejecting = [j for j in judgements if not j.accept]
    found = [
        text for key, text in problems.items() if sum(not getattr(j, key) for j in rejecting) * 2 >= len(rejecting)
    ]
    reason = f"{len(rejecting)} of {len(judgements)} validators rejected it: " + "; ".join(found or problems.values())
    comments = [j.comment for j in rejecting if j.comment]
    if comments:
        reason += ". Their notes: " + " / ".join(comments)
    corrections = [j.corrected_answer for j in rejecting if j.corrected_answer]
    if corrections:
        reason += ". Suggested answer: " + " / ".join(corrections)
    return reason + "."


def validation_batch_id(validation):
    return Task.objects.filter(pk=validation.task_id).values_list("batch_id", flat=True).first()


def pair_batch_id(pair):
    if pair.assignment_id is None:
        return None
    from hits.models import Assignment

    return Assignment.objects.filter(pk=pair.assignment_id).values_list("batch_id", flat=True).first()


# --- Reference answers ---------------------------------------------------------------------
#
# WebQA's protocol (§5 and Appendix G of its paper): every test item gets five full-sentence
# answers by five other workers and one keyword answer, and test items whose references
# disagree are discarded. So the items are chosen from the test split that the next
# release's definition would make (``releases.splits.test_candidates``), and each complete
# set gets an agreement score that releases compare with ``REFERENCE_MIN_AGREEMENT``.


class TestCandidates(NamedTuple):
    """What ``choose_test_candidates`` did: the draft release it asked, the new sets,
    and why each pair it was given and did not choose was skipped."""

    release: object
    created: list
    skipped: dict  # {pair id: reason}


TestCandidates.__test__ = False  # not a test class, for pytest


def draft_release():
    """The newest unpublished release definition that includes WebQA, or None."""
    from releases.models import Release

    drafts = Release.objects.exclude(state=Release.State.PUBLISHED).order_by("-created_at", "-id")
    return next((release for release in drafts if "webqa" in release.families), None)


@transaction.atomic
def choose_test_candidates(*, actor, release=None, qa_pairs=None, limit=None):
    """Chooses test items for reference answers from the test split of a draft release.

    ``release`` is an unpublished definition (by default the newest that includes WebQA):
    its seed, shares and strategy split the pairs it would select, as its build will
    (unless the corpus changes the adversarial partition meanwhile). Without
    ``qa_pairs``, every pair of that test split not chosen yet is chosen (the first
    ``limit``, in id order); with them, only those in that test split are, and the rest
    are skipped with the reason. Refused when nothing given could be chosen."""
    from releases.models import Release
    from releases.splits import test_candidates

    if not actor.has_role(Role.ADMIN):
        raise NotAllowed("Only admins choose test candidates.")
    release = release or draft_release()
    if release is None:
        raise DomainError(
            "Define the next WebQA release first (Console › Releases › Define a release, without building it): test "
            "items are chosen from the test split its seed and shares make.",
            code="no_draft_release",
        )
    if release.state == Release.State.PUBLISHED or "webqa" not in release.families:
        raise DomainError(
            f"Release {release} is published or has no WebQA pairs: choose a draft that includes WebQA.",
            code="not_a_draft",
        )
    selected = QAPair.objects.filter(family__in=release.families, state__in=release.qa_states)
    in_test = test_candidates(
        seed=release.seed,
        percents=(release.train_percent, release.val_percent, release.test_percent),
        strategy=release.split_strategy,
        pairs=selected,
    )
    chosen = set(ReferenceSet.objects.values_list("qa_pair_id", flat=True).filter(qa_pair_id__in=in_test))
    skipped = {}
    if qa_pairs is None:
        wanted = [pair_id for pair_id in in_test if pair_id not in chosen][:limit]
    elif not qa_pairs:
        raise DomainError("Name at least one QA pair to choose as a test item.", code="no_qa_pairs")
    else:
        wanted, in_test = [], set(in_test)
        for pair in qa_pairs:
            if pair.state != QAPair.State.ACCEPTED:
                skipped[pair.pk] = "not accepted"
            elif ReferenceSet.objects.filter(qa_pair_id=pair.pk).exists():
                skipped[pair.pk] = "already collecting reference answers"
            elif pair.pk not in in_test:
                skipped[pair.pk] = f"not in the test split of {release}"
            else:
                wanted.append(pair.pk)
        if not wanted:
            reasons = "; ".join(f"pair {pair_id}: {reason}" for pair_id, reason in sorted(skipped.items()))
            raise DomainError(f"None of these pairs can be a test item of {release} ({reasons}).",
                              code="not_test_candidates")  # fmt: skip
    created = choose_for_references(qa_pairs=QAPair.objects.filter(pk__in=wanted).order_by("id"), actor=actor)
    made = {reference_set.qa_pair_id for reference_set in created}
    skipped.update({pair_id: "no open batch for reference answers" for pair_id in wanted if pair_id not in made})
    return TestCandidates(release=release, created=created, skipped=skipped)


@transaction.atomic
def choose_for_references(*, qa_pairs, actor):
    """Marks these accepted pairs as test candidates: each gets a task wanting five
    writers. Pairs already chosen, or not accepted, are skipped. Returns the new sets.

    It does not ask which split a pair is in: the admin action and the API choose through
    ``choose_test_candidates``, which passes only the draft release's test items."""
    if not actor.has_role(Role.ADMIN):
        raise NotAllowed("Only admins choose test candidates.")
    from .kinds.references import References

    created = []
    for pair in qa_pairs:
        if pair.state != QAPair.State.ACCEPTED or ReferenceSet.objects.filter(qa_pair=pair).exists():
            continue
        batch = batch_for(kind=References.name, family=pair.family)
        if batch is None:
            continue
        (task,) = hits.add_tasks(batch=batch, payloads=[{"qa_pair": pair.pk}], assignments_wanted=WRITERS_WANTED)
        created.append(ReferenceSet.objects.create(qa_pair=pair, task=task, chosen_by=actor))
    return created


def locked_set(*, task_id):
    return ReferenceSet.objects.select_for_update().get(task_id=task_id)


def record_answer(*, assignment, answer, keyword):
    """Stores one writer's sentence; the first keyword answer given becomes the set's.
    Once all five are in, the set's agreement is measured, then its keyword answer is
    copied to a pair that has none."""
    reference_set = locked_set(task_id=assignment.task_id)
    written = ReferenceAnswer.objects.create(
        reference_set=reference_set, assignment=assignment, worker_id=assignment.worker_id, answer=answer
    )
    if keyword and not reference_set.keyword_answer:
        reference_set.keyword_answer, reference_set.keyword_by_id = keyword, assignment.worker_id
        reference_set.save(update_fields=["keyword_answer", "keyword_by"])
    if reference_set.answers.count() >= WRITERS_WANTED and reference_set.keyword_answer:
        if reference_set.agreement is None:
            measure_agreement(reference_set=reference_set)
        QAPair.objects.filter(pk=reference_set.qa_pair_id, keyword_answer="").update(
            keyword_answer=reference_set.keyword_answer
        )
    return written


def measure_agreement(*, reference_set):
    """Stores the set's ``agreement`` (``reference_agreement`` of its sentences, against
    its author's keyword answer and its writers'); in the caller's transaction. Run it
    again for a set completed before agreement was measured."""
    authors = QAPair.objects.values_list("keyword_answer", flat=True).get(pk=reference_set.qa_pair_id)
    sentences = list(reference_set.answers.order_by("created_at", "id").values_list("answer", flat=True))
    reference_set.agreement = reference_agreement(sentences=sentences, keywords=[authors, reference_set.keyword_answer])
    reference_set.save(update_fields=["agreement"])
    return reference_set.agreement


# Words that carry no answer, and number words written as digits, so "three" meets "3".
_FILLER = frozenset({"a", "an", "the", "of", "is", "are", "was", "were", "it", "its", "this", "that", "there",
                     "be", "to", "in", "on", "at", "and"})  # fmt: skip
_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
                 "twenty"]  # fmt: skip
_NUMBERS = {word: str(n) for n, word in enumerate(_NUMBER_WORDS)}


def answer_words(text):
    """The words of ``text`` that can carry an answer: lower case, number words as
    digits, a plural ``s`` dropped, filler words left out."""
    words = set()
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word in _FILLER:
            continue
        word = _NUMBERS.get(word, word)
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.add(word)
    return words


def reference_agreement(*, sentences, keywords):
    """How far reference sentences agree, from 0 to 1, or None when no keyword has words.

    For each keyword answer (the author's, then the writers'), the keyword recall of each
    sentence is the share of the keyword's words it contains (WebQA's accuracy for open
    questions, §5); its mean over the sentences says how many writers, independently,
    gave that answer. The agreement is the lower of those means: the five writers must
    agree with the author's answer and with the keyword they wrote themselves. With a
    one-word keyword it is the share of writers who used it (0.6: three of five)."""
    means = []
    for keyword in keywords:
        wanted = answer_words(keyword or "")
        if wanted and sentences:
            recalls = [len(wanted & answer_words(sentence)) / len(wanted) for sentence in sentences]
            means.append(sum(recalls) / len(recalls))
    return round(min(means), 4) if means else None
