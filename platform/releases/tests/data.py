"""Rows for release tests, made directly (the HITs that make WebQA and WebVLN pairs are
other apps' work): cleared or pending assets with real PNG bytes in storage, screens,
traces, pool images and snippets, QA pairs of every family, distractors."""

import hashlib
import io
import itertools
import uuid

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone
from PIL import Image

from assets.models import Asset
from corpus.models import Evidence, ImageGroup, ImageSource, QAPair, Screen, Snippet, Trace, TraceStep
from mining.models import Distractor
from tests.factories import make_category

_n = itertools.count(1)


def png(seed, size=(64, 48)):
    image = Image.new("RGB", size, ((seed * 37) % 256, (seed * 91) % 256, (seed * 13) % 256))
    image.putpixel((0, 0), (seed % 256, (seed >> 8) % 256, (seed >> 16) % 256))  # unique bytes per seed
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def asset(*, state=Asset.ReviewState.CLEARED, size=(64, 48)):
    data = png(next(_n), size)
    sha = hashlib.sha256(data).hexdigest()
    key = f"assets/{sha[:2]}/{sha}.png"
    default_storage.save(key, ContentFile(data))
    return Asset.objects.create(
        sha256=sha, format="png", width=size[0], height=size[1], byte_size=len(data), phash="0" * 16,
        storage_key=key, thumbnail_key=key, review_state=state,
    )  # fmt: skip


def screen(author, *, url="https://shop.example/", state=Asset.ReviewState.CLEARED, size=(64, 48)):
    return Screen.objects.create(asset=asset(state=state, size=size), author=author, url=url, title=f"Page {url}")


def pair(author, *, family="webquest", state="accepted", **fields):
    fields.setdefault("question", f"Question {next(_n)}?")
    fields.setdefault("answer", "42")
    return QAPair.objects.create(author=author, family=family, state=state, **fields)


def screen_pair(author, *, screens=1, state="accepted", screen_state=Asset.ReviewState.CLEARED, **fields):
    kind = "single_screen" if screens == 1 else "multi_screen"
    qa = pair(author, split_kind=kind, state=state, category=make_category("shopping"), **fields)
    for position in range(screens):
        page = screen(author, url=f"https://shop{position}.example/item", state=screen_state)
        Evidence.objects.create(qa_pair=qa, position=position, screen=page, note=f"price {position}")
    return qa


def trace(author, pages, *, host="shop.example", uncleared=()):
    """A finished trace over ``pages`` (paths on ``host``): each step after the first is a
    click on a link of the page before, with a box, as the extension records it."""
    recorded = Trace.objects.create(client_id=uuid.uuid4(), author=author, category=make_category("shopping"),
                                    state="finished")  # fmt: skip
    steps = []
    for position, path in enumerate(pages):
        url = f"https://{host}{path}"
        state = Asset.ReviewState.PENDING_REVIEW if position in uncleared else Asset.ReviewState.CLEARED
        page = screen(author, url=url, state=state, size=(200, 120))
        next_url = f"https://{host}{pages[position + 1]}" if position + 1 < len(pages) else None
        clickables = [{"tag": "a", "text": "Home", "href": f"https://{host}/", "bbox": [0, 0, 40, 20]}]
        if next_url:
            clickables.append({"tag": "a", "text": f"Go {position}", "href": next_url, "bbox": [50, 30, 60, 20]})
        target = None
        if position:
            target = {"tag": "a", "text": f"Go {position - 1}", "href": url, "bbox": [50, 30, 60, 20]}
        steps.append(
            TraceStep.objects.create(
                trace=recorded, client_id=uuid.uuid4(), position=position, screen=page, url=url, title=f"Title {path}",
                captured_at=timezone.now(), viewport_width=200, viewport_height=120,
                action="click" if position else "navigate", target=target, clickables=clickables,
            )
        )  # fmt: skip
    return recorded, steps


def trace_pair(author, recorded, steps, *, family="webquest", relevant=(1, 2), **fields):
    qa = pair(author, family=family, split_kind="trace", trace=recorded, category=make_category("shopping"), **fields)
    for position, index in enumerate(relevant):
        Evidence.objects.create(qa_pair=qa, position=position, screen=steps[index].screen, step=steps[index],
                                note=f"the page {index}")  # fmt: skip
    return qa


def image_source(*, state=Asset.ReviewState.CLEARED, topic="frogs"):
    n = next(_n)
    return ImageSource.objects.create(asset=asset(state=state), title=f"Image {n}", description=f"A picture {n}.",
                                      source_url=f"https://commons.example/File:{n}.png", topic=topic,
                                      licence="CC BY-SA 4.0")  # fmt: skip


def snippet():
    n = next(_n)
    return Snippet.objects.create(digest=f"{n:064d}", title=f"Snippet {n}", text=f"Fact number {n}.",
                                  url=f"https://wiki.example/{n}")  # fmt: skip


def image_group(label="Tree frogs"):
    return ImageGroup.objects.create(label=label, similarity=0.8)


def webqa_image_pair(author, *, category="color", keyword="white", images=1, group=None, negatives=2, **fields):
    qa = pair(author, family="webqa", split_kind="image", question_category=category, keyword_answer=keyword,
              answer=f"It is {keyword}.", image_group=group, **fields)  # fmt: skip
    for position in range(images):
        Evidence.objects.create(qa_pair=qa, position=position, image=image_source())
    for rank in range(1, negatives + 1):
        Distractor.objects.create(qa_pair=qa, kind="image", image=image_source(), method="visual", score=1 / rank,
                                  rank=rank)  # fmt: skip
        Distractor.objects.create(qa_pair=qa, kind="text", snippet=snippet(), method="bm25", score=1 / rank, rank=rank)
    return qa


def webqa_text_pair(author, *, keyword="Lisbon", **fields):
    qa = pair(author, family="webqa", split_kind="text", question_category="Others", keyword_answer=keyword,
              answer=f"The answer is {keyword}.", **fields)  # fmt: skip
    for position in range(2):
        Evidence.objects.create(qa_pair=qa, position=position, snippet=snippet())
    Distractor.objects.create(qa_pair=qa, kind="text", snippet=snippet(), method="bm25", score=0.5, rank=1)
    return qa
