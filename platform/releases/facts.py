"""Facts about a release that only apps above ``releases`` know.

The datasheet reports things the snapshot cannot read itself: how well the validators
agreed, for one, is validation's business, and ``releases`` may not import it. An app
above contributes a fact from its ``AppConfig.ready`` (as ``validation/release_facts.py``
does), and the build asks for all of them once, when it writes the manifest, and keeps
the answers in the release's counts.
"""

from collections.abc import Callable
from typing import Any

_facts: dict[str, Callable[..., Any]] = {}


def add_release_fact(name, compute):
    """``compute(release=)`` returns a JSON-ready value, stored as ``counts[name]``."""
    _facts[name] = compute
    return compute


def collect(*, release):
    """Every contributed fact about ``release``, by name.

    A fact the release already holds (a published one, written again by a rebuild check)
    is kept as it was: facts are read from live tables, and a rebuild must give the same
    bytes whatever happened since."""
    stored = release.counts or {}
    return {
        name: stored[name] if name in stored else compute(release=release) for name, compute in sorted(_facts.items())
    }
