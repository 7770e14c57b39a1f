"""The release pages: the list of releases, and one release with its counts, datasheet,
files, and changes since its parent; admins see builds in progress and start them."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from accounts.models import Role
from config.errors import DomainError

from . import selectors, services
from .api import serve
from .diff import diff_summary
from .models import ReleaseFile


def _release(request, release_id):
    release = selectors.visible_releases(user=request.user).filter(pk=release_id).first()
    if release is None:
        raise Http404("There is no such release, or it is not published yet.")
    return release


@login_required
@require_safe
def release_list(request):
    page = Paginator(selectors.visible_releases(user=request.user), 50).get_page(request.GET.get("page"))
    return render(request, "releases/list.html", {"page": page})


@login_required
@require_safe
def release_detail(request, release_id):
    release = _release(request, release_id)
    context = {
        "release": release,
        "progress": selectors.progress(release),
        "is_admin": request.user.has_role(Role.ADMIN),
    }
    if release.is_published:
        files = ReleaseFile.objects.filter(release=release).exclude(path__startswith="images/").order_by("path")
        context["files"] = files
        context["image_files"] = ReleaseFile.objects.filter(release=release, path__startswith="images/").count()
        if release.parent_id:
            context["diff"] = diff_summary(release=release, against=release.parent, limit=0)
    return render(request, "releases/detail.html", context)


@login_required
@require_safe
def release_progress(request, release_id):
    """The progress panel alone, polled by the page while a build runs."""
    release = _release(request, release_id)
    if release.is_published and request.headers.get("HX-Request"):
        response = render(
            request, "releases/_progress.html", {"release": release, "progress": selectors.progress(release)}
        )
        response["HX-Refresh"] = "true"  # show the files and counts
        return response
    return render(request, "releases/_progress.html", {"release": release, "progress": selectors.progress(release)})


@login_required
@require_POST
def release_build(request, release_id):
    if not request.user.has_role(Role.ADMIN):
        raise Http404("There is no such release.")
    release = _release(request, release_id)
    try:
        services.start_build(release=release)
        messages.success(request, f"The build of {release} is queued.")
    except DomainError as error:
        messages.error(request, error.message)
    return redirect("releases:detail", release_id=release.pk)


@login_required
@require_safe
def release_file(request, release_id, path):
    release = _release(request, release_id)
    release_file = release.is_published and selectors.release_file(release=release, path=path)
    if not release_file:
        raise Http404("The release has no such file.")
    return serve(release, release_file)
