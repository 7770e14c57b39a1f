"""The last check of a release record's texts before they are written to a release file.

Screenshots leave the platform only when a reviewer cleared them; their texts are
screened when they are stored and masked where a reviewer said so. A release checks
again, because detectors improve, texts stored before screening existed are still in
the corpus, and questions and answers are never reviewed for personal data at all:

- every text field of the record goes through the pre-screen's detectors
  (``moderation.textscreen``) and what they find is masked (``[…]``); signs of a
  signed-in page that name nobody ("Sign out", "My account") stay;
- a step whose screenshot is not shipped (uncleared, redacted away or rejected) keeps
  its position, action, boxes and address but loses its title and the texts of its
  target and clickables: nobody checked what the page showed;
- addresses lose their query strings and fragments, which often carry search terms,
  e-mail addresses and session ids, unless their host is one whose queries are the
  content (``Site.keep_query``).

Pure: no database. ``screen_record`` returns a new record and leaves its argument as it was.
A snapshot screens each pool source (a screen, pool image or snippet, which recur across
records as evidence and distractors) once with ``screen_source`` and then only each
record's own texts (``pool_sources=False``), adding the source's counts per use.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from urllib.parse import urlsplit, urlunsplit

from corpus.models import host_of
from moderation import textscreen

# Keys of a step's target or clickable that hold what a visitor reads.
STEP_TEXT_KEYS = ("text", "label", "alt")


def screen_record(
    record: dict, *, keep_query_hosts: Iterable[str] = (), in_place: bool = False, pool_sources: bool = True
) -> tuple[dict, dict[str, int]]:
    """``(record, counts)``: ``record`` (a snapshot record) with personal data masked in
    every text field, the texts of steps without a shipped screenshot dropped, and query
    strings and fragments stripped from addresses whose host is not in
    ``keep_query_hosts``. ``counts`` says how often each change was made:
    ``masked_<kind>`` (``masked_email``, ``masked_phone``, ``masked_address``,
    ``masked_card``, ``masked_iban``, ``masked_ssn``, ``masked_signed_in``) per finding
    masked in a field, ``masked_question_or_answer`` per record whose question, answer,
    keyword answer or answer variants were masked, ``query_removed`` and
    ``fragment_removed`` per address, ``dropped_unreviewed_step_text`` per step that
    lost texts. Changes that did not happen are not in ``counts``. ``in_place`` changes
    ``record`` itself (the snapshot's own, made for this) instead of a copy. Without
    ``pool_sources`` the record's screens, pool images and snippets (as evidence, a step's
    screen or negatives) are left alone: they were screened with ``screen_source``."""
    screen = _Screener(keep_query_hosts)
    record = record if in_place else copy.deepcopy(record)
    # The record's own texts are tested joined, once: most records hold nothing a detector
    # could find, and then none of them is screened alone (pool sources have their cache).
    screen.own_texts_clean = not textscreen.might_hold_personal_data("\n".join(_own_texts(record)))
    before = screen.total_masked()
    for key in ("question", "answer", "keyword_answer"):
        if key in record:
            record[key] = screen.text(record[key])
    for key in ("answer_variants", "reference_answers"):
        if key in record:
            record[key] = [screen.text(value) for value in record[key]]
    if screen.total_masked() > before:
        screen.counts["masked_question_or_answer"] += 1
    if "topic" in record:
        record["topic"] = screen.text(record["topic"])
    for piece in record.get("evidence", ()):
        _piece(screen, piece, pool_sources)
    for step in record.get("steps", ()):
        _step(screen, step, pool_sources)
    negatives = (record.get("negatives") or {}) if pool_sources else {}
    for kind, screen_source_of_kind in SOURCES.items():
        for source in negatives.get(kind, ()):
            screen_source_of_kind(screen, source)
    episode = record.get("episode")
    if episode:
        episode["description"] = screen.text(episode.get("description", ""))
        episode["urls"] = [screen.url(url) for url in episode.get("urls", ())]
    return record, screen.changes()


def screen_source(kind: str, source: dict, *, keep_query_hosts: Iterable[str] = ()) -> dict[str, int]:
    """Screens one pool source in place as ``screen_record`` screens it wherever a record
    holds it: ``kind`` is ``screen``, ``image`` or ``text`` (a snippet). Returns the counts."""
    screen = _Screener(keep_query_hosts)
    SOURCES[kind](screen, source)
    return screen.changes()


def _own_texts(record):
    """The texts of ``record`` that ``screen_record`` screens without its cache (all but
    its pool sources' and addresses), as a list; entries that are not strings are left
    for ``_Screener.text`` to pass over."""
    texts = [record.get(key) for key in ("question", "answer", "keyword_answer", "topic")]
    for key in ("answer_variants", "reference_answers"):
        texts += record.get(key) or ()
    for piece in record.get("evidence", ()):
        texts += (piece.get("note"), piece.get("fact"))
    for step in record.get("steps", ()):
        texts.append(step.get("title"))
        for part in [step.get("target"), *(step.get("clickables") or ())]:
            if isinstance(part, dict):
                texts += (part.get(key) for key in (*STEP_TEXT_KEYS, "selector"))
    texts.append((record.get("episode") or {}).get("description"))
    return [text for text in texts if isinstance(text, str) and text]


@lru_cache(maxsize=100_000)
def _screened_text(value):
    """``(masked text, findings)``: pool texts recur in many records (as distractors), so
    each distinct text is screened once (a bounded cache keeps memory flat)."""
    found = tuple(textscreen.personal(textscreen.text_findings(value)))
    return (textscreen.mask(value, list(found)) if found else value), found


@lru_cache(maxsize=50_000)
def _screened_url(value):
    found = tuple(textscreen.personal(textscreen.url_findings(value)))
    return (textscreen.mask_url(value, list(found)) if found else value), found


class _Screener:
    def __init__(self, keep_query_hosts):
        self.keep_query_hosts = {host_of(host) for host in keep_query_hosts}
        self.counts = Counter()
        # True when the record's own texts, joined, hold nothing a detector could find.
        self.own_texts_clean = False

    def changes(self):
        return {change: n for change, n in self.counts.items() if n}

    def total_masked(self):
        return sum(n for change, n in self.counts.items() if change.startswith("masked_"))

    def text(self, value, *, shared=False):
        """``value`` screened; ``shared`` texts (pool images and snippets, screens' titles)
        recur across records and are looked up in a bounded cache."""
        if not isinstance(value, str) or not value or (self.own_texts_clean and not shared):
            return value
        masked, found = _screened_text(value) if shared else _screened_text.__wrapped__(value)
        self._count(found)
        return masked

    def url(self, value):
        if not isinstance(value, str) or not value:
            return value
        parts = urlsplit(value)
        if (parts.query or parts.fragment) and host_of(value) not in self.keep_query_hosts:
            self.counts["query_removed"] += bool(parts.query)
            self.counts["fragment_removed"] += bool(parts.fragment)
            value = urlunsplit(parts._replace(query="", fragment=""))
        masked, found = _screened_url(value)
        self._count(found)
        return masked

    def _count(self, found):
        for finding in found:
            self.counts[f"masked_{finding['kind']}"] += 1


def _piece(screen, piece, pool_sources=True):
    piece["note"] = screen.text(piece.get("note", ""))
    if pool_sources and piece.get("screen"):
        _screen_source(screen, piece["screen"])
    if pool_sources and piece.get("image"):
        _image_source(screen, piece["image"])
    if pool_sources and piece.get("snippet"):
        _snippet_source(screen, piece["snippet"])
    if "fact" in piece:
        piece["fact"] = screen.text(piece["fact"])
    if "url" in piece:
        piece["url"] = screen.url(piece["url"])


def _screen_source(screen, source):
    source["title"] = screen.text(source.get("title", ""), shared=True)
    source["url"] = screen.url(source.get("url", ""))


def _image_source(screen, source):
    for key in ("title", "description", "topic"):
        if key in source:
            source[key] = screen.text(source[key], shared=True)
    source["url"] = screen.url(source.get("url", ""))


def _snippet_source(screen, source):
    for key in ("title", "text"):
        if key in source:
            source[key] = screen.text(source[key], shared=True)
    source["url"] = screen.url(source.get("url", ""))


SOURCES = {"screen": _screen_source, "image": _image_source, "text": _snippet_source}


def _step(screen, step, pool_sources=True):
    parts = [part for part in [step.get("target"), *(step.get("clickables") or ())] if isinstance(part, dict)]
    if step.get("screen") is None:
        dropped = bool(step.get("title"))
        step["title"] = ""
        for part in parts:
            for key in STEP_TEXT_KEYS:
                if part.get(key):
                    part[key], dropped = "", True
        screen.counts["dropped_unreviewed_step_text"] += dropped
    elif pool_sources:
        _screen_source(screen, step["screen"])
    step["title"] = screen.text(step.get("title", ""))
    step["url"] = screen.url(step.get("url", ""))
    for part in parts:
        for key in (*STEP_TEXT_KEYS, "selector"):
            if key in part:
                part[key] = screen.text(part[key])
        if "href" in part:
            part["href"] = screen.url(part["href"])


def screen_graph(graph: dict, *, keep_query_hosts: Iterable[str] = ()) -> tuple[dict, dict[str, int]]:
    """``(graph, counts)`` for a frozen website graph (``ReleaseGraph.graph``): its pages'
    addresses and titles and its buttons' texts and links screened as ``screen_record``
    screens a record's."""
    screen = _Screener(keep_query_hosts)
    graph = copy.deepcopy(graph)
    for page in graph.get("pages", ()):
        page["url"] = screen.url(page.get("url", ""))
        page["title"] = screen.text(page.get("title", ""))
    for edge in graph.get("edges", ()):
        for key in ("text", "alt"):
            edge[key] = screen.text(edge.get(key, ""))
        edge["href_full"] = screen.url(edge.get("href_full", ""))
    return graph, screen.changes()
