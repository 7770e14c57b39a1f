"""Three small websites that need no network: a kitchen shop, a bookshop and a hotel
guide. The demo records traces on them (screenshots drawn with Pillow) and the browser
tests serve them as HTML, so both show the same pages, links and details.

Each site is ``{path: Page}``; every page links to the pages in its ``links``, and the
homepage is ``/``. Item pages are two clicks from the homepage, which is what a
navigation question needs."""

import html
import io
from dataclasses import dataclass, field

from PIL import Image, ImageDraw, ImageFont


@dataclass(frozen=True)
class Page:
    title: str
    details: tuple = ()  # (label, value) rows shown on the page
    links: tuple = field(default=())  # (text, path)


def _shop(name, sections):
    pages = {"/": Page(f"{name} – home", (("Welcome", f"Browse {name} by section"),),
                       tuple((section, f"/{slug}") for slug, (section, _items) in sections.items()))}  # fmt: skip
    for slug, (section, items) in sections.items():
        pages[f"/{slug}"] = Page(
            f"{section} – {name}",
            tuple((item, details[0][1]) for item, details in items.items()),
            tuple((item, f"/{slug}/{n}") for n, item in enumerate(items)) + (("Home", "/"),),
        )
        for n, (item, details) in enumerate(items.items()):
            pages[f"/{slug}/{n}"] = Page(
                f"{item} – {name}", details, (("Back to " + section, f"/{slug}"), ("Home", "/"))
            )
    return pages


SITES = {
    "demo-kitchen.test": (
        "Demo Kitchen",
        "shopping",
        _shop("Demo Kitchen", {
            "kettles": ("Kettles", {
                "Steel kettle": (("Price", "$34.99"), ("Capacity", "1.7 litres"), ("Material", "Stainless steel")),
                "Glass kettle": (("Price", "$29.50"), ("Capacity", "1.5 litres"), ("Colour", "Clear")),
                "Travel kettle": (("Price", "$19.00"), ("Capacity", "0.5 litres"), ("In stock", "No")),
            }),
            "mugs": ("Mugs", {
                "Blue mug": (("Price", "$8.00"), ("Size", "350 ml"), ("Colour", "Blue")),
                "Tall mug": (("Price", "$11.50"), ("Size", "500 ml"), ("Material", "Stoneware")),
            }),
        }),
    ),
    "demo-books.test": (
        "Demo Books",
        "shopping",
        _shop("Demo Books", {
            "novels": ("Novels", {
                "The Quiet Harbour": (("Price", "$14.00"), ("Pages", "320"), ("Format", "Paperback")),
                "Salt and Stone": (("Price", "$18.50"), ("Pages", "412"), ("Format", "Hardback")),
            }),
            "cooking": ("Cooking", {
                "Soup Every Day": (("Price", "$22.00"), ("Pages", "256"), ("Recipes", "180")),
                "Bread at Home": (("Price", "$19.99"), ("Pages", "198"), ("Recipes", "75")),
                "Small Plates": (("Price", "$16.00"), ("Pages", "224"), ("Recipes", "120")),
            }),
        }),
    ),
    "demo-stays.test": (
        "Demo Stays",
        "hotel",
        _shop("Demo Stays", {
            "lisbon": ("Lisbon", {
                "Casa do Rio": (("Per night", "$118"), ("Rating", "8.9"), ("Breakfast", "Included")),
                "Alfama Rooms": (("Per night", "$96"), ("Rating", "8.1"), ("Breakfast", "$9 extra")),
            }),
            "porto": ("Porto", {
                "Ribeira Loft": (("Per night", "$131"), ("Rating", "9.2"), ("Breakfast", "Included")),
                "Hotel Douro": (("Per night", "$104"), ("Rating", "7.8"), ("Breakfast", "Included")),
            }),
        }),
    ),
}  # fmt: skip

WIDTH, HEIGHT = 1280, 800
BUTTON = (40, 0, 420, 56)  # left, (top set per button), width, height


def button_boxes(page):
    """``[(text, path, [x, y, width, height])]``: where each link is drawn on the page."""
    top = 170 + 60 * len(page.details)
    return [(text, path, [BUTTON[0], top + 72 * n, BUTTON[2], BUTTON[3]]) for n, (text, path) in enumerate(page.links)]


def screenshot(host, path):
    """The page as a 1280×800 PNG, with its buttons where ``button_boxes`` says."""
    _name, _category, pages = SITES[host]
    page = pages[path]
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    small, large = ImageFont.load_default(size=20), ImageFont.load_default(size=32)
    draw.rectangle((0, 0, WIDTH, 44), fill=(235, 237, 240))
    draw.text((20, 12), f"https://{host}{path}", fill=(60, 64, 72), font=small)
    draw.rectangle((0, 44, WIDTH, 130), fill=(31, 60, 120))
    draw.text((40, 68), page.title, fill="white", font=large)
    for n, (label, value) in enumerate(page.details):
        draw.text((40, 160 + 60 * n), f"{label}: {value}", fill=(20, 24, 32), font=large)
    for n, (text, _path, (x, y, w, h)) in enumerate(button_boxes(page)):
        draw.rectangle((x, y, x + w, y + h), fill=(220 - 25 * n % 120, 120 + 20 * n % 100, 60), outline=(40, 40, 40))
        draw.text((x + 16, y + 12), text, fill="white", font=large)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def page_html(host, path):
    """The page as HTML, for a local server, or None when the site has no such page."""
    _name, _category, pages = SITES[host]
    page = pages.get(path)
    if page is None:
        return None
    rows = "".join(f"<p>{html.escape(label)}: {html.escape(value)}</p>" for label, value in page.details)
    links = "".join(f'<a href="{html.escape(target)}">{html.escape(text)}</a>' for text, target in page.links)
    return (
        f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(page.title)}</title></head>'
        f"<body><h1>{html.escape(page.title)}</h1>{rows}<nav>{links}</nav></body></html>"
    )
