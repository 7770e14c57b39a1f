"""Factories for test data, shared by every app's tests."""

import factory
from django.utils import timezone

from accounts import services as accounts
from accounts.models import Qualification, Role
from hits import services
from hits.models import Batch

PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    """A user with a profile, made through the accounts service like a real sign-up."""

    class Meta:
        model = "accounts.User"

    username = factory.Sequence(lambda n: f"worker{n}")
    role = Role.RATER

    @classmethod
    def _create(cls, model_class, *args, username, role, locale="en-US", **kwargs):
        return accounts.create_user(username=username, password=PASSWORD, role=role, locale=locale)


class QualificationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Qualification
        django_get_or_create = ["slug"]

    slug = factory.Sequence(lambda n: f"qualification-{n}")
    name = factory.LazyAttribute(lambda q: q.slug.replace("-", " ").title())


def open_batch(*, tasks=3, wanted=1, kind="demo_question", **fields):
    """An open batch of ``tasks`` demo tasks, each wanting ``wanted`` assignments."""
    fields.setdefault("reward", "0.20")
    batch = services.create_batch(name=fields.pop("name", f"Batch at {timezone.now():%H%M%S%f}"), kind=kind, **fields)
    services.add_tasks(
        batch=batch,
        payloads=[
            {"passage": f"Passage number {i}.", "question": f"What number is passage {i}?"} for i in range(tasks)
        ],
        assignments_wanted=wanted,
    )
    return services.open_batch(batch=batch)


def batch_refreshed(batch):
    return Batch.objects.get(pk=batch.pk)


GOOD_ANSWER = {"answer": "seven", "confidence": "high"}


def make_category(slug):
    """A website category; the default ones come from a migration, which the browser
    tests' database flushes remove, so they are made again when missing."""
    from corpus.models import Category

    return Category.objects.get_or_create(slug=slug, defaults={"name": slug.replace("-", " ").title()})[0]


def capture_batch(*, kind, categories=("shopping",), per_category=1, **fields):
    """An open batch of screen QA tasks, ``per_category`` tasks in each category."""
    for slug in categories:
        make_category(slug)
    batch = services.create_batch(
        name=fields.pop("name", f"{kind} batch {timezone.now():%H%M%S%f}"), kind=kind, **fields
    )
    services.add_tasks(batch=batch, payloads=[{"category": slug} for slug in categories for _ in range(per_category)])
    return services.open_batch(batch=batch)


def site(*, category="shopping", name=None, url):
    from corpus.models import Site

    return Site.objects.create(category=make_category(category), name=name or url, url=url)
