"""Pages for workers: tutorials, qualification tests, and their own quality."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
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


def _page_number(value, pages):
    try:
        return min(max(1, int(value)), pages)
    except (TypeError, ValueError):
        return 1


@login_required
@require_http_methods(["GET", "POST"])
def take_test(request, slug):
    """One page of the test at a time (``training.ITEMS_PER_PAGE`` items), in this
    attempt's own order. Answers are kept in the session as the worker moves between
    pages; "Submit my answers" scores them all, or shows the first page still missing one."""
    try:
        test = selectors.active_test(slug)
    except DomainError as missing:
        raise Http404(missing.message) from None
    status = selectors.status_of(worker=request.user, test=test)
    if not status.may_attempt:
        return render(request, "training/test.html", {"test": test, "status": status})
    items = training.item_order(
        QualificationItem.objects.filter(test=test), test=test, worker=request.user, number=status.next_number
    )
    pages = training.page_count(len(items))
    draft = training.Draft(request.session, test=test, number=status.next_number)
    page = _page_number(request.POST.get("page") or request.GET.get("page"), pages)
    errors = {}
    if request.method == "POST":
        draft.keep(_answers_from(request.POST, [item for _n, item in training.page_of(items, page)]))
        move = request.POST.get("move")
        if move in ("back", "next") or request.POST.get("go"):
            step = {"back": -1, "next": 1}.get(move)
            page = _page_number(page + step if step else request.POST.get("go"), pages)
            return redirect(f"{reverse('training:test', args=[slug])}?page={page}")
        try:
            attempt = services.submit_attempt(test=test, worker=request.user, answers=draft.answers)
        except serializers.ValidationError as error:
            errors = {key: [_without_item_number(m) for m in messages_] for key, messages_ in error.detail.items()}
            page = min(training.page_holding(items, item_id) for item_id in errors)
        except DomainError as refusal:
            messages.error(request, refusal.message)
            return redirect("training:test", slug=slug)
        else:
            draft.clear()
            return redirect("training:attempt", attempt_id=attempt.pk)
    answers = draft.answers
    rows = [
        {"item": item, "number": number, "value": answers.get(str(item.pk), {}), "errors": errors.get(str(item.pk), [])}
        for number, item in training.page_of(items, page)
    ]
    answered = sum(1 for item in items if answers.get(str(item.pk), {}).get("flag"))
    # Every item of the attempt, in its order: answered or not, and the page it is on.
    overview = [
        {
            "number": number,
            "page": (number - 1) // training.ITEMS_PER_PAGE + 1,
            "answered": bool(answers.get(str(item.pk), {}).get("flag")),
        }
        for number, item in enumerate(items, start=1)
    ]
    return render(
        request,
        "training/test.html",
        {
            "test": test,
            "status": status,
            "rows": rows,
            "rules": test.rules.items(),
            "errors_elsewhere": len(errors) - sum(bool(row["errors"]) for row in rows),
            "has_errors": bool(errors),
            "page": page,
            "pages": pages,
            "total": len(items),
            "answered": answered,
            "overview": overview,
        },
        status=400 if errors else 200,
    )


def _without_item_number(message):
    """The service names items by their fixed position; on the page the message sits by
    the item itself, numbered in this attempt's order, so the position would mislead."""
    head, _, rest = message.partition(": ")
    if head.startswith("Item ") and rest:
        return rest[:1].upper() + rest[1:]
    if message.startswith("Mark item "):
        return "Mark this item."
    return message


@login_required
def attempt(request, attempt_id):
    attempt = get_object_or_404(QualificationAttempt.objects.select_related("test"), pk=attempt_id, worker=request.user)
    status = selectors.status_of(worker=request.user, test=attempt.test)
    rules = attempt.test.rules
    wrong = []
    for item in QualificationItem.objects.filter(test=attempt.test, pk__in=_wrong_ids(attempt)).order_by("position"):
        given = attempt.answers[str(item.pk)]
        wrong.append(
            {
                "item": item,
                "you_said": _verdict(given["flag"], rules),
                "right": "It follows the guidelines." if item.follows_guidelines else _verdict(item.broken_rule, rules),
                "why": item.explanation,
            }
        )
    return render(request, "training/attempt.html", {"attempt": attempt, "status": status, "wrong": wrong})


def _wrong_ids(attempt):
    return [int(item_id) for item_id, answer in attempt.answers.items() if not answer.get("right")]


def _verdict(flag, rules):
    if flag == services.FOLLOWS:
        return "It follows the guidelines."
    return f"It has a problem: {rules.get(flag, flag)}"


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
