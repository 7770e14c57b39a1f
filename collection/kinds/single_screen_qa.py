from hits import registry

from .screen_qa import ScreenQAKind, ScreenQASubmission


class SingleScreenSubmission(ScreenQASubmission):
    min_screens = max_screens = 1


@registry.kind
class SingleScreenQA(ScreenQAKind):
    """One screenshot of a page from the category's sites, and a question about it that
    needs reasoning (arithmetic, comparison, counting or filtering) to answer."""

    name = "single_screen_qa"
    family = "webquest"
    negatives = ()
    categorised_as = "reasoning"
    tutorial = "screens"
    title = "Capture a page and ask about it"
    summary = "Capture one page from a listed site and write a question that needs reasoning over it."
    template_name = "collection/kinds/single_screen_qa.html"
    split_kind = "single_screen"
    submission_serializer = SingleScreenSubmission
