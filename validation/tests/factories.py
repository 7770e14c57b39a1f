"""Test data for qualification and validation work."""

from django.db import transaction

from accounts.models import Qualification, Role
from corpus.models import Evidence, QAPair
from corpus.signals import pairs_written
from tests.factories import UserFactory
from validation.models import QualificationItem, QualificationTest


def validators(count):
    return [UserFactory(role=Role.VALIDATOR) for _ in range(count)]


def written_pair(*, author, family=QAPair.Family.WEBQUEST, question="How much more is the kettle at shop A?"):
    """A QA pair citing one researched fact, written as a kind writes one: the pair and
    its evidence, then the ``pairs_written`` signal in the same transaction."""
    with transaction.atomic():
        pair = QAPair.objects.create(
            family=family, split_kind="single_screen", question=question, answer="$4.50", author=author
        )
        Evidence.objects.create(
            qa_pair=pair, position=0, fact="Kettle costs $34.50 at A and $30 at B.", url="https://shop.test/"
        )
        pairs_written.send(sender=QAPair, qa_pairs=[pair])
    return pair


def small_test(*, items=10, breaking=5, slug="small-test"):
    """A test of ``items`` items; the first ``breaking`` break the rule ``wrong``."""
    qualification, _ = Qualification.objects.get_or_create(slug=slug, defaults={"name": "Small test"})
    test = QualificationTest.objects.create(
        slug=slug,
        title="Small test",
        family="screens",
        qualification=qualification,
        rules={"wrong": "The answer is right.", "easy": "It takes reasoning."},
    )
    QualificationItem.objects.bulk_create(
        QualificationItem(
            test=test,
            position=n,
            question=f"Question {n}?",
            answer=f"Answer {n}",
            follows_guidelines=n > breaking,
            broken_rule="wrong" if n <= breaking else "",
        )
        for n in range(1, items + 1)
    )
    return test


def answers(test, *, right):
    """Answers to ``test`` with the first ``right`` items judged right, the rest wrong."""
    given, rule = {}, next(iter(test.rules))
    for n, item in enumerate(test.items.order_by("position")):
        correct = n < right
        says_breaks = (not item.follows_guidelines) if correct else item.follows_guidelines
        given[str(item.pk)] = (
            {"flag": rule, "explanation": "The sum is off."} if says_breaks else {"flag": "ok", "explanation": ""}
        )
    return given
