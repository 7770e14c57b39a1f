"""What every QA generator is: a named, versioned way to turn one page into at most three
candidate question–answer pairs, each answer taken word for word from the page.

A generator is a ``Generator`` subclass decorated with ``@register``; ``get(name,
**parameters)`` makes one for a run (an instance holds the run's state: a rate limit, a
budget, the calls it made), ``describe()`` is what a run stores as provenance.
``generate`` raises ``GenerationFailed`` for a page it could not do; the caller records
the reason and goes on with the next page.

Plain Python: the database side (runs, stored candidates, review) lives elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import ClassVar

from config.errors import DomainError

from ..pagetext import PageText

# WebVLN asks for three questions a page: price, sizes, material (colour, stock instead).
MAX_CANDIDATES = 3

# What a question asks about, in the order WebVLN asks them; "other" for anything else.
KIND_WORDS = (
    ("price", r"price|cost|how much (?:is|are|does|do)|per night"),
    ("size", r"capacity|size|dimension|how (?:big|large|tall|wide|long)|pages|hold|volume"),
    ("material", r"material|made (?:of|from)|fabric"),
    ("colour", r"colou?r"),
    ("stock", r"stock|availab"),
)


@dataclass(frozen=True)
class Candidate:
    """One machine-written QA pair; ``evidence`` is the line of page text holding ``answer``."""

    question: str
    answer: str
    evidence: str
    kind: str

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class PageInput:
    """One recorded page to write questions for."""

    page_id: str
    url: str
    title: str
    text: PageText


class GenerationFailed(Exception):
    """A page got no candidates because something went wrong (not because it had none to
    give); ``reason`` says what, for the run's record."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class UnknownGenerator(DomainError):
    status = 400
    code = "unknown_generator"


def question_kind(question: str) -> str:
    """The kind of a question by the words it uses (for questions a model wrote)."""
    lowered = question.lower()
    return next((kind for kind, words in KIND_WORDS if re.search(words, lowered)), "other")


class Generator:
    """A way of writing candidates. Subclasses set ``name``, ``version`` (of the code),
    ``prompt``/``prompt_version`` (what it asks for, in words) and ``defaults`` (every
    parameter it takes, with its default), and implement ``_generate``."""

    name: ClassVar[str] = ""
    version: ClassVar[str] = ""
    prompt: ClassVar[str] = ""
    prompt_version: ClassVar[str] = ""
    defaults: ClassVar[dict] = {}
    # Parameters never shown in ``describe()`` (stored with a run's provenance).
    secret_parameters: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **parameters):
        unknown = sorted(set(parameters) - set(self.defaults))
        if unknown:
            raise ValueError(f"{self.name} takes no parameter {', '.join(unknown)}; it takes {sorted(self.defaults)}.")
        self.parameters = {**self.defaults, **parameters}
        # What the generator asked of outside services, one record a page (none offline).
        self.calls: list[dict] = []

    def generate(self, page: PageInput) -> list[Candidate]:
        """At most ``MAX_CANDIDATES`` candidates for ``page``, each answer found word for word
        in the page's text and its evidence the line it is in. Raises ``GenerationFailed``."""
        if not page.text.lines:
            raise GenerationFailed("The page has no text to ask about.")
        candidates = []
        for candidate in self._generate(page):
            if candidate.answer and candidate.answer in candidate.evidence and candidate.evidence in page.text.lines:
                candidates.append(candidate)
        return candidates[:MAX_CANDIDATES]

    def _generate(self, page: PageInput) -> list[Candidate]:
        raise NotImplementedError

    def describe(self) -> dict:
        """Provenance for a run: which generator, which version, what it was asked, how."""
        parameters = {
            key: ("(set)" if value else "") if key in self.secret_parameters else value
            for key, value in self.parameters.items()
        }
        return {
            "name": self.name,
            "version": self.version,
            "prompt": self.prompt,
            "prompt_version": self.prompt_version,
            "parameters": parameters,
        }


_generators: dict[str, type[Generator]] = {}


def register(cls: type[Generator]) -> type[Generator]:
    """Class decorator: makes ``cls`` available to ``get`` under ``cls.name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name.")
    if cls.name in _generators and _generators[cls.name] is not cls:
        raise ValueError(f"Two generators are named {cls.name!r}.")
    _generators[cls.name] = cls
    return cls


def get(name: str, **parameters) -> Generator:
    """A new generator ``name`` for one run, with ``parameters`` over its defaults."""
    try:
        cls = _generators[name]
    except KeyError:
        raise UnknownGenerator(f"There is no generator named {name!r}; there are {names()}.") from None
    return cls(**parameters)


def names() -> list[str]:
    return sorted(_generators)
