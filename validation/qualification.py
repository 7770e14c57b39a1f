"""Qualification tests and the qualifications they grant.

A worker marks each item of a test as following the guidelines or breaking one of its
rules, and explains every rule they say is broken. The score is the share of items
marked right. At or above ``QUALIFICATION_PASS_SCORE`` the test's qualification is
granted; a first attempt at or above ``QUALIFICATION_RETRY_SCORE`` earns one more
attempt; anything else ends it. Every attempt is kept, and so is every grant and
revocation (``QualificationChange``), whoever made it.
"""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.db import transaction
from rest_framework import serializers

from accounts.models import QualificationGrant, RaterProfile, Role

from .errors import AlreadyQualified, MissingReason, NoAttemptLeft, NotAllowed, TestNotFound
from .models import QualificationAttempt, QualificationChange, QualificationItem, QualificationTest

Outcome = QualificationAttempt.Outcome
FOLLOWS = "ok"  # the flag meaning "follows the guidelines"


@dataclass(frozen=True)
class TestStatus:
    """Where a worker stands with one test, in words they can act on."""

    test: QualificationTest
    qualified: bool
    attempts: list
    may_attempt: bool
    message: str

    @property
    def next_number(self):
        return len(self.attempts) + 1


def active_test(slug):
    test = QualificationTest.objects.filter(slug=slug, active=True).select_related("qualification").first()
    if test is None:
        raise TestNotFound(f"There is no qualification test “{slug}”.")
    return test


def status_of(*, worker, test, granted=None, attempts=None):
    """``granted`` (qualification ids) and ``attempts`` save queries for many tests."""
    if granted is None:
        granted = set(QualificationGrant.objects.filter(user=worker).values_list("qualification_id", flat=True))
    if attempts is None:
        attempts = list(QualificationAttempt.objects.filter(worker=worker, test=test).order_by("number"))
    qualified = test.qualification_id in granted
    last = attempts[-1] if attempts else None
    if qualified:
        return TestStatus(test, True, attempts, False, "You are qualified.")
    if last is None:
        return TestStatus(test, False, attempts, True, "Not taken yet.")
    if last.outcome == Outcome.SECOND_CHANCE:
        return TestStatus(test, False, attempts, True, f"You scored {last.score:.0%}; you may take the test once more.")
    if last.outcome == Outcome.PASSED:
        # Passed, then revoked by an admin or for low quality: the history says why.
        return TestStatus(test, False, attempts, False, "Your qualification was revoked; see your history.")
    return TestStatus(
        test, False, attempts, False, f"You scored {last.score:.0%}, below the pass mark; no attempts are left."
    )


def statuses_for(*, worker):
    """Every active test with the worker's standing in it. Three queries."""
    granted = set(QualificationGrant.objects.filter(user=worker).values_list("qualification_id", flat=True))
    by_test = {}
    for attempt in QualificationAttempt.objects.filter(worker=worker).order_by("number"):
        by_test.setdefault(attempt.test_id, []).append(attempt)
    return [
        status_of(worker=worker, test=test, granted=granted, attempts=by_test.get(test.pk, []))
        for test in QualificationTest.objects.filter(active=True).select_related("qualification")
    ]


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


def score_of(correct, total):
    return (Decimal(correct) / Decimal(total)).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP)


def outcome_of(*, score, number):
    if score >= Decimal(str(settings.QUALIFICATION_PASS_SCORE)):
        return Outcome.PASSED
    if number == 1 and score >= Decimal(str(settings.QUALIFICATION_RETRY_SCORE)):
        return Outcome.SECOND_CHANCE
    return Outcome.FAILED


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


def history_of(*, worker):
    return QualificationChange.objects.filter(worker=worker).select_related("qualification", "actor")
