from hits import registry

from .screen_qa import ScreenQAKind, ScreenQASubmission


class MultiScreenSubmission(ScreenQASubmission):
    min_screens, max_screens = 3, 5
    needs_notes = True


@registry.kind
class MultiScreenQA(ScreenQAKind):
    """Three to five screenshots from sites of one category, mostly different sites, and
    a question that needs every one of them."""

    name = "multi_screen_qa"
    family = "webquest"
    negatives = ("category_screens",)
    categorised_as = "reasoning"
    tutorial = "screens"
    title = "Compare pages from several sites"
    summary = "Capture 3–5 pages from different sites of one category and ask a question that needs all of them."
    template_name = "collection/kinds/multi_screen_qa.html"
    split_kind = "multi_screen"
    submission_serializer = MultiScreenSubmission
