"""Automatic pre-screen of uploaded screenshots for personal data and unsafe content.

Reads the words on a screenshot with Tesseract (keeping each word's box), runs plain
regex and keyword detectors over the lines of text, and applies rules to the page URL.
Any stored image can be read: a tall page is read in overlapping bands and a wide or
huge one scaled down first (``ocr_bands``), so Tesseract never gets a side it refuses;
every box is in the original image's pixels.
Each finding carries the box a redaction must cover; ``prescreen()`` also returns two
risk scores that order the PII and safety review queues (highest first).

Pure Python, no database: results are dataclasses with ``to_json()`` for a JSONField.
"""

from __future__ import annotations

import io
import math
import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple
from urllib.parse import SplitResult, urlsplit

import pytesseract
from PIL import Image

# Weight of each kind in the queue's risk score: how bad a miss would be.
PII_WEIGHTS = {
    "card": 1.0,
    "ssn": 1.0,
    "iban": 0.95,
    "email": 0.8,
    "phone": 0.7,
    "address": 0.6,
    "signed_in": 0.5,
    "url": 0.5,
}
SAFETY_WEIGHTS = {
    "blocked_domain": 1.0,
    "adult": 0.9,
    "self_harm": 0.9,
    "violence": 0.8,
}

# The list a new install starts with (a data migration copies it into ``BlockedDomain``,
# which admins edit): widely known adult, gambling and gore sites. A page on one of them,
# or a screenshot showing one's address, goes to the safety queue first.
DEFAULT_BLOCKED_DOMAINS = (
    "pornhub.com",
    "xvideos.com",
    "xnxx.com",
    "xhamster.com",
    "redtube.com",
    "youporn.com",
    "spankbang.com",
    "chaturbate.com",
    "onlyfans.com",
    "livejasmin.com",
    "stripchat.com",
    "bongacams.com",
    "brazzers.com",
    "rule34.xxx",
    "e-hentai.org",
    "nhentai.net",
    "bet365.com",
    "williamhill.com",
    "888casino.com",
    "pokerstars.com",
    "draftkings.com",
    "fanduel.com",
    "stake.com",
    "betway.com",
    "bovada.lv",
    "bestgore.fun",
    "kaotic.com",
    "theync.com",
)
# Short and mild on purpose: they rank pages for a human, they do not decide.
SAFETY_KEYWORDS = {
    "adult": ("porn", "xxx", "nsfw", "adults only", "explicit content", "nude"),
    "violence": ("gore", "graphic violence", "massacre", "beheading"),
    "self_harm": ("suicide", "self-harm", "self harm", "kill myself", "end my life"),
}

WEBMAIL_HOSTS = {
    "mail.google.com",
    "outlook.live.com",
    "outlook.office.com",
    "outlook.office365.com",
    "mail.yahoo.com",
    "mail.proton.me",
    "mail.aol.com",
    "mail.zoho.com",
}
ACCOUNT_PATH_SEGMENTS = {
    "account",
    "accounts",
    "my-account",
    "myaccount",
    "settings",
    "profile",
    "orders",
    "checkout",
    "billing",
}


class Box(NamedTuple):
    """A rectangle in image pixels."""

    left: int
    top: int
    width: int
    height: int

    @property
    def right(self) -> int:
        return self.left + self.width

    @property
    def bottom(self) -> int:
        return self.top + self.height

    def union(self, other: Box) -> Box:
        left, top = min(self.left, other.left), min(self.top, other.top)
        right, bottom = max(self.right, other.right), max(self.bottom, other.bottom)
        return Box(left, top, right - left, bottom - top)

    def to_json(self) -> dict:
        return {"left": self.left, "top": self.top, "width": self.width, "height": self.height}


@dataclass(frozen=True)
class Word:
    """One word Tesseract read; ``confidence`` is 0–1; block/par/line say which line it is on."""

    text: str
    confidence: float
    box: Box
    block: int
    par: int
    line: int


@dataclass
class Line:
    """Words Tesseract put on one line, joined by single spaces so phrases match across words."""

    words: list[Word]
    text: str = field(init=False)
    _spans: list[tuple[int, int]] = field(init=False, repr=False)

    def __post_init__(self):
        self._spans, start = [], 0
        for word in self.words:
            self._spans.append((start, start + len(word.text)))
            start += len(word.text) + 1
        self.text = " ".join(word.text for word in self.words)

    def words_in(self, start: int, end: int) -> list[Word]:
        """The words a character range of ``text`` touches (whole words, for redaction)."""
        return [word for word, (a, b) in zip(self.words, self._spans, strict=True) if a < end and b > start]


@dataclass
class Finding:
    """Something a reviewer should look at. ``box`` is None for URL rules (nothing on screen)."""

    kind: str
    text: str
    box: Box | None
    confidence: float

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "text": self.text,
            "box": self.box.to_json() if self.box else None,
            "confidence": round(self.confidence, 3),
        }


@dataclass
class Result:
    """What the pre-screen found on one screenshot; the risks (0–1) order the review queues."""

    findings: list[Finding]
    pii_risk: float
    safety_risk: float
    words: int
    seconds: float

    def to_json(self) -> dict:
        return {
            "findings": [finding.to_json() for finding in self.findings],
            "pii_risk": round(self.pii_risk, 3),
            "safety_risk": round(self.safety_risk, 3),
            "words": self.words,
            "seconds": round(self.seconds, 3),
        }


# --- OCR ---------------------------------------------------------------------------


# Tesseract refuses a side over 32,767 pixels ("Image too large") and Leptonica a PNG
# taller than it reads ("Invalid IHDR data"); OCR time grows with the area. A page is
# therefore read in bands at most OCR_BAND_HEIGHT tall that overlap by OCR_BAND_OVERLAP,
# so a line cut at one band's edge is whole in the next; an image wider than
# OCR_MAX_WIDTH, or too tall for OCR_MAX_BANDS bands, is scaled down first.
OCR_MAX_WIDTH = 4096
OCR_BAND_HEIGHT = 4096
OCR_BAND_OVERLAP = 200
OCR_MAX_BANDS = 40
# Below this (after scaling) no side can hold a line of text: nothing is read.
OCR_MIN_SIDE = 8


class Band(NamedTuple):
    """Rows ``top``–``bottom`` of the original image, read at ``scale``; its words are the
    ones whose middle lies in ``owned_top``–``owned_bottom`` (its share of the overlaps)."""

    top: int
    bottom: int
    owned_top: float
    owned_bottom: float
    scale: float


def ocr_bands(width: int, height: int) -> list[Band]:
    """How an image of ``width``×``height`` is cut and scaled for OCR: once scaled, no band
    is wider than ``OCR_MAX_WIDTH`` or (give or take a row) taller than ``OCR_BAND_HEIGHT``,
    and there are at most ``OCR_MAX_BANDS``. None when no text could fit."""
    scale = min(1.0, OCR_MAX_WIDTH / width)
    most_rows = OCR_MAX_BANDS * (OCR_BAND_HEIGHT - OCR_BAND_OVERLAP) + OCR_BAND_OVERLAP
    scale = min(scale, most_rows / height)
    if min(width, height) * scale < OCR_MIN_SIDE:
        return []
    overlap = OCR_BAND_OVERLAP / scale  # in original rows
    if height * scale <= OCR_BAND_HEIGHT:
        return [Band(0, height, 0, height, scale)]
    count = math.ceil((height - overlap) / (OCR_BAND_HEIGHT / scale - overlap))
    step = (height - overlap) / count
    bands = []
    for i in range(count):
        top, bottom = round(i * step), min(height, math.ceil(i * step + step + overlap))
        owned_top = 0 if i == 0 else i * step + overlap / 2
        owned_bottom = height if i == count - 1 else (i + 1) * step + overlap / 2
        bands.append(Band(top, bottom, owned_top, owned_bottom, scale))
    return bands


def read_words(image: Image.Image | bytes) -> list[Word]:
    """The words on ``image`` (a PIL image or encoded image bytes), in reading order, with
    their boxes in ``image``'s pixels."""
    if isinstance(image, bytes | bytearray | memoryview):
        image = Image.open(io.BytesIO(bytes(image)))
    # Tesseract's OpenMP threads fight each other on small machines: 3–4× slower without this.
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    words = []
    for number, band in enumerate(ocr_bands(*image.size)):
        words += _read_band(image, band, number)
    return words


def _read_band(image: Image.Image, band: Band, number: int) -> list[Word]:
    part = (
        image if (band.top, band.bottom) == (0, image.height) else image.crop((0, band.top, image.width, band.bottom))
    )
    if part.mode not in ("RGB", "L"):
        part = part.convert("RGB")
    size = (max(1, round(part.width * band.scale)), max(1, round(part.height * band.scale)))
    if size != part.size:
        part = part.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0)
    x_factor, y_factor = image.width / part.width, (band.bottom - band.top) / part.height
    data = pytesseract.image_to_data(part, output_type=pytesseract.Output.DICT)
    words = []
    for i, text in enumerate(data["text"]):
        text = str(text).strip()
        confidence = float(data["conf"][i])
        if not text or confidence < 0:
            continue
        left, top = int(data["left"][i]) * x_factor, band.top + int(data["top"][i]) * y_factor
        right = left + int(data["width"][i]) * x_factor
        bottom = top + int(data["height"][i]) * y_factor
        if not band.owned_top <= (top + bottom) / 2 < band.owned_bottom:
            continue  # read whole by the band next to this one
        # Rounded outwards: a redaction covers the whole word.
        box_left, box_top = math.floor(left), math.floor(top)
        box = Box(
            box_left,
            box_top,
            min(image.width, math.ceil(right)) - box_left,
            min(image.height, math.ceil(bottom)) - box_top,
        )
        # Block numbers restart in every band; lines of different bands must stay apart.
        block = number * 100_000 + int(data["block_num"][i])
        words.append(Word(text, confidence / 100, box, block, int(data["par_num"][i]), int(data["line_num"][i])))
    return words


def group_lines(words: Iterable[Word]) -> list[Line]:
    lines: dict[tuple[int, int, int], list[Word]] = {}
    for word in words:
        lines.setdefault((word.block, word.par, word.line), []).append(word)
    return [Line(line_words) for line_words in lines.values()]


def _finding(kind: str, line: Line, start: int, end: int, strength: float = 1.0) -> Finding:
    words = line.words_in(start, end)
    box = words[0].box
    for word in words[1:]:
        box = box.union(word.box)
    confidence = sum(word.confidence for word in words) / len(words)
    return Finding(kind, line.text[start:end], box, confidence * strength)


def _overlaps(start: int, end: int, taken: list[tuple[int, int]]) -> bool:
    return any(start < b and end > a for a, b in taken)


# --- PII in text -------------------------------------------------------------------

# Loose: OCR sometimes loses the characters before an underscore, so the local part may be short.
EMAIL = re.compile(r"[^\s@]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
DIGIT_RUN = re.compile(r"(?<![\w.,])\d+(?:[ -]\d+)*(?![\w])")
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,8}\b")
SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}[-–](?!00)\d{2}[-–](?!0000)\d{4}(?![\d-])")


def _phone(pattern: str) -> re.Pattern:
    # A phone number is a whole run of digit groups, never the tail of a longer one (an IBAN's).
    return re.compile(rf"(?<!\d[ .-]){pattern}(?![ .-]?\d)")


PHONES = (
    # +44 20 7946 0958, 0049 30 1234567, +1 (415) 555-2671
    (_phone(r"(?<![\w+])(?:\+|00)\d{1,3}(?:[ .-]?\(?\d{1,5}\)?){2,6}(?!\w)"), 0.95),
    # (415) 555-2671, 415-555-2671, 415.555.2671
    (_phone(r"(?<![\w(])(?:1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}(?!\w)"), 0.9),
    # 030 12345678, 06 12 34 56 78, 020 7946 0958, 0171/1234567
    (_phone(r"(?<![\w.,])0\d{1,4}(?:[ /-]?\d{2,8}){1,4}(?![\w.,])"), 0.8),
)
DATE = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{2,4}")
PRICE_BEFORE = re.compile(r"[$€£¥] ?$")
PRICE_AFTER = re.compile(r" ?(?:[$€£¥]|USD\b|EUR\b|GBP\b)")
STREET_WORDS = "Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Boulevard|Blvd|Drive|Dr|Way|Court|Ct|Place|Pl|Terrace|Parkway|Pkwy"
ADDRESSES = (
    # 221B Baker Street, 1600 Pennsylvania Avenue NW, 42 W 5th St.
    re.compile(rf"\b\d{{1,5}}[A-Za-z]?,? (?:(?:[A-Z][\w'’.-]*|\d+(?:st|nd|rd|th)) ){{1,4}}(?:{STREET_WORDS})\b\.?"),
    # 12 rue de Rivoli
    re.compile(r"\b\d{1,4}(?: ?(?:bis|ter))?,? [Rr]ue (?:\S+ ){0,3}?[A-ZÀ-Ý][\w'’-]+"),
    # Hauptstraße 5, Goethestr. 12a
    re.compile(r"\b[A-ZÄÖÜ][\wäöüß-]*(?:straße|strasse|str\.|Straße|Strasse) \d{1,4}[a-z]?\b"),
)
SIGNED_IN = (
    (re.compile(r"\b(?:sign|log)[ -]?out\b", re.IGNORECASE), 1.0),
    (re.compile(r"\bmy account\b", re.IGNORECASE), 0.8),
    (re.compile(r"\bwelcome back\b", re.IGNORECASE), 0.8),
    (re.compile(r"\b(?:Hi|Hello|Hey),? [A-Z][a-z]+\b"), 0.7),
)


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, char in enumerate(reversed(digits)):
        n = int(char)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def iban_valid(iban: str) -> bool:
    iban = iban.replace(" ", "").upper()
    if not 15 <= len(iban) <= 34 or not iban[2:4].isdigit():
        return False
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def card_spans(text: str) -> list[tuple[int, int]]:
    """13–19 digits, in groups separated by spaces or dashes, that pass the Luhn check.

    Tries every run of consecutive groups (longest first), so a card next to other
    numbers on the line (an expiry, a CVV) is still found and a mistyped one is not.
    """
    spans = []
    for run in DIGIT_RUN.finditer(text):
        groups = [(m.start() + run.start(), m.end() + run.start()) for m in re.finditer(r"\d+", run.group())]
        i = 0
        while i < len(groups):
            for j in range(len(groups), i, -1):
                start, end = groups[i][0], groups[j - 1][1]
                digits = re.sub(r"\D", "", text[start:end])
                if 13 <= len(digits) <= 19 and digits[0] != "0" and luhn_valid(digits):
                    spans.append((start, end))
                    i = j - 1
                    break
            i += 1
    return spans


def iban_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for match in IBAN.finditer(text):
        # The regex may take in the next word too: drop words from the end until it checks.
        words = match.group().split(" ")
        for n in range(len(words), 0, -1):
            candidate = " ".join(words[:n])
            if iban_valid(candidate):
                spans.append((match.start(), match.start() + len(candidate)))
                break
    return spans


def find_emails(line: Line) -> list[Finding]:
    findings = []
    for match in EMAIL.finditer(line.text):
        local = match.group().split("@", 1)[0]
        findings.append(_finding("email", line, match.start(), match.end(), 1.0 if local else 0.8))
    return findings


def find_phones(line: Line, taken: list[tuple[int, int]]) -> list[Finding]:
    """At least 7 digits in a phone-like layout; skips dates, prices and numbers
    already claimed by another detector (a card, an IBAN, an SSN)."""
    findings, taken = [], list(taken)
    for pattern, strength in PHONES:
        for match in pattern.finditer(line.text):
            start, end = match.span()
            digits = re.sub(r"\D", "", match.group())
            if not 7 <= len(digits) <= 15 or _overlaps(start, end, taken) or DATE.fullmatch(match.group()):
                continue
            if PRICE_BEFORE.search(line.text[:start]) or PRICE_AFTER.match(line.text[end:]):
                continue
            taken.append((start, end))
            findings.append(_finding("phone", line, start, end, strength))
    return findings


def find_addresses(line: Line) -> list[Finding]:
    return [_finding("address", line, *m.span(), 0.8) for pattern in ADDRESSES for m in pattern.finditer(line.text)]


def find_signed_in(line: Line) -> list[Finding]:
    return [
        _finding("signed_in", line, *m.span(), strength)
        for pattern, strength in SIGNED_IN
        for m in pattern.finditer(line.text)
    ]


def find_pii(lines: Iterable[Line]) -> list[Finding]:
    findings = []
    for line in lines:
        numbers = {
            "card": card_spans(line.text),
            "iban": iban_spans(line.text),
            "ssn": [m.span() for m in SSN.finditer(line.text)],
        }
        taken = [span for spans in numbers.values() for span in spans]
        findings += [_finding(kind, line, *span) for kind, spans in numbers.items() for span in spans]
        findings += find_emails(line)
        findings += find_phones(line, taken)
        findings += find_addresses(line)
        findings += find_signed_in(line)
    return findings


# --- PII in the URL ----------------------------------------------------------------


def _split(url: str) -> SplitResult:
    # "example.com/account" (no scheme) is a host and a path, not a relative path.
    return urlsplit(url if "//" in url else f"//{url}")


def _host(url: str) -> str:
    return (_split(url).hostname or "").lower() if url else ""


def find_url_rules(url: str) -> list[Finding]:
    """Pages that are likely someone's own: webmail, online banking, account pages."""
    if not url:
        return []
    host, path = _host(url), _split(url).path
    findings = []
    if host in WEBMAIL_HOSTS or host.startswith("webmail."):
        findings.append(Finding("url", host, None, 1.0))
    elif "bank" in host:
        findings.append(Finding("url", host, None, 0.9))
    segments = {segment.lower() for segment in path.split("/") if segment}
    findings += [Finding("url", f"/{segment}", None, 0.8) for segment in sorted(segments & ACCOUNT_PATH_SEGMENTS)]
    return findings


# --- Safety ------------------------------------------------------------------------


def _is_blocked(host: str, blocked_domains: Iterable[str]) -> bool:
    host = host.lower().rstrip(".")
    return any(host == domain or host.endswith("." + domain) for domain in blocked_domains)


def find_unsafe_url(url: str, blocked_domains: Iterable[str] = DEFAULT_BLOCKED_DOMAINS) -> list[Finding]:
    host = _host(url)
    return [Finding("blocked_domain", host, None, 1.0)] if host and _is_blocked(host, blocked_domains) else []


def _keyword_pattern(keywords: Iterable[str]) -> re.Pattern:
    alternatives = "|".join(re.escape(k).replace(r"\ ", r"[ -]") for k in sorted(keywords, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


KEYWORD_PATTERNS = {category: _keyword_pattern(words) for category, words in SAFETY_KEYWORDS.items()}


def find_unsafe_text(lines: Iterable[Line], blocked_domains: Iterable[str] = DEFAULT_BLOCKED_DOMAINS) -> list[Finding]:
    """Safety keywords on screen, and blocked domains written on the page."""
    blocked_domains = tuple(blocked_domains)
    findings = []
    for line in lines:
        for category, pattern in KEYWORD_PATTERNS.items():
            findings += [_finding(category, line, m.start(), m.end(), 0.8) for m in pattern.finditer(line.text)]
        for match in re.finditer(r"[\w.-]+\.[a-z]{2,}", line.text, re.IGNORECASE):
            if _is_blocked(match.group(), blocked_domains):
                findings.append(_finding("blocked_domain", line, match.start(), match.end(), 0.9))
    return findings


# --- Putting it together -----------------------------------------------------------


def _risk(findings: list[Finding], weights: dict[str, float]) -> float:
    return max((weights[f.kind] * f.confidence for f in findings if f.kind in weights), default=0.0)


def prescreen(
    image: Image.Image | bytes,
    *,
    url: str = "",
    blocked_domains: Iterable[str] = DEFAULT_BLOCKED_DOMAINS,
) -> Result:
    """OCR ``image`` and run every detector; ``url`` is the page the screenshot shows."""
    started = time.perf_counter()
    blocked_domains = tuple(blocked_domains)
    words = read_words(image)
    lines = group_lines(words)
    findings = find_pii(lines) + find_url_rules(url) + find_unsafe_text(lines, blocked_domains)
    findings += find_unsafe_url(url, blocked_domains)
    return Result(
        findings=findings,
        pii_risk=_risk(findings, PII_WEIGHTS),
        safety_risk=_risk(findings, SAFETY_WEIGHTS),
        words=len(words),
        seconds=time.perf_counter() - started,
    )
