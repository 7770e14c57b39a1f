"""Pages for workers: tutorials, qualification tests, and their own quality."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_http_methods
from rest_framework import serializers

from config.errors import DomainError

from . import figures, quality, selectors, services, training
from .models import QualificationAttempt, QualificationItem


@login_required
def index(request):
    return render(
        request,
        "training/index.html",
        {"tutorials": training.all_tutorials(), "tests": selectors.statuses_for(worker=request.user)},
    )


@login_required
def tutorial(request, family):
    page = training.tutorial(family)
    if page is None:
        raise Http404("There is no such tutorial.")
    return render(request, "training/tutorial.html", {"tutorial": page})


def _answers_from(post, items):
    return {
        str(item.pk): {"flag": post.get(f"item-{item.pk}-flag", ""), "explanation": post.get(f"item-{item.pk}-why", "")}
        for item in items
    }


@login_required
@require_http_methods(["GET", "POST"])
def take_test(request, slug):
    try:
        test = selectors.active_test(slug)
    except DomainError as missing:
        raise Http404(missing.message) from None
    items = list(QualificationItem.objects.filter(test=test).order_by("position"))
    errors, values = {}, {}
    if request.method == "POST":
        values = _answers_from(request.POST, items)
        try:
            attempt = services.submit_attempt(test=test, worker=request.user, answers=values)
        except serializers.ValidationError as error:
            errors = {key: messages_ for key, messages_ in error.detail.items()}
        except DomainError as refusal:
            messages.error(request, refusal.message)
            return redirect("training:test", slug=slug)
        else:
            return redirect("training:attempt", attempt_id=attempt.pk)
    status = selectors.status_of(worker=request.user, test=test)
    rows = [
        {"item": item, "value": values.get(str(item.pk), {}), "errors": errors.get(str(item.pk), [])} for item in items
    ]
    return render(
        request,
        "training/test.html",
        {"test": test, "status": status, "rows": rows, "rules": test.rules.items(), "has_errors": bool(errors)},
        status=400 if errors else 200,
    )


@login_required
def attempt(request, attempt_id):
    attempt = get_object_or_404(QualificationAttempt.objects.select_related("test"), pk=attempt_id, worker=request.user)
    status = selectors.status_of(worker=request.user, test=attempt.test)
    return render(request, "training/attempt.html", {"attempt": attempt, "status": status})


@login_required
@cache_control(private=True, max_age=3600)
def figure(request, item_id, index):
    item = get_object_or_404(QualificationItem, pk=item_id, test__active=True)
    if index >= len(item.figures) or "draw" not in item.figures[index]:
        raise Http404("There is no such picture.")
    try:
        png = figures.render(item.figures[index])
    except ValueError:
        raise Http404("This picture cannot be drawn.") from None
    return HttpResponse(png, content_type="image/png")


@login_required
def my_quality(request):
    return render(request, "training/quality.html", {"standing": quality.standing_of(worker=request.user)})


@login_required
def my_questions(request):
    """The worker's questions, newest first, with what became of each: waiting for
    validation, accepted, or rejected with the validators' reasons and any feedback."""
    from django.core.paginator import Paginator
    from django.utils import timezone

    from accounts.models import RaterProfile
    from corpus.models import QAPair

    from .context_processors import unread_decisions

    unread = unread_decisions(request.user)
    pairs = (
        QAPair.objects.filter(author=request.user)
        .select_related("assignment__batch", "category")
        .order_by("-created_at", "-id")
    )
    page = Paginator(pairs, 25).get_page(request.GET.get("page"))
    profile = request.user.profile
    seen, now = profile.questions_seen_at, timezone.now()
    RaterProfile.objects.filter(user=request.user).update(questions_seen_at=now)
    profile.questions_seen_at = now  # this page's own menu has nothing new to count
    return render(request, "training/questions.html", {"page": page, "unread": unread, "seen": seen})
