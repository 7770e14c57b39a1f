"""The tutorials: one short page of rules and examples per family of work."""

from .models import Family

TUTORIALS = {
    Family.SCREENS: {
        "title": "Questions on web screens",
        "kinds": ["single_screen_qa", "multi_screen_qa"],
        "test": "screen-questions",
    },
    Family.TRACES: {"title": "Questions on browsing traces", "kinds": ["trace_qa"], "test": "screen-questions"},
    Family.IMAGES: {
        "title": "Questions on images",
        "kinds": ["image_filter", "six_image_qa"],
        "test": "image-questions",
    },
    Family.TEXT: {"title": "Questions on text snippets", "kinds": ["text_multihop_qa"], "test": None},
}


def tutorial(family):
    if family not in TUTORIALS:
        return None
    return {"family": family, "template": f"training/tutorials/{family}.html", **TUTORIALS[family]}


def all_tutorials():
    return [tutorial(family) for family in TUTORIALS]
