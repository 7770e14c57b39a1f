"""QA generators: ``get(name, **parameters)`` for a run, ``names()`` for a form's choices.

Importing this package registers every generator in it (see ``base``).
"""

from . import openai_compatible, rules  # noqa: F401  (each registers itself)
from .base import (
    MAX_CANDIDATES,
    Candidate,
    GenerationFailed,
    Generator,
    PageInput,
    UnknownGenerator,
    get,
    names,
    register,
)
from .openai_compatible import BudgetExhausted

__all__ = [
    "MAX_CANDIDATES",
    "BudgetExhausted",
    "Candidate",
    "GenerationFailed",
    "Generator",
    "PageInput",
    "UnknownGenerator",
    "get",
    "names",
    "register",
]
