"""Who may see the images of a QA pair being checked (what they see of it is
``corpus.selectors.evidence_of``)."""

from django.db.models import Q

from corpus.models import Evidence


def assigned_to_check(*, user, asset, **_signal):
    """Validators and reference writers see the images of the pairs they were given."""
    cited = Evidence.objects.filter(Q(screen__asset=asset) | Q(image__asset=asset))
    return cited.filter(
        Q(qa_pair__validation__task__assignments__worker=user)
        | Q(qa_pair__reference_set__task__assignments__worker=user)
    ).exists()


def in_a_test(*, user, asset, **_signal):
    """Images in an active qualification test are there for every worker to see."""
    from .models import QualificationItem

    return any(
        figure.get("asset") == asset.pk
        for figures in QualificationItem.objects.filter(test__active=True).values_list("figures", flat=True)
        for figure in figures
    )
