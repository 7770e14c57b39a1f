"""Pictures drawn from a short description, for the built-in qualification tests.

A test item's figure such as ``{"draw": "screen", "title": …, "rows": […]}`` is drawn
here with Pillow on the server: the default tests ship as data, without image files,
and look the same on every install.
"""

import io
import json
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 960, 600
SHAPES = ("circle", "square", "triangle", "pentagon")


def render(figure):
    """PNG bytes of ``figure``; raises ValueError for one that cannot be drawn."""
    return _render(json.dumps(figure, sort_keys=True))


@lru_cache(maxsize=256)
def _render(key):
    figure = json.loads(key)
    draw = {"screen": _screen, "picture": _picture}.get(figure.get("draw"))
    if draw is None:
        raise ValueError(f"There is no drawing called {figure.get('draw')!r}.")
    image = draw(figure)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


def _font(size):
    return ImageFont.load_default(size=size)


def _screen(figure):
    """A plain web page: address bar, header, an optional signed-in name, and rows of
    name and value, like a listing."""
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH, 36), fill=(232, 234, 238))
    draw.text((16, 9), figure.get("url", ""), fill=(70, 74, 82), font=_font(16))
    draw.rectangle((0, 36, WIDTH, 100), fill=tuple(figure.get("brand", (40, 70, 130))))
    draw.text((28, 52), figure.get("title", ""), fill="white", font=_font(28))
    if figure.get("signed_in_as"):
        draw.text((WIDTH - 330, 60), f"Signed in as {figure['signed_in_as']}", fill="white", font=_font(18))
    top = 124
    for heading in figure.get("headings", []):
        draw.text((32, top), heading, fill=(30, 30, 30), font=_font(20))
        top += 34
    for n, (name, value) in enumerate(figure.get("rows", [])):
        y = top + n * 64
        draw.rectangle((28, y, WIDTH - 28, y + 54), outline=(214, 218, 224), width=2)
        draw.rectangle((40, y + 9, 76, y + 45), fill=(180 - n * 20 % 120, 160, 110 + n * 25 % 120))
        draw.text((92, y + 15), name, fill=(20, 24, 32), font=_font(22))
        draw.text((WIDTH - 230, y + 15), value, fill=(150, 30, 30), font=_font(22))
    return image


def _picture(figure):
    """A simple scene: sky, ground and rows of coloured shapes, counted so that
    questions about colour, shape and number have one right answer."""
    image = Image.new("RGB", (WIDTH, HEIGHT), figure.get("sky", "#9fd3f0"))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, HEIGHT - 150, WIDTH, HEIGHT), fill=figure.get("ground", "#5a9a4a"))
    things = [(shape, colour) for shape, colour, count in figure.get("things", []) for _ in range(count)]
    per_row = 6
    for n, (shape, colour) in enumerate(things):
        row, column = divmod(n, per_row)
        cx, cy, r = 110 + column * 150, 130 + row * 150, 52
        _shape(draw, shape, colour, cx, cy, r)
    return image


def _shape(draw, shape, colour, cx, cy, r):
    if shape not in SHAPES:
        raise ValueError(f"There is no shape called {shape!r}.")
    box = (cx - r, cy - r, cx + r, cy + r)
    if shape == "circle":
        draw.ellipse(box, fill=colour, outline="black", width=2)
    elif shape == "square":
        draw.rectangle(box, fill=colour, outline="black", width=2)
    elif shape == "triangle":
        draw.polygon([(cx, cy - r), (cx + r, cy + r), (cx - r, cy + r)], fill=colour, outline="black")
    else:
        draw.regular_polygon((cx, cy, r), 5, fill=colour, outline="black")
