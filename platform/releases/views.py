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
from .diff import compare
from .evaluation import BadPredictions
from .rendering import datasheet_html


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
        visible = selectors.visible_files(release=release, user=request.user)
        context["files"] = visible.exclude(path__startswith="images/").order_by("path")
        context["image_files"] = visible.filter(path__startswith="images/").count()
        context["datasheet"] = datasheet_html(release.datasheet)
        context |= _changes(request, release)
    return render(request, "releases/detail.html", context)


def _changes(request, release):
    """What changed: since the version chosen to compare with (``?against=``), else since
    the parent. Any other published version of the same name can be chosen."""
    others = (
        selectors.visible_releases(user=request.user)
        .filter(name=release.name, state=release.State.PUBLISHED)
        .exclude(pk=release.pk)
    )
    against = release.parent if release.parent_id else None
    wanted = request.GET.get("against", "")
    if wanted:
        against = others.filter(pk=wanted).first() if wanted.isdigit() else None
        if against is None:
            return {"others": others, "against_error": "Choose another published version of this release."}
    if against is None:
        return {"others": others}
    return {"others": others, "against": against, "diff": compare(one=against, other=release, limit=0)}


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
        services.check_not_empty(release=release)
        release = services.start_build(release=release)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, services.build_started_message(release))
    return redirect("releases:detail", release_id=release.pk)


@login_required
@require_safe
def release_file(request, release_id, path):
    release = _release(request, release_id)
    release_file = release.is_published and selectors.release_file(release=release, path=path, user=request.user)
    if not release_file:
        raise Http404("The release has no such file.")
    return serve(release, release_file)


@login_required
def release_evaluation(request, release_id):
    """Score predictions against the release (the file is checked at once, then scored by
    a job); the researcher's own runs, and the public leaderboard."""
    release = _release(request, release_id)
    if not release.is_published:
        raise Http404("The release is not published yet.")
    errors, values = {}, {"family": "", "split": "test", "name": "", "public": False}
    if request.method == "POST":
        values = {
            "family": request.POST.get("family", ""),
            "split": request.POST.get("split", ""),
            "name": request.POST.get("name", "").strip(),
            "public": request.POST.get("public") == "on",
        }
        upload = request.FILES.get("predictions")
        if values["family"] not in release.families:
            errors["family"] = ["Choose one of the release's families."]
        if values["split"] not in ("val", "test"):
            errors["split"] = ["Choose val or test."]
        if not values["name"]:
            errors["name"] = ["Name the model or run: the leaderboard shows it."]
        if upload is None:
            errors["predictions"] = ["Choose the predictions file."]
        if not errors:
            try:
                run = services.submit_evaluation(
                    release=release, family=values["family"], split=values["split"], predictions=upload.read(),
                    name=values["name"], public=values["public"], user=request.user,
                )  # fmt: skip
            except BadPredictions as refusal:
                errors = {key.removeprefix("predictions."): value for key, value in refusal.detail.items()}
            except DomainError as refusal:
                errors = {"file": [refusal.message]}
            else:
                messages.success(request, f"“{run.name}” is being scored; this page shows the result when it is done.")
                return redirect("releases:evaluation", release_id=release.pk)
    runs = selectors.visible_evaluations(release=release, user=request.user).filter(submitted_by=request.user)
    runs = list(runs[:50])
    context = {
        "release": release,
        "runs": runs,
        "waiting": any(run.state in ("queued", "running") for run in runs),
        "boards": selectors.leaderboard(release=release),
        "errors": errors,
        "values": values,
        "families": [f for f in release.families if release.counts.get("families", {}).get(f)],
    }
    status = 400 if errors else 200
    return render(request, "releases/evaluation.html", context, status=status)
