"""What changed between two releases, per split: QA pairs added, removed and changed
(same pair, different content hash). Computed in SQL and streamed; a pair that moved
split is removed from one and added to the other. Any two releases compare: a build
compares with its parent, the pages and the API with any version asked for."""

from django.db.models import Exists, OuterRef

from config.errors import DomainError

from .models import SPLITS, ReleaseItem

CHANGES = ("added", "removed", "changed")


def diff_ids(*, release, against, split, change):
    """Guids of ``change`` in ``split`` going from ``against`` to ``release``, in order."""
    mine = ReleaseItem.objects.filter(release=release, split=split)
    theirs = ReleaseItem.objects.filter(release=against, split=split)
    if change == "added":
        rows = mine.exclude(Exists(theirs.filter(guid=OuterRef("guid"))))
    elif change == "removed":
        rows = theirs.exclude(Exists(mine.filter(guid=OuterRef("guid"))))
    else:
        rows = mine.filter(Exists(theirs.filter(guid=OuterRef("guid")).exclude(content_hash=OuterRef("content_hash"))))
    return rows.order_by("guid").values_list("guid", flat=True).iterator(chunk_size=2000)


def diff_summary(*, release, against, limit=100):
    """Counts and the first ``limit`` guids of every change in every split."""
    splits = {}
    for split in SPLITS:
        splits[split] = {}
        for change in CHANGES:
            guids, count = [], 0
            for guid in diff_ids(release=release, against=against, split=split, change=change):
                if count < limit:
                    guids.append(guid)
                count += 1
            splits[split][change] = {"count": count, "guids": guids}
    return {"from": against.version, "to": release.version, "splits": splits}


class NotComparable(DomainError):
    code = "not_comparable"


def compare(*, one, other, limit=100):
    """What changed between any two published releases, from the older version to the
    newer (whichever order they are given in): ``diff_summary`` of the pair."""
    if one.pk == other.pk:
        raise NotComparable(f"Choose two different versions: both are {one}.")
    for release in (one, other):
        if not release.is_published:
            raise NotComparable(f"{release} is not published yet: only published versions can be compared.")
    older, newer = sorted((one, other), key=lambda release: (release.version_key, release.published_at, release.pk))
    return diff_summary(release=newer, against=older, limit=limit)
