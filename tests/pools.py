"""Pool images, snippets and WebQA-style batches for tests."""

import io
import random

from django.core.files.base import ContentFile
from PIL import Image, ImageDraw

from accounts.models import Role, User
from assets.models import Asset
from assets.services import store_image
from collection.pools import snippet_digest
from corpus.models import ImageGroup, ImageSource, ImageTriple, Snippet
from hits import services


def image_bytes(seed, *, size=(160, 120), format="PNG"):
    """A small picture of coloured blocks, different for every seed."""
    rng = random.Random(seed)
    image = Image.new("RGB", size, tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        draw.rectangle(
            [x, y, x + rng.randrange(10, 60), y + rng.randrange(10, 50)],
            fill=tuple(rng.randrange(256) for _ in range(3)),
        )
    out = io.BytesIO()
    image.save(out, format=format)
    return out.getvalue()


def pool_owner():
    user, _ = User.objects.get_or_create(username="pool-admin", defaults={"role": Role.ADMIN})
    return user


def pool_image(*, title, topic="", description="", seed=None, cleared=True):
    """A pool image; ``cleared`` (the default) as if a reviewer had passed it, since only
    cleared pool images reach workers."""
    seed = title if seed is None else seed
    asset, _ = store_image(file=ContentFile(image_bytes(seed), name="pool.png"), uploaded_by=pool_owner())
    if cleared:
        Asset.objects.filter(pk=asset.pk).update(review_state=Asset.ReviewState.CLEARED)
    image, _ = ImageSource.objects.get_or_create(
        asset=asset, defaults={"title": title, "topic": topic, "description": description or f"A picture of {title}."}
    )
    return image


def pool_images(count, *, topic="lighthouses"):
    return [pool_image(title=f"{topic} {n}", topic=topic, seed=f"{topic}-{n}") for n in range(count)]


def snippet(*, title, text, topic="", url="https://example.org/wiki/page"):
    made, _ = Snippet.objects.get_or_create(
        digest=snippet_digest(title, text), defaults={"title": title, "text": text, "topic": topic, "url": url}
    )
    return made


def snippets(count, *, topic="bridges"):
    return [
        snippet(title=f"{topic.title()} fact {n}", text=f"Fact number {n} about {topic}: it is notable.", topic=topic)
        for n in range(count)
    ]


def webqa_batch(*, kind, payloads, wanted=1, **fields):
    fields.setdefault("reward", "0.50")
    batch = services.create_batch(name=fields.pop("name", f"{kind} batch"), kind=kind, **fields)
    services.add_tasks(batch=batch, payloads=payloads, assignments_wanted=wanted)
    return services.open_batch(batch=batch)


def triple(*, label, images, author=None, topic="", group=None):
    made = ImageTriple.objects.create(author=author or pool_owner(), label=label, topic=topic, group=group)
    made.images.set(images)
    return made


def image_group(images, *, label="lighthouses / towers by the sea"):
    group = ImageGroup.objects.create(label=label, similarity=0.8)
    triple(label="first", images=images[:3], group=group)
    triple(label="second", images=images[3:6], group=group)
    return group
