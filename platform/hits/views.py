"""The rater's web pages: home (work, current assignments, history, earnings) and the
task page that each kind fills with its own template."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from rest_framework import serializers

from accounts.models import Role
from accounts.permissions import role_required
from config.api import field_errors
from config.errors import DomainError

from . import planning, registry, selectors, services
from .models import Assignment, Batch

State = Assignment.State

# A batch can be worked through from a page outside this app (a recruitment provider's
# study, say). That page calls ``drive`` with where to send the worker after each
# submission or skip, and the form that ends their session there; the task page then
# follows it instead of going back to the worker's home.
DRIVERS_SESSION_KEY = "hits_drivers"


def drive(request, *, batch_id, next_url, stop_url, stop_label):
    drivers = dict(request.session.get(DRIVERS_SESSION_KEY, {}))
    drivers[str(batch_id)] = {"next": next_url, "stop": stop_url, "stop_label": stop_label}
    request.session[DRIVERS_SESSION_KEY] = drivers


def _driver(request, batch_id):
    return request.session.get(DRIVERS_SESSION_KEY, {}).get(str(batch_id))


@login_required
def home(request):
    history = Paginator(selectors.history_for(worker=request.user), 20).get_page(request.GET.get("page"))
    # Work the worker can start now comes first, then work they may do once there is more;
    # work closed to them comes last, with the reasons.
    batches = sorted(
        selectors.open_batches_for(worker=request.user),
        key=lambda row: (not row["eligibility"].eligible, row["available"] == 0),
    )
    estimates = planning.estimates_for(row["batch"] for row in batches)
    for row in batches:
        row["estimate"] = estimates[row["batch"].pk]
    open_assignments = list(selectors.open_assignments_for(worker=request.user))
    numbers = planning.task_numbers(assignment.task_id for assignment in open_assignments)
    for assignment in open_assignments:
        assignment.task_number = numbers.get(assignment.task_id)
    return render(
        request,
        "hits/home.html",
        {
            "batches": batches,
            "open_assignments": open_assignments,
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
            if driver := _driver(request, assignment.batch_id):
                return redirect(driver["next"])
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
            "driver": _driver(request, assignment.batch_id),
            "task_number": planning.task_numbers([assignment.task_id]).get(assignment.task_id),
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
    if driver := _driver(request, assignment.batch_id):
        messages.info(request, "Skipped; here is the next task.")
        return redirect(driver["next"])
    if request.POST.get("then") == "next":
        messages.info(request, "Skipped; here is the next task.")
        return start(request, assignment.batch_id)
    messages.info(request, "Task returned. It will go to someone else.")
    return redirect("hits:home")


# --- Spot checks (reviewers and admins) -------------------------------------------------------


SPOT_CHECKERS = "Spot checks are for reviewers and admins."


@role_required(Role.REVIEWER, SPOT_CHECKERS)
def spot_check(request, batch_id):
    """A batch's sampled submissions, each shown as its kind summarises it, with approve,
    reject and bonus; and the batch's counts, to see how far the check has gone."""
    batch = get_object_or_404(Batch, pk=batch_id)
    kind = registry.get(batch.kind)
    waiting = list(selectors.spot_check_sample(batch=batch).order_by("submitted_at", "id"))
    for assignment in waiting:
        assignment.summary = kind.review_summary(assignment=assignment)
    decided = (
        Assignment.objects.filter(batch=batch, spot_check=True, state__in=[State.APPROVED, State.REJECTED])
        .select_related("worker")
        .order_by("-decided_at")[:50]
    )
    counts = selectors.spot_check_counts(batch=batch)
    decided = list(decided)
    numbers = planning.task_numbers(assignment.task_id for assignment in [*waiting, *decided])
    for assignment in [*waiting, *decided]:
        assignment.task_number = numbers.get(assignment.task_id)
    return render(
        request,
        "hits/spot_check.html",
        {"batch": batch, "kind": kind, "waiting": waiting, "decided": decided, "counts": counts},
    )


@role_required(Role.REVIEWER, SPOT_CHECKERS)
@require_POST
def decide(request, assignment_id):
    """Approve, reject or bonus one submission from the spot-check page."""
    assignment = get_object_or_404(Assignment.objects.select_related("worker"), pk=assignment_id)
    action = request.POST.get("action")
    feedback = request.POST.get("feedback", "")
    number = planning.task_numbers([assignment.task_id]).get(assignment.task_id)
    work = f"task {number} by {assignment.worker.username}"
    try:
        if action == "approve":
            services.approve_assignment(assignment_id=assignment.pk, actor=request.user, feedback=feedback)
            messages.success(request, f"Approved {work}.")
        elif action == "reject":
            services.reject_assignment(assignment_id=assignment.pk, actor=request.user, feedback=feedback)
            messages.success(request, f"Rejected {work}; the worker sees your feedback.")
        elif action == "bonus":
            services.grant_bonus(
                assignment_id=assignment.pk,
                actor=request.user,
                amount=request.POST.get("amount", ""),
                reason=request.POST.get("reason", ""),
            )
            messages.success(request, f"Bonus given on {work}.")
        else:
            messages.error(request, "Choose approve, reject or bonus.")
    except DomainError as refusal:
        messages.error(request, refusal.message)
    return redirect("hits:spot_check", batch_id=assignment.batch_id)


@role_required(Role.REVIEWER, SPOT_CHECKERS)
@require_POST
def approve_rest(request, batch_id):
    """Approves the batch's submissions that were not drawn for the spot check."""
    batch = get_object_or_404(Batch, pk=batch_id)
    try:
        count = services.approve_unsampled(batch=batch, actor=request.user)
    except DomainError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, f"Approved {count} submissions outside the sample.")
    return redirect("hits:spot_check", batch_id=batch.pk)
