"""Reads of releases: who sees which, and how far a build has got."""

from django.core.cache import cache
from django.core.files.storage import default_storage

from accounts.models import Role

from .build import progress_key
from .models import Release, ReleaseFile


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


def release_file(*, release, path):
    return ReleaseFile.objects.filter(release=release, path=path).first()


def storage_key(release, release_file):
    return f"{release.storage_prefix}/{release_file.path}"


def signs_urls():
    return getattr(default_storage, "querystring_auth", False)
