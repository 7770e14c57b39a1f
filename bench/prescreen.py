"""PII/safety pre-screen benchmark: prescreen() against Tesseract alone.

    .venv/bin/python bench/prescreen.py [--pages 4] [--runs 5]

Renders a few 1280×800 screenshots of text-heavy pages (DejaVuSans, 14–24 px, some
PII lines among ordinary text), then times, alternately on each page,
``pytesseract.image_to_data`` on its own and the whole ``prescreen()`` (OCR plus every
detector). Prints the median seconds per page for both and their ratio; the target is
prescreen ≤ 1.3× Tesseract alone. Needs no database.
"""

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import pytesseract
from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from moderation.prescreen import prescreen  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
VOCABULARY = (
    "the page shows results for your search about travel food music history science weather "
    "news sports books movies prices reviews delivery returns help contact privacy terms "
    "and of to in for with on by from at about more see all new popular today"
)
WORDS = VOCABULARY.split()
SENSITIVE = [
    "Email: maria_lopez@example.com",
    "Phone: +1 (415) 555-2671",
    "Card: 4111 1111 1111 1111",
    "IBAN DE89 3704 0044 0532 0130 00",
    "Ship to 221B Baker Street, London",
    "Hi, Maria   Sign out",
]


def screenshot(seed: int) -> Image.Image:
    rng = random.Random(seed)
    image = Image.new("RGB", (1280, 800), "white")
    draw = ImageDraw.Draw(image)
    title = ImageFont.truetype(FONT, 24)
    body = ImageFont.truetype(FONT, rng.choice((14, 16, 18)))
    draw.text((40, 24), f"Example Site {seed} - Results", font=title, fill="black")
    y = 80
    while y < 740:
        if rng.random() < 0.15:
            line = rng.choice(SENSITIVE)
        else:
            line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + "."
        draw.text((40, y), line, font=body, fill=(20, 20, 20))
        y += body.size + 12
    return image


def tesseract_alone(image: Image.Image) -> float:
    started = time.perf_counter()
    pytesseract.image_to_data(image, output_type=pytesseract.Output.DICT)
    return time.perf_counter() - started


def whole_prescreen(image: Image.Image) -> float:
    started = time.perf_counter()
    prescreen(image, url="https://shop.example.com/account")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=4)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    pages = [screenshot(seed) for seed in range(args.pages)]
    tesseract_alone(pages[0])  # warm-up: pytesseract asks for the version once

    alone, full = [], []
    for _ in range(args.runs):
        for page in pages:
            alone.append(tesseract_alone(page))
            full.append(whole_prescreen(page))
    results = [prescreen(page) for page in pages]

    print(f"pages: {args.pages} × 1280×800, runs: {args.runs}, OMP_THREAD_LIMIT={os.environ['OMP_THREAD_LIMIT']}")
    for number, result in enumerate(results):
        found = ", ".join(sorted({f.kind for f in result.findings})) or "none"
        print(f"page {number}: {result.words} words, pii_risk {result.pii_risk:.2f}, findings: {found}")
    print(f"tesseract alone  median {statistics.median(alone):.3f} s  (min {min(alone):.3f}, max {max(alone):.3f})")
    print(f"prescreen        median {statistics.median(full):.3f} s  (min {min(full):.3f}, max {max(full):.3f})")
    ratio = statistics.median(full) / statistics.median(alone)
    print(f"ratio {ratio:.2f}× (target ≤ 1.30×): {'ok' if ratio <= 1.3 else 'OVER'}")


if __name__ == "__main__":
    main()
