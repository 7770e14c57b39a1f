"""Batches in the console: every batch with its progress, a new batch of one kind with
that kind's settings as fields, and one batch's page to fill, open and close it."""

from django.contrib import messages
from django.db import transaction
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from rest_framework.exceptions import ValidationError

from config.errors import DomainError
from dashboards.selectors import batch_progress
from hits import registry
from hits import services as hits
from hits.kinds.base import TaskKind
from hits.models import Batch

from .access import staff_only
from .forms import BatchForm, TasksForm


def _fills(kind):
    """Whether the kind adds its own tasks from a pool or the site graphs."""
    return type(kind).fill is not TaskKind.fill


def _kind(name):
    try:
        return registry.get(name)
    except registry.UnknownKind:
        raise Http404(f"There is no task kind named “{name}”.") from None


@staff_only
@require_safe
def batch_list(request):
    kinds = [{"kind": kind, "fills": _fills(kind)} for kind in registry.all_kinds()]
    return render(request, "console/batches.html", {"rows": batch_progress(), "kinds": kinds})


@staff_only
@require_http_methods(["GET", "POST"])
def batch_new(request, kind):
    kind = _kind(kind)
    form = BatchForm(request.POST or None, kind=kind)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                batch = hits.create_batch(name=form.cleaned_data["name"], kind=kind.name, created_by=request.user,
                                          **form.batch_fields())  # fmt: skip
                batch.required_qualifications.set(form.cleaned_data["required_qualifications"])
        except DomainError as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, f"Batch “{batch.name}” is saved as a draft: fill it, then open it.")
            return redirect("console:batch", batch_id=batch.pk)
    context = {"form": form, "kind": kind, "fills": _fills(kind)}
    return render(request, "console/batch_new.html", context, status=400 if form.errors else 200)


@staff_only
@require_safe
def batch_detail(request, batch_id):
    batch = get_object_or_404(Batch, pk=batch_id)
    row = next((row for row in batch_progress() if row["id"] == batch.pk), None)
    try:
        kind = registry.get(batch.kind)
    except registry.UnknownKind:
        kind = None
    context = {
        "batch": batch,
        "row": row,
        "kind": kind,
        "fills": kind is not None and _fills(kind),
        "locales": batch.allowed_locales,
        "qualifications": batch.required_qualifications.order_by("name"),
        "tasks_form": kind is not None and not _fills(kind) and TasksForm(kind=kind),
    }
    return render(request, "console/batch.html", context)


@staff_only
@require_http_methods(["GET", "POST"])
def batch_tasks(request, batch_id):
    """Adds tasks by hand, each showing what the form says; all or none."""
    batch = get_object_or_404(Batch, pk=batch_id)
    kind = _kind(batch.kind)
    form = TasksForm(request.POST or None, kind=kind)
    if request.method == "POST" and form.is_valid():
        try:
            added = hits.add_tasks(batch=batch, payloads=[form.payload()] * form.cleaned_data["count"],
                                   assignments_wanted=form.cleaned_data["assignments_wanted"])  # fmt: skip
        except ValidationError as refusal:
            for problems in refusal.detail.values():  # the same payload each time: the first says it all
                for name, messages_ in problems.items():
                    form.add_error(name if name in form.fields else None, [str(text) for text in messages_])
                break
        else:
            messages.success(request, f"{len(added)} task{'s' if len(added) != 1 else ''} added to “{batch.name}”.")
            return redirect("console:batch", batch_id=batch.pk)
    context = {"batch": batch, "kind": kind, "form": form}
    return render(request, "console/batch_tasks.html", context, status=400 if form.errors else 200)


@staff_only
@require_POST
def batch_action(request, batch_id, action):
    batch = get_object_or_404(Batch, pk=batch_id)
    try:
        if action == "open":
            hits.open_batch(batch=batch, actor=request.user)
            messages.success(request, f"Batch “{batch.name}” is open: workers can take its tasks.")
        elif action == "close":
            hits.close_batch(batch=batch, actor=request.user)
            messages.success(request, f"Batch “{batch.name}” is closed: it hands out no more work.")
        elif action == "fill":
            outcome = _kind(batch.kind).fill(batch=batch)
            if outcome is None:
                messages.error(request, "This kind of batch is not filled from a pool or the site graphs.")
            else:
                messages.success(request, f"Batch “{batch.name}”: {outcome}")
        else:
            raise Http404("There is no such batch action.")
    except DomainError as refusal:
        messages.error(request, refusal.message)
    return redirect("console:batch", batch_id=batch.pk)
