"""The tutorials (one short page of rules and examples per family of work), and how a
qualification test is laid out over pages for one attempt."""

import random

from hits import registry

from .models import Family

TUTORIALS = {
    Family.SCREENS: {"title": "Questions on web screens", "test": "screen-questions"},
    Family.TRACES: {"title": "Questions on browsing traces", "test": "screen-questions"},
    Family.IMAGES: {"title": "Questions on images", "test": "image-questions"},
    Family.TEXT: {"title": "Questions on text snippets", "test": None},
}


def tutorial(family):
    if family not in TUTORIALS:
        return None
    # The kinds of work it prepares for: each kind names its tutorial (``TaskKind.tutorial``).
    kinds = [kind.name for kind in registry.all_kinds() if kind.tutorial == family]
    return {"family": family, "template": f"training/tutorials/{family}.html", "kinds": kinds, **TUTORIALS[family]}


def all_tutorials():
    return [tutorial(family) for family in TUTORIALS]


# --- Taking a qualification test, a few items a page --------------------------------------

ITEMS_PER_PAGE = 3


def item_order(items, *, test, worker, number):
    """``items`` in the order attempt ``number`` shows them: shuffled, the same on every
    page of one attempt, different on a retry."""
    ordered = sorted(items, key=lambda item: item.position)
    random.Random(f"{test.pk}:{worker.pk}:{number}").shuffle(ordered)
    return ordered


def page_count(total):
    return max(1, -(-total // ITEMS_PER_PAGE))


def page_of(ordered, page):
    """The items on ``page`` (1-based) of an attempt, each with its place in the attempt."""
    start = (page - 1) * ITEMS_PER_PAGE
    return list(enumerate(ordered[start : start + ITEMS_PER_PAGE], start=start + 1))


def page_holding(ordered, item_id):
    ids = [str(item.pk) for item in ordered]
    return ids.index(str(item_id)) // ITEMS_PER_PAGE + 1 if str(item_id) in ids else 1


class Draft:
    """A worker's answers to one attempt, kept in their session across its pages until
    they submit: ``{item id: {"flag", "explanation"}}``."""

    def __init__(self, session, *, test, number):
        self.session, self.key = session, f"qualification-draft:{test.pk}:{number}"

    @property
    def answers(self):
        return dict(self.session.get(self.key, {}))

    def keep(self, answers):
        self.session[self.key] = {**self.answers, **answers}

    def clear(self):
        self.session.pop(self.key, None)
