"""``rules``: question templates over a page's cleaned text, offline and deterministic.

It follows the order WebVLN gave its model: the price first, then a size (capacity,
size, dimensions, page count), then the material; where a page states neither size nor
material, its colour or whether it is in stock instead; three questions at most. Facts
come from labelled lines ("Price: £39.99", a table row "Capacity 1.7 litres", a label
line followed by its value) and, for the price, from the page's only price. Every answer
is a piece of one line of the page, and every question names the item (its first
heading, else its title without the site's name), so it makes sense on its own. Which
wording a question gets depends on a hash of the page id: the same page always reads
the same, and a run still varies.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from .base import Candidate, Generator, PageInput, register

# A line's label (lower case) -> (kind, aspect); the aspect picks the question's wording.
LABELS = {
    "price": ("price", "price"),
    "our price": ("price", "price"),
    "sale price": ("price", "price"),
    "now": ("price", "price"),
    "cost": ("price", "price"),
    "per night": ("price", "night"),
    "price per night": ("price", "night"),
    "capacity": ("size", "capacity"),
    "volume": ("size", "capacity"),
    "size": ("size", "size"),
    "sizes": ("size", "sizes"),
    "available sizes": ("size", "sizes"),
    "dimensions": ("size", "dimensions"),
    "pages": ("size", "pages"),
    "number of pages": ("size", "pages"),
    "material": ("material", "material"),
    "materials": ("material", "material"),
    "made of": ("material", "material"),
    "made from": ("material", "material"),
    "fabric": ("material", "material"),
    "colour": ("colour", "colour"),
    "color": ("colour", "colour"),
    "colours": ("colour", "colours"),
    "colors": ("colour", "colours"),
    "in stock": ("stock", "in_stock"),
    "availability": ("stock", "availability"),
    "stock": ("stock", "availability"),
}
# A line that is nothing but a stock status.
STOCK_STATUS = re.compile(
    r"(?:in stock|out of stock|sold out|available now|currently unavailable|only \d+ left(?: in stock)?)",
    re.IGNORECASE,
)
PRICE = re.compile(r"(?:[$€£¥]\s?\d[\d,]*(?:\.\d{1,2})?|\d[\d,]*(?:\.\d{1,2})?\s?(?:€|£|EUR|USD|GBP)(?!\w))")
# Lines whose prices are not what the item costs now.
NOT_THE_PRICE = re.compile(r"\b(?:was|rrp|save|off|delivery|shipping|postage|orders? over|from|extra)\b", re.IGNORECASE)
# Where a title's site name starts: "Steel kettle – Demo Kitchen", "Kettle | Shop".
SITE_SUFFIX = re.compile(r"\s+[–—|·-]\s+")
# An answer is a short value, not a sentence.
MAX_ANSWER_WORDS = 8

TEMPLATES = {
    "price": ("What is the price of “{item}”?", "How much does “{item}” cost?", "What does “{item}” cost?"),
    "night": ("How much does a night at “{item}” cost?", "What is the price per night at “{item}”?"),
    "capacity": ("What is the capacity of “{item}”?", "How much does “{item}” hold?"),
    "size": ("What size is “{item}”?", "Which size is “{item}”?"),
    "sizes": ("Which sizes does “{item}” come in?", "What sizes is “{item}” available in?"),
    "dimensions": ("What are the dimensions of “{item}”?", "How big is “{item}”?"),
    "pages": ("How many pages does “{item}” have?", "What is the page count of “{item}”?"),
    "material": ("What is “{item}” made of?", "What material is “{item}” made from?"),
    "colour": ("What colour is “{item}”?", "Which colour is “{item}”?"),
    "colours": ("Which colours does “{item}” come in?", "What colours is “{item}” available in?"),
    "in_stock": ("Is “{item}” in stock?",),
    "availability": ("Is “{item}” in stock?", "What is the stock status of “{item}”?"),
}
# The first kinds asked about, then the ones that stand in for a missing size or material.
FIRST_KINDS = ("price", "size", "material")
STAND_IN_KINDS = ("colour", "stock")


@dataclass(frozen=True)
class Fact:
    kind: str
    aspect: str
    answer: str
    evidence: str


def _labelled(line: str, next_line: str | None) -> Fact | None:
    """A fact from "Label: value", "Label value" (a table row) or a line holding only a
    label whose value is the next line."""
    lowered = line.lower()
    if ":" in line:
        label, value = line.split(":", 1)
        evidence = line
    elif lowered.rstrip(" :") in LABELS and next_line:
        label, value, evidence = line.rstrip(" :"), next_line, next_line
    else:
        label = next((label for label in sorted(LABELS, key=len, reverse=True) if lowered.startswith(label + " ")), "")
        value, evidence = line[len(label) :], line
    kind_aspect = LABELS.get(label.strip().lower())
    value = value.strip()
    if not kind_aspect or not value or len(value.split()) > MAX_ANSWER_WORDS:
        return None
    kind, aspect = kind_aspect
    if kind == "price":
        price = PRICE.search(value)
        if not price:
            return None
        value = price.group()
    return Fact(kind, aspect, value, evidence)


def facts(lines: list[str]) -> list[Fact]:
    """The facts a page states, in page order; the page's only price when no line is
    labelled with one."""
    found = []
    for i, line in enumerate(lines):
        fact = _labelled(line, lines[i + 1] if i + 1 < len(lines) else None)
        if fact:
            found.append(fact)
        elif STOCK_STATUS.fullmatch(line):
            found.append(Fact("stock", "availability", line, line))
    if not any(fact.kind == "price" for fact in found):
        prices = [
            (match.group(), line) for line in lines if not NOT_THE_PRICE.search(line) for match in PRICE.finditer(line)
        ]
        if len({price for price, _line in prices}) == 1:
            found.insert(0, Fact("price", "price", *prices[0]))
    return found


def item_name(page: PageInput) -> str:
    """What the page is about: its first heading, else its title, without a site name."""
    for name in (page.text.heading, page.title, page.text.title):
        name = SITE_SUFFIX.split(name.strip(), 1)[0].strip() if name else ""
        if name:
            return name
    return ""


def choose(page_id: str, aspect: str, options: tuple[str, ...]) -> str:
    """One of ``options``, always the same for the same page and aspect."""
    digest = hashlib.sha256(f"{page_id}\n{aspect}".encode()).digest()
    return options[int.from_bytes(digest[:4], "big") % len(options)]


def _describe_templates() -> str:
    lines = [
        "Up to three questions a page, from labelled lines of its text: the price first, then a size "
        "(capacity, size, dimensions, pages), then the material; colour or stock status when size or "
        "material is missing. Answers are the labelled values, word for word. Questions name the item "
        "(first heading, else title without the site name); the wording is chosen by a hash of the page id.",
        "Templates:",
    ]
    lines += [f"- {aspect}: " + " / ".join(options) for aspect, options in TEMPLATES.items()]
    return "\n".join(lines)


@register
class RulesGenerator(Generator):
    name = "rules"
    version = "1"
    prompt_version = "templates-1"
    prompt = _describe_templates()
    defaults = {}

    def _generate(self, page: PageInput) -> list[Candidate]:
        item = item_name(page)
        if not item:
            return []  # a question that names nothing cannot stand alone
        by_kind: dict[str, Fact] = {}
        for fact in facts(page.text.lines):
            by_kind.setdefault(fact.kind, fact)
        chosen = [by_kind[kind] for kind in FIRST_KINDS if kind in by_kind]
        chosen += [by_kind[kind] for kind in STAND_IN_KINDS if kind in by_kind]
        return [
            Candidate(
                question=choose(page.page_id, fact.aspect, TEMPLATES[fact.aspect]).format(item=item),
                answer=fact.answer,
                evidence=fact.evidence,
                kind=fact.kind,
            )
            for fact in chosen
        ]
