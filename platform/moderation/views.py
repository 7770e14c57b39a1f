"""The reviewers' queues: one screenshot at a time, riskiest first, with keyboard keys."""

import json

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.models import Role
from accounts.permissions import role_required
from assets.models import AssetUpload
from config.errors import DomainError
from hits import planning
from hits import selectors as hits_selectors
from hits.models import Assignment, Batch

from . import selectors
from . import services as review
from .models import ReviewDecision, ReviewItem

REVIEWERS = "Only reviewers and admins review screens."


@role_required(Role.REVIEWER, REVIEWERS)
def queues(request):
    decisions = ReviewDecision.objects.select_related("reviewer")[:50] if request.user.is_admin else []
    return render(
        request,
        "moderation/queues.html",
        {
            "depths": selectors.queue_depths(),
            "decisions": decisions,
            "spot_checks": hits_selectors.batches_to_spot_check(),
            "last": _last_decision(request.user),
        },
    )


@role_required(Role.REVIEWER, REVIEWERS)
def next_item(request, queue):
    if queue not in ReviewItem.Queue.values:
        raise PermissionDenied("There is no such queue.")
    item = review.claim_next(reviewer=request.user, queue=queue)
    if item is None:
        messages.info(request, f"The {ReviewItem.Queue(queue).label.lower()} queue is empty. Thank you!")
        return redirect("moderation:queues")
    boxes = [f for f in item.findings if f.get("box")]
    return render(
        request,
        "moderation/item.html",
        {
            "item": item,
            "queue": queue,
            "findings": boxes,
            "findings_json": boxes,
            "text_findings": list(enumerate(item.text_findings)),
            "texts_open": any(not finding["masked"] for finding in item.text_findings),
            "depth": selectors.queue_depths()[queue],
            "context": _upload_context(item.asset),
            "last": _last_decision(request.user),
        },
    )


def _upload_context(asset):
    """Who uploaded the picture and when, and the work it was uploaded for: the
    assignment whose screen it is (batch and task number) or the trace batch it was
    recorded for."""
    uploads = list(AssetUpload.objects.filter(asset=asset).select_related("uploaded_by").order_by("uploaded_at", "id"))
    work = list(Assignment.objects.filter(screens__asset=asset).select_related("batch").distinct()[:5])
    numbers = planning.task_numbers(assignment.task_id for assignment in work)
    for assignment in work:
        assignment.task_number = numbers.get(assignment.task_id)
    traces = list(Batch.objects.filter(traces__steps__screen__asset=asset).distinct()[:5])
    return {"uploads": uploads, "work": work, "trace_batches": traces}


def _last_decision(reviewer):
    decision = review.last_decision(reviewer=reviewer)
    if decision is None:
        return None
    decision.undoable = review.can_undo(decision)
    decision.seconds_left = max(0, review.UNDO_SECONDS - int((timezone.now() - decision.created_at).total_seconds()))
    return decision


@role_required(Role.REVIEWER, REVIEWERS)
@require_POST
def undo(request, decision_id):
    try:
        item = review.undo(decision_id=decision_id, reviewer=request.user)
    except DomainError as refusal:
        messages.error(request, refusal.message)
        queue = request.POST.get("queue")
        if queue in ReviewItem.Queue.values:
            return redirect("moderation:next", queue=queue)
        return redirect("moderation:queues")
    messages.success(request, "Undone: the screen is back with you to decide again.")
    return redirect("moderation:next", queue=item.queue)


@role_required(Role.REVIEWER, REVIEWERS)
@require_POST
def decide(request, item_id, decision):
    item = get_object_or_404(ReviewItem, pk=item_id)
    try:
        if decision == "approve":
            review.approve(item_id=item.pk, reviewer=request.user)
        elif decision == "reject":
            review.reject(item_id=item.pk, reviewer=request.user, reason=request.POST.get("reason", ""))
        elif decision == "redact":
            try:
                boxes = json.loads(request.POST.get("boxes") or "[]")
            except ValueError:
                boxes = None
            review.redact(item_id=item.pk, reviewer=request.user, boxes=boxes)
        elif decision == "mask":
            chosen = request.POST.get("finding", "all")
            indexes = None if chosen == "all" else [int(chosen)] if chosen.isdigit() else []
            review.mask_texts(item_id=item.pk, reviewer=request.user, indexes=indexes)
        else:
            review.release(item_id=item.pk, reviewer=request.user)
    except DomainError as refusal:
        messages.error(request, refusal.message)
    return redirect("moderation:next", queue=item.queue)
