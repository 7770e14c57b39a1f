"""The text of a recorded page, cleaned for question generation (WebVLN §4.2).

Generators never see raw HTML. ``from_html`` keeps what a visitor reads in the page's
main content — no scripts, styles, hidden elements or navigation chrome — one line per
block, then applies the rule-based cleaning (``clean_lines``). ``from_words`` does the
same cleaning for pages known only from OCR. Images keep their alt text; an image in
the main content (a product picture, most likely) also gets a caption from a
``Captioner``, by default ``NearbyText``; a captioning model can replace it.

``pii_findings`` and ``redact`` run the platform's personal-data detectors
(``moderation.textscreen``) on plain text, and ``redacted`` masks a whole ``PageText``,
so nothing with an e-mail address or a phone number in it goes to an outside model or
into a question unnoticed.

Pure Python, standard library only: no database, no network.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Protocol
from urllib.parse import urljoin

from moderation import textscreen

# Longest cleaned text kept for a page, in characters: a page is a few screens of
# product details, and a generator's prompt has to hold it.
MAX_CHARS = 20_000
# Longest single line: a longer one is a blob (inlined data, a wall of keywords).
MAX_LINE_CHARS = 1_000

# Elements whose content is never text a visitor reads.
SKIPPED_TAGS = {"script", "style", "noscript", "template", "svg", "math", "head", "iframe", "object", "canvas"}
# Navigation chrome: site-wide menus, banners, footers and side bars.
CHROME_TAGS = {"nav", "aside"}
CHROME_ROLES = {"navigation", "banner", "contentinfo", "complementary"}
# A header or footer is the site's chrome only outside these (inside, it is the article's own).
SECTIONING = {"article", "main", "section", "aside", "nav"}
MAIN_TAGS = {"main", "article"}
# Elements that start a new line of text.
BLOCK_TAGS = {
    "address", "article", "blockquote", "br", "button", "caption", "dd", "details", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "legend", "li", "main", "ol", "option", "p", "pre", "section", "summary", "table", "tbody",
    "td", "tfoot", "th", "thead", "tr", "ul",
}  # fmt: skip
# Table cells stay on their row's line ("Capacity 1.7 litres"), a space apart.
CELL_TAGS = {"td", "th"}
VOID_TAGS = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
}  # fmt: skip
HEADINGS = ("h1", "h2", "h3")

INVISIBLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
SPACES = re.compile(r"\s+")
WORD_PUNCTUATION = "()[]{}<>\"'“”‘’«».,;:!?*|•·…"
# Leftover code: CSS or JS rules, markup that was escaped into the text.
CODE = re.compile(r"\{[^}]*[:;=][^}]*\}|\bfunction\s*\(|=>|</?[a-z][a-z0-9]*(?:\s[^<>]*)?/?>", re.IGNORECASE)


@dataclass
class PageText:
    """A page as generators see it: cleaned ``lines`` of text, the cleaned word list, the
    images (``{"alt", "caption", "src"}``; ``line`` is the index of the text line nearest
    the image, ``caption`` is empty for images outside the main content), the ``title``
    and the first heading."""

    lines: list[str]
    words: list[str]
    images: list[dict] = field(default_factory=list)
    title: str = ""
    heading: str = ""

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def captions(self) -> list[str]:
        return [image["caption"] for image in self.images if image["caption"]]


class Captioner(Protocol):
    """Describes one image of a page in a short phrase (WebVLN used BLIP-2 for this)."""

    def caption(self, image: dict, page: PageText) -> str: ...


class NearbyText:
    """The image's alt text, else the text line nearest it (the first line after it, or the
    last line before it when none follows)."""

    def caption(self, image: dict, page: PageText) -> str:
        if image["alt"]:
            return image["alt"]
        line = image.get("line")
        return page.lines[line] if line is not None and 0 <= line < len(page.lines) else ""


# --- Cleaning ------------------------------------------------------------------------


def clean_line(line: str) -> str:
    """One line with its whitespace collapsed; empty when nothing worth keeping is left
    (only punctuation and symbols, or leftover code)."""
    line = SPACES.sub(" ", ZERO_WIDTH.sub("", line)).strip()
    if not any(char.isalnum() for char in line) or CODE.search(line):
        return ""
    return line[:MAX_LINE_CHARS].rsplit(" ", 1)[0] if len(line) > MAX_LINE_CHARS else line


def clean_lines(raw: list[str], *, max_chars: int = MAX_CHARS) -> tuple[list[str], list[int | None]]:
    """The rule-based cleaning: every line through ``clean_line``, exact repeats after the
    first dropped (menus and badges repeat), and no more than ``max_chars`` characters in
    all. Returns the lines and, for each raw line, the index of the kept line it became
    (None when it was dropped)."""
    lines, where, seen, total = [], [], {}, 0
    for line in raw:
        line = clean_line(line)
        if not line:
            where.append(None)
        elif line in seen:
            where.append(seen[line])
        elif total + len(line) > max_chars:
            where.append(None)
            total = max_chars  # keep the page's order: nothing after the cut
        else:
            seen[line] = len(lines)
            where.append(len(lines))
            lines.append(line)
            total += len(line) + 1
    return lines, where


def word_list(lines: list[str]) -> list[str]:
    """The words of the lines in reading order, without the punctuation around them
    ("(212" is "212"; currency signs stay) and without tokens that hold no letter or digit."""
    words = (word.strip(WORD_PUNCTUATION) for line in lines for word in line.split(" "))
    return [word for word in words if any(char.isalnum() for char in word)]


# --- HTML ----------------------------------------------------------------------------


@dataclass
class _Open:
    tag: str
    skipped: bool  # this element or one around it is not shown
    main: bool  # inside the page's main content
    sectioned: bool  # inside a sectioning element (for header/footer)


class _Reader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[_Open] = []
        self.raw: list[str] = []
        self.current: list[str] = []
        self.images: list[dict] = []
        self.title: list[str] = []
        self.in_title = False
        self.headings: dict[str, str] = {}
        self.heading: tuple[str, list[str]] | None = None
        self.has_main = False

    @property
    def top(self) -> _Open:
        return self.stack[-1] if self.stack else _Open("", False, False, False)

    def flush(self):
        if self.current:
            self.raw.append("".join(self.current))
            self.current = []

    def handle_starttag(self, tag, attrs):
        attrs = {name: value or "" for name, value in attrs}
        parent = self.top
        if tag == "title" and not self.title and not any(open_.tag == "svg" for open_ in self.stack):
            self.in_title = True
        skipped = parent.skipped or self._hidden(tag, attrs, parent)
        main = parent.main or tag in MAIN_TAGS or attrs.get("role") == "main"
        self.has_main = self.has_main or (main and not skipped)
        if tag in BLOCK_TAGS and not skipped:
            if tag in CELL_TAGS:
                self.current.append(" ")
            else:
                self.flush()
        if tag == "img":
            if not skipped:
                self._image(attrs, main)
            return
        if tag in HEADINGS and not skipped and tag not in self.headings:
            self.heading = (tag, [])
        if tag not in VOID_TAGS:
            self.stack.append(_Open(tag, skipped, main, parent.sectioned or tag in SECTIONING))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        # Close the element and any left open inside it (<p>, <li> often are).
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                break
        else:
            return
        if self.heading and self.heading[0] == tag:
            self.headings[tag] = clean_line("".join(self.heading[1]))
            self.heading = None
        if tag in BLOCK_TAGS and tag not in CELL_TAGS and not self.top.skipped:
            self.flush()

    def handle_data(self, data):
        if self.in_title:
            self.title.append(data)
        if self.top.skipped:
            return
        self.current.append(data)
        if self.heading:
            self.heading[1].append(data)

    def _hidden(self, tag, attrs, parent) -> bool:
        if tag in SKIPPED_TAGS or tag in CHROME_TAGS or "hidden" in attrs:
            return True
        if attrs.get("aria-hidden", "").lower() == "true" or INVISIBLE.search(attrs.get("style", "")):
            return True
        if attrs.get("role", "").lower() in CHROME_ROLES:
            return True
        if tag == "input" and attrs.get("type", "").lower() == "hidden":
            return True
        return tag in ("header", "footer") and not parent.sectioned

    def _image(self, attrs, main):
        src = attrs.get("src") or attrs.get("data-src", "")
        if src or attrs.get("alt"):
            alt = clean_line(attrs.get("alt", ""))
            # The line being read (or the next one) is the one the image sits in or before.
            self.images.append({"alt": alt, "caption": "", "src": src, "line": len(self.raw), "main": main})


def from_html(html: str, *, url: str = "", captioner: Captioner | None = None, max_chars: int = MAX_CHARS) -> PageText:
    """The visible, cleaned text of an HTML page. ``url`` (the page's address) makes image
    sources absolute. Images in ``<main>``/``<article>`` — or anywhere outside the chrome
    on a page without them — are the product pictures that get a caption."""
    reader = _Reader()
    reader.feed(html)
    reader.close()
    reader.flush()
    lines, where = clean_lines(reader.raw, max_chars=max_chars)
    page = PageText(
        lines=lines,
        words=word_list(lines),
        title=clean_line("".join(reader.title)),
        heading=next((reader.headings[tag] for tag in HEADINGS if reader.headings.get(tag)), ""),
    )
    captioner = captioner or NearbyText()
    for found in reader.images:
        image = {"alt": found["alt"], "caption": "", "src": urljoin(url, found["src"]) if url else found["src"]}
        image["line"] = _nearest(where, found["line"])
        page.images.append(image)
        if found["main"] or not reader.has_main:
            image["caption"] = clean_line(captioner.caption(image, page))
    return page


def _nearest(where: list[int | None], raw_index: int) -> int | None:
    """The kept line at or after ``raw_index``, else the last kept line before it."""
    after = next((line for line in where[raw_index:] if line is not None), None)
    return (
        after if after is not None else next((line for line in reversed(where[:raw_index]) if line is not None), None)
    )


def from_words(lines: list[str], *, title: str = "", max_chars: int = MAX_CHARS) -> PageText:
    """A page known only as lines of text (OCR of a screenshot), cleaned the same way."""
    cleaned, _where = clean_lines(lines, max_chars=max_chars)
    return PageText(lines=cleaned, words=word_list(cleaned), title=clean_line(title))


# --- Personal data -------------------------------------------------------------------

# Findings that are signs about a page, not someone's data in its text ("Sign out").
NOT_PERSONAL = textscreen.NOT_PERSONAL


def pii_findings(text: str) -> list[dict]:
    """``[{"kind", "text"}]``: personal data ``moderation.prescreen`` finds in ``text``
    (e-mail addresses, phone numbers, cards, IBANs, street addresses, signs of a
    signed-in page), line by line, each ``text`` as it stands in its line."""
    return textscreen.text_findings(text)


def redact(text: str, findings: list[dict], *, mask: str = "[…]") -> str:
    """``text`` with every occurrence of every finding's text replaced by ``mask``."""
    return textscreen.mask(text, findings, marker=mask)


def redacted(page: PageText) -> PageText:
    """``page`` with the personal data in its lines, title, heading and image texts masked
    (signs of a signed-in page are left: they are nobody's data). Lines keep their places,
    so images still point at their nearest line."""
    parts = [page.title, page.heading, *page.lines]
    parts += [image[key] for image in page.images for key in ("alt", "caption")]
    findings = [found for found in pii_findings("\n".join(parts)) if found["kind"] not in NOT_PERSONAL]
    if not findings:
        return page
    lines = [redact(line, findings) for line in page.lines]
    return PageText(
        lines=lines,
        words=word_list(lines),
        images=[
            {**image, "alt": redact(image["alt"], findings), "caption": redact(image["caption"], findings)}
            for image in page.images
        ],  # fmt: skip
        title=redact(page.title, findings),
        heading=redact(page.heading, findings),
    )
