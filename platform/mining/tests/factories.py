"""Pool images, snippets, screens and QA pairs made straight in the database, for the
mining tests: mining reads rows and perceptual hashes, never image bytes."""

import hashlib
import itertools
import uuid

from django.utils import timezone

from assets.models import Asset
from corpus.models import Evidence, ImageSource, QAPair, Screen, Snippet, Trace, TraceStep
from tests.factories import UserFactory, make_category

_numbers = itertools.count(1)


def asset(*, phash=None, cleared=True):
    number = next(_numbers)
    return Asset.objects.create(
        sha256=hashlib.sha256(f"asset {number} {uuid.uuid4()}".encode()).hexdigest(),
        format=Asset.Format.PNG,
        width=640,
        height=480,
        byte_size=1000,
        phash=f"{phash if phash is not None else number * 0x9E3779B97F4A7C15 % 2**64:016x}",
        storage_key=f"assets/{number}.png",
        thumbnail_key=f"thumbnails/{number}.webp",
        review_state=Asset.ReviewState.CLEARED if cleared else Asset.ReviewState.PENDING_REVIEW,
    )


def image(title, description="", *, phash=None, cleared=True):
    return ImageSource.objects.create(
        asset=asset(phash=phash, cleared=cleared), title=title, description=description, topic="test"
    )


def snippet(title, text):
    return Snippet.objects.create(
        digest=hashlib.sha256(f"{title}\n{text}".encode()).hexdigest(), title=title, text=text, topic="test"
    )


def qa_pair(question, answer, *, split_kind, keyword_answer="", evidence=(), author=None, **fields):
    """A QA pair with ``evidence``: ImageSource, Snippet or Screen rows, in order."""
    fields.setdefault("family", "webqa" if split_kind in ("image", "text") else "webquest")
    pair = QAPair.objects.create(
        question=question,
        answer=answer,
        keyword_answer=keyword_answer,
        split_kind=split_kind,
        author=author or UserFactory(),
        **fields,
    )
    for position, source in enumerate(evidence, start=1):
        kind = {ImageSource: "image", Snippet: "snippet", Screen: "screen", TraceStep: "step"}[type(source)]
        if kind == "step":
            Evidence.objects.create(qa_pair=pair, position=position, screen=source.screen, step=source)
        else:
            Evidence.objects.create(qa_pair=pair, position=position, **{kind: source})
    return pair


def screen(
    *, author, category="shopping", title="", url="https://shop.example.com/", phash=None, cleared=True, **fields
):
    return Screen.objects.create(
        asset=asset(phash=phash, cleared=cleared),
        author=author,
        category=make_category(category),
        title=title,
        url=url,
        **fields,
    )


def trace(*, author, screens, category="shopping"):
    """A finished trace with one step per screen, in order; returns (trace, steps)."""
    recorded = Trace.objects.create(
        client_id=uuid.uuid4(), author=author, category=make_category(category), state=Trace.State.FINISHED
    )
    steps = [
        TraceStep.objects.create(
            trace=recorded,
            client_id=uuid.uuid4(),
            position=position,
            screen=shot,
            url=shot.url or "https://x.test/",
            captured_at=timezone.now(),
            viewport_width=1280,
            viewport_height=800,
            action="click",
        )  # fmt: skip
        for position, shot in enumerate(screens)
    ]
    return recorded, steps
