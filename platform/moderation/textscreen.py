"""Personal data in plain text: the pre-screen's detectors over texts that can ship.

A trace step's title, address and link texts, a pool image's title and description, a
question and its answer are text, not pixels, but they can hold the same e-mail address
or phone number a screenshot does. ``text_findings`` runs ``prescreen.find_pii`` over
them line by line (every character read with full confidence), ``url_findings`` over
an address's decoded path, query and fragment, and ``mask`` / ``mask_url`` replace what
was found. Signs about a page ("Sign out", "Hello Jane") are findings too: a reviewer
may want to see them, and masking them costs nothing.

Pure Python, no database: findings are plain ``{"kind", "text"}`` dicts.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, unquote, unquote_plus, urlencode, urlsplit, urlunsplit

from .prescreen import ADDRESSES, PII_WEIGHTS, SIGNED_IN, Box, Line, Word, find_pii

MASK = "[…]"
# Findings that are signs about a page rather than someone's data in its text.
NOT_PERSONAL = {"signed_in", "url"}
_NO_BOX = Box(0, 0, 0, 0)
# The pre-screen's e-mail pattern is loose for OCR (it takes the whole word before the
# "@"); in text the word may be "mailto:jo@…" or "email=jo@…", so the address is cut out.
_STRICT_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# Characters that separate the parts of an address (so "email=jo@…" reads as two words).
_URL_SEPARATORS = re.compile(r"[/?&=#;]+")
# The signs of a signed-in page that name nobody.
_NAMELESS = re.compile(r"(?:sign|log)[ -]?out|my account|welcome back", re.IGNORECASE)


# What each detector needs before it can find anything: an "@" (e-mail), seven digits or
# more (phones, cards, ID numbers), an IBAN's country and check digits, an address's or a
# signed-in greeting's own pattern. A text with none of them (most titles, labels, prices)
# is passed over without building lines: releases screen every text of every record.
# Phones, cards and ID numbers are seven digits or more with at most a few separators
# between two digits (") (", " - ", "/"); in a line, any run of whitespace is one space.
_DIGIT_RUN = re.compile(r"\d(?:(?:[.\-–/()]|\s+){0,3}\d){6}")
_IBAN_START = re.compile(r"[A-Z]{2}\d{2}")


_DIGIT = re.compile(r"\d")


def _one_search(patterns):
    """Patterns joined into one alternation per set of flags: a text is scanned once, not
    once per pattern, to learn whether any of them matches."""
    by_flags = {}
    for pattern in patterns:
        by_flags.setdefault(pattern.flags, []).append(f"(?:{pattern.pattern})")
    return [re.compile("|".join(alternatives), flags) for flags, alternatives in by_flags.items()]


_ANY_ADDRESS = _one_search(ADDRESSES)
_ANY_SIGNED_IN = _one_search([pattern for pattern, _strength in SIGNED_IN])


def _might_be_signed_in(text):
    """Words every signed-in sign needs (``SIGNED_IN``: "sign out", "my account", "welcome
    back" in any case, "Hi"/"Hello"/"Hey" capitalised), found with plain substring tests."""
    if "He" in text or "Hi" in text:
        return True
    lowered = text.lower()
    return "out" in lowered or "account" in lowered or "welcome" in lowered


def might_hold_personal_data(text: str) -> bool:
    """False only when no detector can find anything in ``text``. No test is anchored to
    a text's start or end, so it holds for texts joined by newlines too: when it is False
    for the joined texts it is False for each of them (releases test a record's texts
    joined, once, and screen them one by one only when that says they might hold some)."""
    if "@" in text:
        return True
    # As the detectors read it: words joined by one space (lines too: more, not less, to match).
    text = " ".join(text.split())
    if _DIGIT.search(text) and (
        _DIGIT_RUN.search(text) or _IBAN_START.search(text) or any(p.search(text) for p in _ANY_ADDRESS)
    ):
        return True
    return _might_be_signed_in(text) and any(p.search(text) for p in _ANY_SIGNED_IN)


def text_findings(text: str) -> list[dict]:
    """``[{"kind", "text"}]``: personal data the pre-screen's detectors find in ``text``,
    each ``text`` as it stands in its line; every distinct finding once, in reading order."""
    if not text or not might_hold_personal_data(text):
        return []
    lines = []
    for number, line in enumerate((text or "").splitlines()):
        words = [Word(word, 1.0, _NO_BOX, number, 0, 0) for word in line.split()]
        if words:
            lines.append(Line(words))
    found, seen = [], set()
    for finding in find_pii(lines):
        kind, value = finding.kind, finding.text
        if kind == "email":
            strict = _STRICT_EMAIL.search(value)
            value = strict.group() if strict else value
        if (kind, value) not in seen:
            seen.add((kind, value))
            found.append({"kind": kind, "text": value})
    return found


def url_findings(url: str) -> list[dict]:
    """Personal data in an address: its path, query and fragment decoded, each part read
    as a word of its own (the host is a site's, not a person's)."""
    if not url:
        return []
    parts = urlsplit(url)
    readable = " ".join([unquote(parts.path), unquote_plus(parts.query), unquote(parts.fragment)])
    return text_findings(_URL_SEPARATORS.sub(" ", readable))


def mask(text: str, findings: list[dict], *, marker: str = MASK) -> str:
    """``text`` with every occurrence of every finding's text replaced by ``marker`` (a
    space inside a finding matches any run of whitespace, as the detectors join words
    by one)."""
    if not text:
        return text
    spans = []
    for finding in findings:
        words = finding["text"].split()
        if words:
            pattern = re.compile(r"\s+".join(re.escape(word) for word in words))
            spans += [match.span() for match in pattern.finditer(text)]
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in reversed(merged):
        text = text[:start] + marker + text[end:]
    return text


def mask_url(url: str, findings: list[dict], *, marker: str = MASK) -> str:
    """``url`` with the findings masked in its path segments, query values and fragment,
    each decoded first and encoded again, so the result is still an address."""
    if not url or not findings:
        return url
    parts = urlsplit(url)
    path = "/".join(_masked_part(segment, findings, marker, safe=":@!$'()*+,;=[]") for segment in parts.path.split("/"))
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        masked = [(mask(key, findings, marker=marker), mask(value, findings, marker=marker)) for key, value in pairs]
        if masked != pairs:
            query = urlencode(masked, safe="[]")
    fragment = _masked_part(parts.fragment, findings, marker, safe="/?:@!$&'()*+,;=[]")
    return urlunsplit((parts.scheme, parts.netloc, path, query, fragment))


def _masked_part(part, findings, marker, *, safe):
    """One encoded part of an address, masked; left exactly as it was when nothing is."""
    decoded = unquote(part)
    masked = mask(decoded, findings, marker=marker)
    return part if masked == decoded else quote(masked, safe=safe)


def personal(findings: list[dict]) -> list[dict]:
    """The findings that are someone's data: without the signs about a page ("Sign out",
    "My account", an account page's address); a greeting keeps its name ("Hello Jane")."""
    return [
        finding
        for finding in findings
        if finding["kind"] != "url" and not (finding["kind"] == "signed_in" and _NAMELESS.fullmatch(finding["text"]))
    ]


def risk(findings: list[dict]) -> float:
    """How much these findings should raise an item in the personal-data queue (text is
    read exactly, so every finding counts with its kind's full weight)."""
    return max((PII_WEIGHTS.get(finding["kind"], 0.0) for finding in findings), default=0.0)
