"""The rater's web pages: home (work, current assignments, history, earnings) and the
task page that each kind fills with its own template."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from rest_framework import serializers

from config.api import field_errors
from config.errors import DomainError

from . import registry, selectors, services
from .models import Assignment


@login_required
def home(request):
    history = Paginator(selectors.history_for(worker=request.user), 20).get_page(request.GET.get("page"))
    return render(
        request,
        "hits/home.html",
        {
            "batches": selectors.open_batches_for(worker=request.user),
            "open_assignments": selectors.open_assignments_for(worker=request.user),
            "history": history,
            "earnings": selectors.earnings_for(worker=request.user),
            "profile": request.user.profile,
        },
    )


@login_required
@require_POST
def start(request, batch_id):
    try:
        assignment, _created = services.request_next_task(worker=request.user, batch_id=batch_id)
    except DomainError as refusal:
        messages.error(request, refusal.message)
        return redirect("hits:home")
    return redirect("hits:task", assignment_id=assignment.pk)


def _own_assignment(request, assignment_id):
    # Other workers' assignments do not exist as far as this page is concerned.
    return get_object_or_404(Assignment.objects.select_related("batch", "task"), pk=assignment_id, worker=request.user)


@login_required
def task(request, assignment_id):
    assignment = _own_assignment(request, assignment_id)
    kind = registry.get(assignment.batch.kind)
    errors, error_list, values = {}, {}, {}
    if request.method == "POST":
        values = kind.form_data(request.POST)
        try:
            services.submit_assignment(
                assignment_id=assignment.pk,
                worker=request.user,
                data=values,
                active_seconds=_seconds(request.POST.get("active_seconds")),
            )
        except serializers.ValidationError as error:
            errors = error.detail if isinstance(error.detail, dict) else {"non_field_errors": error.detail}
            error_list = field_errors(error.detail)
        except DomainError as refusal:
            messages.error(request, refusal.message)
            return redirect("hits:home")
        else:
            messages.success(request, "Submitted. Thank you!")
            if "continue" in request.POST:
                return start(request, assignment.batch_id)
            return redirect("hits:home")
    return render(
        request,
        "hits/task.html",
        {
            "assignment": assignment,
            "kind": kind,
            "payload": assignment.task.payload,
            "errors": errors,
            "error_list": error_list,
            "values": values,
            **kind.page_context(assignment=assignment),
        },
        status=400 if errors else 200,
    )


def _seconds(value):
    try:
        return max(0, int(float(value)))
    except (TypeError, ValueError):
        return None


@login_required
@require_POST
def give_back(request, assignment_id):
    """Return (back home) or skip (straight on to the next task of the batch)."""
    assignment = _own_assignment(request, assignment_id)
    try:
        services.return_assignment(assignment_id=assignment.pk, worker=request.user)
    except DomainError as refusal:
        messages.error(request, refusal.message)
        return redirect("hits:home")
    if request.POST.get("then") == "next":
        messages.info(request, "Skipped; here is the next task.")
        return start(request, assignment.batch_id)
    messages.info(request, "Task returned. It will go to someone else.")
    return redirect("hits:home")
