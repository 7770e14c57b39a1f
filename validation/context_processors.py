"""What every page shows a signed-in worker about their own questions."""

from django.db.models import Q

from corpus.models import QAPair

DECIDED = (QAPair.State.ACCEPTED, QAPair.State.REJECTED)


def decisions_to_read(request):
    """``decisions_to_read``: how many of the worker's questions were accepted or rejected
    since they last opened their questions' page (the menu shows it)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"decisions_to_read": unread_decisions(user)}


def unread_decisions(user):
    profile = getattr(user, "profile", None)
    seen = profile.questions_seen_at if profile is not None else None
    decided = QAPair.objects.filter(author=user, state__in=DECIDED, decided_at__isnull=False)
    return decided.filter(Q(decided_at__gt=seen) if seen else Q()).count()
