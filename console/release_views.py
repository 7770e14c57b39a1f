"""Releases in the console: define one (with its counts per split previewed, an empty
one refused), build it and watch it, read its datasheet and files, download it all as
one archive, and compare any two of its versions."""

from django.contrib import messages
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from config.errors import DomainError
from releases import selectors, services
from releases.archive import archive_name, stream_archive
from releases.diff import compare
from releases.models import SPLITS, Release
from releases.preview import split_preview
from releases.rendering import datasheet_html

from .access import staff_only
from .forms import CompareForm, ReleaseForm

# Where each refusal of ``releases.services`` belongs on the form.
FIELD_OF_CODE = {
    "bad_version": "version",
    "version_not_higher": "version",
    "bad_families": "families",
    "bad_states": "qa_states",
    "bad_split": "train_percent",
}


@staff_only
@require_safe
def release_list(request):
    releases = Release.objects.select_related("parent").order_by("name", "-major", "-minor", "-patch")
    return render(request, "console/releases.html", {"releases": releases})


def _initial(request):
    """A new version of the name asked for: its latest definition, one minor version up."""
    latest = Release.objects.filter(name=request.GET.get("name", "")).order_by("-major", "-minor", "-patch").first()
    if latest is None:
        return {}
    fields = ["families", "qa_states", "split_strategy", "webvln_setting", "seed", "train_percent", "val_percent"]
    return {"name": latest.name, "version": f"{latest.major}.{latest.minor + 1}.0"} | {
        field: getattr(latest, field) for field in fields
    }


@staff_only
@require_http_methods(["GET", "POST"])
def release_new(request):
    form = ReleaseForm(request.POST or None, initial=_initial(request))
    preview = None
    if request.method == "POST" and form.is_valid():
        definition = form.definition()
        preview = split_preview(release=definition)
        if preview["placed"] == 0:
            form.add_error(None, _empty_message(preview))
        elif request.POST.get("action") == "define":
            try:
                release = services.create_release(
                    version=form.cleaned_data["version"], created_by=request.user,
                    **{key: value for key, value in form.cleaned_data.items() if key != "version"},
                )  # fmt: skip
            except DomainError as refusal:
                form.add_error(FIELD_OF_CODE.get(refusal.code), refusal.message)
            else:
                messages.success(request, f"{release} is defined. Build it when the counts look right.")
                return redirect("console:release", release_id=release.pk)
    context = {"form": form, "preview": preview}
    return render(request, "console/release_new.html", context, status=400 if form.errors else 200)


def _empty_message(preview):
    if preview["selected"]:
        why = f"the {preview['selected']} QA pairs it selects all fall out of every split"
    else:
        why = "it selects no QA pair"
    return f"This release would be empty: {why}. {services.EMPTY_ADVICE}"


@staff_only
@require_safe
def release_detail(request, release_id):
    release = get_object_or_404(Release.objects.select_related("parent"), pk=release_id)
    versions = Release.objects.filter(name=release.name, state=Release.State.PUBLISHED)
    context = {"release": release, "progress": selectors.progress(release), "versions": versions}
    if release.is_published:
        files = release.files.order_by("path")
        context |= {
            "files": files.exclude(path__startswith="images/"),
            "image_files": files.filter(path__startswith="images/").count(),
            "datasheet": datasheet_html(release.datasheet),
            "count_splits": {split: release.counts.get("splits", {}).get(split, {}) for split in SPLITS},
        }
        context |= _comparison(request, release, versions)
    return render(request, "console/release.html", context)


def _comparison(request, release, versions):
    """The compare form, and the comparison it asks for (by default, with the parent)."""
    if "one" not in request.GET:
        form = CompareForm(versions=versions, initial={"one": release.parent_id, "other": release.pk})
        if release.parent_id and release.parent.is_published:
            return {"compare_form": form, "diff": compare(one=release.parent, other=release, limit=20)}
        return {"compare_form": form}
    form = CompareForm(request.GET, versions=versions)
    if not form.is_valid():
        return {"compare_form": form}
    try:
        diff = compare(one=form.cleaned_data["one"], other=form.cleaned_data["other"], limit=20)
    except DomainError as refusal:
        form.add_error(None, refusal.message)
        return {"compare_form": form}
    return {"compare_form": form, "diff": diff}


@staff_only
@require_POST
def release_build(request, release_id):
    release = get_object_or_404(Release, pk=release_id)
    try:
        services.check_not_empty(release=release)
        release = services.start_build(release=release)
    except DomainError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, services.build_started_message(release))
    return redirect("console:release", release_id=release.pk)


@staff_only
@require_safe
def release_archive(request, release_id):
    release = get_object_or_404(Release, pk=release_id)
    if not release.is_published:
        raise Http404(f"{release} is not published yet: there is nothing to download.")
    files = selectors.visible_files(release=release, user=request.user).order_by("path")
    response = StreamingHttpResponse(stream_archive(release=release, files=files), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{archive_name(release)}"'
    response["Cache-Control"] = "private, no-store"
    return response
