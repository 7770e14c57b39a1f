"""Reads of releases: who sees which, and how far a build has got."""

from django.core.cache import cache
from django.core.files.storage import default_storage

from accounts.models import Role

from .build import progress_key
from .models import Release, ReleaseAsset, ReleaseFile


def visible_releases(*, user):
    """Published releases for everyone signed in; admins also see drafts and builds."""
    releases = Release.objects.select_related("parent")
    if user.has_role(Role.ADMIN):
        return releases
    return releases.filter(state=Release.State.PUBLISHED)


def progress(release):
    """``{"stage", "done", "total"}``: live from the cache while building, else stored."""
    if release.state in (Release.State.QUEUED, Release.State.BUILDING):
        live = cache.get(progress_key(release.pk))
        if live and live.get("attempt") == release.attempt:
            return {"stage": live["stage"], "done": live["done"], "total": live["total"]}
    return {"stage": release.stage, "done": release.progress_done, "total": release.progress_total}


def visible_files(*, release, user):
    """A release's files that ``user`` may download: the evaluation set (private files)
    only for admins."""
    files = ReleaseFile.objects.filter(release=release)
    return files if user.has_role(Role.ADMIN) else files.filter(private=False)


def release_file(*, release, path, user):
    """The file at ``path`` if ``user`` may download it, else None: a private file and a
    missing one look the same to everyone else."""
    return visible_files(release=release, user=user).filter(path=path).first()


def visible_evaluations(*, release, user):
    """Evaluations of ``release`` that ``user`` may see: their own and public ones (admins
    see all), newest first."""
    from django.db.models import Q

    from .models import Evaluation

    runs = Evaluation.objects.filter(release=release).select_related("submitted_by")
    return runs if user.has_role(Role.ADMIN) else runs.filter(Q(submitted_by=user) | Q(public=True))


def leaderboard(*, release):
    """Public, finished runs per family and split, best first by the family's main metric."""
    from .models import Evaluation

    main = {"webquest": "relaxed_accuracy", "webqa": "accuracy", "webvln": "sr"}
    runs = Evaluation.objects.filter(release=release, public=True, state=Evaluation.State.DONE)
    boards = {}
    for run in runs.select_related("submitted_by").order_by("family", "split", "created_at"):
        boards.setdefault((run.family, run.split), []).append(run)
    return [
        {"family": family, "split": split, "metric": main[family],
         "runs": sorted(rows, key=lambda run: -(run.metrics.get(main[family]) or 0))}
        for (family, split), rows in sorted(boards.items())
    ]  # fmt: skip


def storage_key(release, release_file):
    return f"{release.storage_prefix}/{release_file.path}"


def signs_urls():
    return getattr(default_storage, "querystring_auth", False)


def release_holding(*, asset, **_signal):
    """Asked before a screen's approval is taken back: a screen a release already copied
    stays cleared (the release is fixed), so the answer names that release."""
    held = ReleaseAsset.objects.filter(asset=asset).select_related("release").order_by("release_id").first()
    return f"the screen is already in release {held.release}." if held is not None else None
