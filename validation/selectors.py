"""Reads of checking work: where a worker stands with each qualification test, and
their qualification history."""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings

from accounts.models import QualificationGrant

from .errors import TestNotFound
from .models import QualificationAttempt, QualificationChange, QualificationTest

Outcome = QualificationAttempt.Outcome


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


def score_of(correct, total):
    return (Decimal(correct) / Decimal(total)).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP)


def outcome_of(*, score, number):
    if score >= Decimal(str(settings.QUALIFICATION_PASS_SCORE)):
        return Outcome.PASSED
    if number == 1 and score >= Decimal(str(settings.QUALIFICATION_RETRY_SCORE)):
        return Outcome.SECOND_CHANCE
    return Outcome.FAILED


def history_of(*, worker):
    return QualificationChange.objects.filter(worker=worker).select_related("qualification", "actor")
