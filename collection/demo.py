"""Demo data for capture work: a site catalogue, open single- and multi-screen batches,
and two example questions on screenshots drawn here with Pillow (no network)."""

import io

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image, ImageDraw, ImageFont

from accounts.models import User
from corpus.models import Category, Evidence, QAPair
from hits.demo import open_demo_batch

from . import services
from .answers import answer_type
from .catalogue import import_sites
from .services import capture_screen

SITES_CSV = """category,name,url
Shopping,Amazon,https://www.amazon.com/
Shopping,eBay,https://www.ebay.com/
Shopping,Walmart,https://www.walmart.com/
Shopping,Target,https://www.target.com/
Shopping,Best Buy,https://www.bestbuy.com/
Restaurant,OpenTable,https://www.opentable.com/
Restaurant,Yelp,https://www.yelp.com/
Restaurant,DoorDash,https://www.doordash.com/
Hotel,Booking.com,https://www.booking.com/
Hotel,Expedia,https://www.expedia.com/
Hotel,Hotels.com,https://www.hotels.com/
Transportation,Kayak,https://www.kayak.com/
Transportation,Skyscanner,https://www.skyscanner.net/
Transportation,Amtrak,https://www.amtrak.com/
Landmark,Tripadvisor,https://www.tripadvisor.com/
News,BBC News,https://www.bbc.com/news
News,Reuters,https://www.reuters.com/
Media Sharing,YouTube,https://www.youtube.com/
Media Sharing,Flickr,https://www.flickr.com/
Education & Information,Wikipedia,https://www.wikipedia.org/
Education & Information,Coursera,https://www.coursera.org/
Movies,IMDb,https://www.imdb.com/
Movies,Rotten Tomatoes,https://www.rottentomatoes.com/
Real Estate,Zillow,https://www.zillow.com/
Real Estate,Realtor.com,https://www.realtor.com/
Other,Weather.gov,https://www.weather.gov/
"""

SINGLE_BATCH = "Demo: capture a page and ask about it"
MULTI_BATCH = "Demo: compare pages across shops"

KETTLE_SHOPS = [
    ("https://www.amazon.com/s?k=steel+kettle", "Amazon.com: steel kettle", [("Steel kettle 1.7 l", "$34.99"), ("Glass kettle 1.5 l", "$29.50"), ("Travel kettle 0.5 l", "$19.00")]),
    ("https://www.walmart.com/search?q=steel+kettle", "steel kettle - Walmart.com", [("Steel kettle 1.7 l", "$31.49"), ("Electric kettle 1.2 l", "$24.00")]),
    ("https://www.target.com/s?searchTerm=steel+kettle", "Steel Kettle : Target", [("Steel kettle 1.7 l", "$36.00"), ("Gooseneck kettle 1 l", "$45.00"), ("Whistling kettle 2 l", "$22.99")]),
]  # fmt: skip
MENU = ("https://www.doordash.com/store/corner-pizza", "Corner Pizza - Order online", [("Large margherita", "$14.00"), ("Small margherita", "$8.50"), ("Garden salad", "$6.25"), ("Lemonade", "$3.00")])  # fmt: skip


def render_page(*, title, url, rows, size=(1280, 800)):
    """A plain screenshot-like picture of a listing page, as PNG bytes."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    small, large = ImageFont.load_default(size=18), ImageFont.load_default(size=30)
    draw.rectangle((0, 0, size[0], 44), fill=(235, 237, 240))
    draw.text((20, 12), url, fill=(60, 64, 72), font=small)
    draw.rectangle((0, 44, size[0], 120), fill=(31, 60, 120))
    draw.text((40, 64), title, fill="white", font=large)
    for n, (name, price) in enumerate(rows):
        top = 160 + n * 110
        draw.rectangle((40, top, size[0] - 40, top + 90), outline=(210, 214, 220), width=2)
        draw.rectangle((60, top + 15, 120, top + 75), fill=(200 - n * 30, 170, 120 + n * 30))
        draw.text((150, top + 28), name, fill=(20, 24, 32), font=large)
        draw.text((size[0] - 220, top + 28), price, fill=(160, 30, 30), font=large)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def _screen(author, url, title, rows):
    data = render_page(title=title, url=url, rows=rows)
    return capture_screen(
        file=SimpleUploadedFile("demo.png", data, content_type="image/png"), author=author, url=url, title=title
    )


def _example(author, split_kind, category, question, answer, reasoning, pages):
    pair = QAPair.objects.create(
        family=QAPair.Family.WEBQUEST,
        split_kind=split_kind,
        question=question,
        answer=answer,
        answer_type=answer_type(answer),
        reasoning_types=reasoning,
        category=Category.objects.get(slug=category),
        author=author,
    )
    for position, (url, title, rows, note) in enumerate(pages):
        Evidence.objects.create(qa_pair=pair, position=position, screen=_screen(author, url, title, rows), note=note)


def _ensure_defaults():
    """The default categories and block list come from a migration; a database emptied
    since (e.g. ``flush``) gets them back, so that the demo can always load."""
    from importlib import import_module

    from django.apps import apps

    import_module("corpus.migrations.0002_default_categories").add_categories(apps, None)
    import_module("collection.migrations.0002_default_blocks").add_blocks(apps, None)


def load(*, out):
    _ensure_defaults()
    report = import_sites(text=SITES_CSV)
    if report.created:
        out(f"Added {report.created} sites to the catalogue.")
    rater = User.objects.get(username="rater")
    open_demo_batch(
        name=SINGLE_BATCH,
        kind="single_screen_qa",
        description="Shopping, restaurant and hotel pages: one screenshot and one question each.",
        reward="0.60",
        payloads=[{"category": c} for c in ("shopping", "restaurant", "hotel") for _ in range(3)],
        out=out,
    )
    open_demo_batch(
        name=MULTI_BATCH,
        kind="multi_screen_qa",
        description="Three to five shop pages and a question that needs all of them.",
        reward="1.20",
        payloads=[{"category": "shopping"} for _ in range(4)],
        out=out,
    )
    if not QAPair.objects.filter(author=rater).exists():
        _example(
            rater, "single_screen", "restaurant",
            "How much do two large margheritas and one garden salad cost together?", "$34.25", ["arithmetic"],
            [(*MENU, "")],
        )  # fmt: skip
        _example(
            rater, "multi_screen", "shopping",
            "How much more does the 1.7 l steel kettle cost at the dearest of the three shops than at the cheapest?",
            "$4.51", ["arithmetic", "comparison"],
            [(url, title, rows, f"price of the 1.7 l steel kettle at {title.split()[-1]}") for url, title, rows in KETTLE_SHOPS],
        )  # fmt: skip
        out("Added two example questions on generated screenshots (by the demo rater).")
    load_traces(out=out)
    from . import webqa_demo, webvln_demo

    webqa_demo.load(out=out)
    webvln_demo.load(out=out)


TRACE_BATCH = "Demo: questions on browsing traces"
TRACE_PAGES = [
    ("navigate", "https://www.booking.com/", "Booking.com: hotels in Lisbon", [("Search: Lisbon, 2 nights", "")]),
    ("click", "https://www.booking.com/searchresults?city=lisbon", "Lisbon: 212 properties", [("Hotel Avenida", "$142"), ("Casa do Rio", "$118"), ("Alfama Rooms", "$96")]),
    ("scroll", "https://www.booking.com/searchresults?city=lisbon", "Lisbon: 212 properties", [("Baixa Loft", "$131"), ("Hotel Tejo", "$155")]),
    ("click", "https://www.booking.com/hotel/casa-do-rio", "Casa do Rio – rooms", [("Double room, breakfast", "$118"), ("City tax per night", "$4")]),
    ("back", "https://www.booking.com/searchresults?city=lisbon", "Lisbon: 212 properties", [("Hotel Avenida", "$142"), ("Casa do Rio", "$118"), ("Alfama Rooms", "$96")]),
    ("click", "https://www.booking.com/hotel/alfama-rooms", "Alfama Rooms – rooms", [("Double room, no breakfast", "$96"), ("Breakfast per person", "$9")]),
    ("click", "https://www.expedia.com/Lisbon-Hotels", "Expedia: Lisbon hotels", [("Casa do Rio", "$124"), ("Alfama Rooms", "$99")]),
    ("scroll", "https://www.expedia.com/Lisbon-Hotels", "Expedia: Lisbon hotels", [("Hotel Tejo", "$149"), ("Baixa Loft", "$127")]),
]  # fmt: skip


def _demo_trace(author, batch):
    """A recorded trace as the extension would upload it, with generated screens."""
    import uuid

    from django.utils import timezone

    trace, _ = services.start_trace(author=author, client_id=uuid.uuid4(), category="hotel", batch_id=batch.pk)
    for position, (action, url, title, rows) in enumerate(TRACE_PAGES):
        target = (
            None
            if action in ("navigate", "scroll", "back")
            else {"tag": "a", "text": rows[0][0], "role": "link", "href": url}
        )
        data = render_page(title=title, url=url, rows=rows)
        services.add_step(
            trace_id=trace.pk,
            author=author,
            screenshot=SimpleUploadedFile("step.png", data, content_type="image/png"),
            step={
                "client_id": uuid.uuid4(), "position": position, "url": url, "title": title,
                "captured_at": timezone.now(), "viewport": {"width": 1280, "height": 800},
                "scroll": {"x": 0, "y": 600 if action == "scroll" else 0},
                "action": {"type": action, "target": target},
                "clickables": [{"tag": "a", "text": name, "href": url} for name, _ in rows],
            },
        )  # fmt: skip
    services.finish_trace(trace_id=trace.pk, author=author, step_count=len(TRACE_PAGES))


def load_traces(*, out):
    batch = open_demo_batch(
        name=TRACE_BATCH,
        kind="trace_qa",
        description="Record a browsing session with the Chrome extension, then write questions on it.",
        reward="2.00",
        payloads=[],
        out=out,
    )
    if batch is not None:
        _demo_trace(User.objects.get(username="rater"), batch)
        out("Added a recorded demo trace for the demo rater to write questions on.")
