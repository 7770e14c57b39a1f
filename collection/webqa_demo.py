"""Demo pools for the WebQA-style tasks, drawn here with Pillow (no network): twenty
pictures of lighthouses and barns with descriptions (cleared by the demo reviewer), a
dozen text snippets about a made-up coastal town's bridges, lighthouses and quay, and
open batches of image filter, six-image and text tasks."""

import io
import random
from datetime import timedelta

from django.core.files.base import ContentFile
from django.utils import timezone
from PIL import Image, ImageDraw

from accounts.models import User
from assets.models import Asset
from assets.services import store_image
from corpus.models import ImageSource, ImageTriple, Snippet
from hits import registry
from hits.demo import open_demo_batch
from moderation import services as moderation
from moderation.models import ReviewItem

from .grouping import group_triples
from .kinds.six_image_qa import SixImageQA
from .pools import snippet_digest

FILTER_BATCH = "Demo: pick three related images"
SIX_IMAGE_BATCH = "Demo: questions on six images"
TEXT_BATCH = "Demo: questions across text snippets"

COLOURS = {
    "red": (196, 40, 40),
    "white": (245, 245, 240),
    "black": (30, 30, 30),
    "green": (60, 140, 70),
    "blue": (50, 90, 180),
    "yellow": (230, 190, 40),
    "grey": (140, 140, 140),
    "brown": (120, 80, 45),
}
# (tower colour, stripe colour or None, lantern colour, sky)
LIGHTHOUSES = [
    ("white", "red", "black", "blue"),
    ("white", None, "red", "blue"),
    ("red", None, "white", "grey"),
    ("white", "black", "black", "blue"),
    ("yellow", None, "black", "blue"),
    ("white", "green", "green", "grey"),
    ("grey", None, "red", "grey"),
    ("white", "red", "red", "blue"),
    ("black", "white", "black", "blue"),
    ("white", "blue", "black", "grey"),
]
# (wall colour, roof colour, doors, silo or not)
BARNS = [
    ("red", "grey", 1, False),
    ("red", "black", 2, True),
    ("white", "red", 1, False),
    ("brown", "grey", 1, True),
    ("red", "white", 2, False),
    ("green", "grey", 1, False),
    ("yellow", "brown", 2, True),
    ("grey", "red", 1, True),
    ("red", "red", 3, False),
    ("blue", "white", 1, False),
]

SNIPPETS = [
    ("bridges", "Harrowmouth harbour bridge", "The harbour bridge at Harrowmouth was finished in 1887. Its three stone arches carry the coast road over the mouth of the river Lenn."),
    ("bridges", "The Lenn footbridge", "Upstream of the harbour, a steel footbridge crosses the river Lenn. It was opened in 1962 to replace a ferry that had run since the Middle Ages."),
    ("bridges", "Ada Pryce, bridge engineer", "Ada Pryce, who designed the Lenn footbridge, was born in Harrowmouth in 1921 and studied engineering in Glasgow."),
    ("bridges", "The Lenn ferry", "Before 1962 foot passengers crossed the river Lenn by a rowing ferry that could carry twelve people at a time."),
    ("lighthouse", "Harrowmouth Point lighthouse", "The lighthouse on Harrowmouth Point stands 31 metres tall. Its white tower has two red bands and its light flashes every ten seconds."),
    ("lighthouse", "Keepers of the Point lighthouse", "Keepers lived at the Point lighthouse until 1989, when the light was automated. Their cottages are now a small museum."),
    ("lighthouse", "The Gull Rock lighthouse", "Three kilometres offshore, the Gull Rock lighthouse is an unmanned iron tower, 14 metres tall, painted black with a yellow top."),
    ("lighthouse", "Lighthouse museum", "The lighthouse museum in the old keepers' cottages opens from April to October. Entry is free for children under twelve."),
    ("market", "Fish market on the quay", "The fish market on the quay has been held every Tuesday and Friday since 1903."),
    ("market", "Quay warehouses", "The four brick warehouses on the quay were built in 1871 to store salt for the fishing fleet."),
    ("market", "Market hall on the quay", "In 1998 the oldest warehouse on the quay became the market hall, with room for forty stalls."),
    ("market", "The fishing fleet", "At its largest, in 1910, the fishing fleet that landed at the quay counted 120 boats; today eleven still fish from the harbour."),
]  # fmt: skip


def _lighthouse(tower, stripe, lantern, sky, seed):
    rng = random.Random(seed)
    image = Image.new("RGB", (320, 240), COLOURS[sky])
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 190, 320, 240], fill=COLOURS["green"] if sky == "blue" else COLOURS["grey"])
    x = 120 + rng.randrange(-40, 40)
    draw.polygon([(x, 190), (x + 60, 190), (x + 48, 70), (x + 12, 70)], fill=COLOURS[tower])
    if stripe:
        for y in (160, 120, 85):
            draw.rectangle([x + 6, y - 12, x + 54, y], fill=COLOURS[stripe])
    draw.rectangle([x + 14, 45, x + 46, 70], fill=COLOURS[lantern])
    draw.polygon([(x + 10, 45), (x + 50, 45), (x + 30, 28)], fill=COLOURS["black"])
    return image


def _barn(wall, roof, doors, silo, seed):
    rng = random.Random(seed)
    image = Image.new("RGB", (320, 240), (150, 190, 230))
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 180, 320, 240], fill=COLOURS["green"])
    x = 60 + rng.randrange(-30, 30)
    draw.rectangle([x, 110, x + 150, 190], fill=COLOURS[wall])
    draw.polygon([(x - 10, 110), (x + 160, 110), (x + 75, 60)], fill=COLOURS[roof])
    width = 130 // doors
    for n in range(doors):
        left = x + 10 + n * width
        draw.rectangle(
            [left + 8, 140, left + width - 8, 190], fill=COLOURS["white"] if wall != "white" else COLOURS["brown"]
        )
    if silo:
        draw.rectangle([x + 170, 80, x + 200, 190], fill=COLOURS["grey"])
        draw.ellipse([x + 170, 68, x + 200, 92], fill=COLOURS["grey"])
    return image


def _png(image):
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _pool_images(admin):
    made = []
    for n, (tower, stripe, lantern, sky) in enumerate(LIGHTHOUSES):
        banded = f" with {stripe} bands" if stripe else ""
        title = f"{tower.capitalize()} lighthouse{banded}"
        description = (
            f"A {tower} lighthouse tower{banded} and a {lantern} lantern room under a {'clear blue' if sky == 'blue' else 'grey'} "
            f"sky, standing on a {'green headland' if sky == 'blue' else 'rocky shore'}."
        )
        made.append(("lighthouses", f"{title} ({n + 1})", description, _lighthouse(tower, stripe, lantern, sky, n)))
    for n, (wall, roof, doors, silo) in enumerate(BARNS):
        with_silo = " and a grey silo beside it" if silo else ""
        title = f"{wall.capitalize()} barn with a {roof} roof"
        description = (
            f"A {wall} wooden barn with a {roof} roof, {doors} {'door' if doors == 1 else 'doors'} at the front"
            f"{with_silo}, in a green field."
        )
        made.append(("barns", f"{title} ({n + 1})", description, _barn(wall, roof, doors, silo, n)))
    sources = []
    for topic, title, description, image in made:
        asset, _ = store_image(file=ContentFile(_png(image), name="pool.png"), uploaded_by=admin)
        source, _ = ImageSource.objects.get_or_create(
            asset=asset,
            defaults={
                "title": title,
                "description": description,
                "topic": topic,
                "source_url": f"https://example.org/demo/{topic}/{len(sources) + 1}",
                "licence": "Generated for the demo",
                "imported_by": admin,
            },
        )
        sources.append(source)
    return sources


def load(*, out):
    admin = User.objects.get(username="admin")
    if not ImageSource.objects.filter(topic__in=["lighthouses", "barns"]).exists():
        _pool_images(admin)
        out("Added 20 generated pool images (lighthouses and barns) with descriptions.")
    _clear(ImageSource.objects.filter(topic__in=["lighthouses", "barns"]), User.objects.get(username="reviewer"))
    for topic, title, text in SNIPPETS:
        Snippet.objects.get_or_create(
            digest=snippet_digest(title, text),
            defaults={"title": title, "text": text, "topic": topic, "url": "https://example.org/harrowmouth"},
        )
    batches = [
        (FILTER_BATCH, "image_filter", "0.10", "Ten images found for one topic: pick three that differ but belong together."),
        (TEXT_BATCH, "text_multihop_qa", "0.40", "Four short texts about a coastal town: write a question that needs two of them."),
        (SIX_IMAGE_BATCH, "six_image_qa", "0.60", "Six related images with descriptions: write three questions that need the pictures."),
    ]  # fmt: skip
    for name, kind, reward, description in batches:
        batch = open_demo_batch(name=name, kind=kind, description=description, reward=reward, payloads=[], out=out)
        if batch is None:
            continue
        if kind == SixImageQA.name:  # grouped here and now, not by the background job
            _example_triples(admin)
            out(f"{name}: the example triples make {group_triples(batch_id=batch.pk)} six-image tasks.")
            _example_pairs(User.objects.get(username="rater"))
            out("Added four example WebQA questions (by the demo rater) for validators to check.")
        else:  # the kind's own filling: cleared pool images in tens, similar snippets in fours
            out(f"{name}: {registry.get(kind).fill(batch=batch)}")


def _clear(images, reviewer):
    """The demo's drawn pictures show nobody and nothing unsafe: the demo reviewer clears
    them, as only cleared pool images go to workers."""
    pending = images.exclude(asset__review_state=Asset.ReviewState.CLEARED).order_by("asset_id")
    for asset_id in pending.values_list("asset_id", flat=True):
        item = moderation.enqueue(asset=Asset.objects.get(pk=asset_id))
        ReviewItem.objects.filter(pk=item.pk).update(
            claimed_by=reviewer, claimed_until=timezone.now() + timedelta(minutes=5)
        )
        moderation.approve(item_id=item.pk, reviewer=reviewer)


def _example_triples(admin):
    """Four triples as image filter workers might have picked them, two per topic."""
    picks = {
        ("lighthouses", "banded lighthouses"): [0, 3, 7],
        ("lighthouses", "lighthouses with red bands or lanterns"): [1, 2, 6],
        ("barns", "red barns"): [0, 1, 4],
        ("barns", "barns with silos"): [3, 6, 7],
    }
    pool = {topic: list(ImageSource.objects.filter(topic=topic).order_by("id")) for topic in ("lighthouses", "barns")}
    for (topic, label), indexes in picks.items():
        if ImageTriple.objects.filter(label=label, author=admin).exists():
            continue
        triple = ImageTriple.objects.create(author=admin, topic=topic, label=label)
        triple.images.set([pool[topic][i] for i in indexes])


# Example WebQA questions on the first lighthouse group (by image title) and on two
# snippets, as the six-image and text tasks write them.
EXAMPLE_IMAGE_PAIRS = [
    (
        ["White lighthouse with red bands (1)", "White lighthouse with black bands (4)"],
        "Do the white lighthouse with red bands and the one with black bands have lantern rooms of the same colour?",
        "Yes, both banded white lighthouses have black lantern rooms.",
        "yes",
    ),
    (
        ["Red lighthouse (3)"],
        "What colour is the lantern room on top of the red lighthouse on the rocky shore?",
        "The red lighthouse on the rocky shore has a white lantern room.",
        "white",
    ),
    (
        ["Grey lighthouse (7)", "White lighthouse (2)"],
        "How many of the grey lighthouse and the plain white lighthouse have a red lantern room?",
        "Both of them, so two lighthouses, have a red lantern room.",
        "2",
    ),
]
EXAMPLE_TEXT_PAIR = (
    ["Harrowmouth harbour bridge", "The Lenn footbridge"],
    "How many years after the harbour bridge at Harrowmouth was finished did the footbridge over the Lenn open?",
    "The footbridge over the Lenn opened 75 years after the harbour bridge was finished.",
    "75 years",
)


def _example_pairs(rater):
    from corpus.models import Evidence, ImageGroup, QAPair
    from mining.categories import categorise

    if QAPair.objects.filter(author=rater, family=QAPair.Family.WEBQA).exists():
        return
    group = ImageGroup.objects.filter(label__contains="lighthouse").order_by("id").first()
    examples = [("image", titles, q, a, k) for titles, q, a, k in EXAMPLE_IMAGE_PAIRS]
    examples.append(("text", *EXAMPLE_TEXT_PAIR))
    for split_kind, titles, question, answer, keyword in examples:
        fields = {"split_kind": split_kind, "question": question, "answer": answer, "keyword_answer": keyword}
        pair = QAPair.objects.create(
            family=QAPair.Family.WEBQA,
            question_category=categorise(fields),
            image_group=group if split_kind == "image" else None,
            author=rater,
            **fields,
        )
        for position, title in enumerate(titles):
            source = (
                {"image": ImageSource.objects.get(title=title)}
                if split_kind == "image"
                else {"snippet": Snippet.objects.get(title=title)}
            )
            Evidence.objects.create(qa_pair=pair, position=position, **source)
