"""The tutorials: one short page of rules and examples per family of work."""

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
