"""What a validator or reference writer sees of a QA pair, and who may see its images."""

from django.db.models import Q

from collection.models import Evidence


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


def assigned_to_check(*, user, asset):
    """Validators and reference writers see the images of the pairs they were given."""
    cited = Evidence.objects.filter(Q(screen__asset=asset) | Q(image__asset=asset))
    return cited.filter(
        Q(qa_pair__validation__task__assignments__worker=user)
        | Q(qa_pair__reference_set__task__assignments__worker=user)
    ).exists()


def in_a_test(*, user, asset):
    """Images in an active qualification test are there for every worker to see."""
    from .models import QualificationItem

    return any(
        figure.get("asset") == asset.pk
        for figures in QualificationItem.objects.filter(test__active=True).values_list("figures", flat=True)
        for figure in figures
    )
