"""Reads of the dataset's records that more than one app makes: a pair's evidence as pages
show it, what a submission wrote, and which records let a worker see an asset."""

from django.db.models import BigIntegerField
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from .models import Evidence, ImageSource, QAPair, TraceStep


def evidence_of(qa_pair):
    """The pair's evidence in order, each as what the page shows: a screenshot, a pool
    image with its title and description, a snippet, or a researched fact."""
    rows = Evidence.objects.filter(qa_pair=qa_pair).select_related("screen", "image", "snippet", "step")
    shown = []
    for piece in rows.order_by("position"):
        if piece.screen_id:
            shown.append({"kind": "screen", "asset_id": piece.screen.asset_id, "title": piece.screen.title,
                          "url": piece.screen.url, "note": piece.note})  # fmt: skip
        elif piece.image_id:
            shown.append({"kind": "image", "asset_id": piece.image.asset_id, "title": piece.image.title,
                          "text": piece.image.description, "note": piece.note})  # fmt: skip
        elif piece.snippet_id:
            shown.append({"kind": "snippet", "title": piece.snippet.title, "text": piece.snippet.text,
                          "url": piece.snippet.url, "note": piece.note})  # fmt: skip
        else:
            shown.append({"kind": "fact", "text": piece.fact, "url": piece.url, "note": piece.note})
    return shown


def summary_of(assignment):
    """The QA pairs an assignment wrote, with their evidence, as spot checks show them."""
    summary = []
    for pair in QAPair.objects.filter(assignment=assignment).order_by("id"):
        shown = evidence_of(pair)
        summary.append(
            {
                "question": pair.question,
                "answer": pair.answer,
                "keyword_answer": pair.keyword_answer,
                "assets": [
                    {"asset": piece["asset_id"], "title": piece["title"] or piece.get("url", "")}
                    for piece in shown
                    if piece["kind"] in ("screen", "image")
                ],
                "snippets": [{"title": p["title"], "text": p["text"]} for p in shown if p["kind"] == "snippet"],
                "facts": [{"text": p["text"], "url": p["url"]} for p in shown if p["kind"] == "fact"],
                "state": pair.get_state_display(),
            }
        )
    return summary


def trace_screen_for_its_writer(*, user, asset, **_signal):
    """Raters writing questions on a trace see its screens while they hold (or held) a
    task on it: a task of a kind that shows its trace (``TaskKind.shows_trace``)."""
    from hits import registry
    from hits.models import Task

    kinds = [kind.name for kind in registry.all_kinds() if kind.shows_trace]
    traces = Task.objects.filter(assignments__worker=user, batch__kind__in=kinds).values(
        trace=Cast(KT("payload__trace"), BigIntegerField())
    )
    return TraceStep.objects.filter(screen__asset=asset, trace_id__in=traces).exists()


def site_page_for_its_writer(*, user, asset, **_signal):
    """Raters writing navigation questions on a site see its recorded pages while they hold
    (or held) a task on it: a task of a kind that shows its site (``TaskKind.shows_site``)."""
    from hits import registry
    from hits.models import Task

    from .models import NavPage

    kinds = [kind.name for kind in registry.all_kinds() if kind.shows_site]
    if not kinds:
        return False
    sites = Task.objects.filter(assignments__worker=user, batch__kind__in=kinds).values(
        site=Cast(KT("payload__site"), BigIntegerField())
    )
    return NavPage.objects.filter(step__screen__asset=asset, site_id__in=sites).exists()


def pool_image_for_workers(*, user, asset, **_signal):
    """Pool images are published pictures (e.g. from Wikipedia): every signed-in worker may
    see those that review has cleared, as the image tasks show them to whoever takes the
    task. A pending or rejected one is for reviewers only."""
    return (
        user.is_authenticated
        and asset.review_state == asset.ReviewState.CLEARED
        and ImageSource.objects.filter(asset=asset).exists()
    )
