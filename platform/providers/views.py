"""The pages workers arrive at from a provider.

Prolific: the study's link opens ``prolific_arrival`` in the participant's own tab; they
are logged in to their linked account and work through the batch's task page, which
sends them back here after each task (``hits.views.drive``) until the session ends and
they go back to Prolific with its code.

MTurk: the HIT shows ``mturk_task`` in a frame on MTurk's site, where this site's
cookies may not be sent; the page needs no session or log-in. A preview shows a task
read-only; an accepted HIT shows the form, whose address carries the session's secret
token, and a finished one posts the answer on to MTurk (``turkSubmitTo``).
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from rest_framework import serializers

from config.errors import DomainError
from hits import registry as kinds
from hits.models import Assignment, Batch
from hits.views import drive

from . import selectors, services
from .adapters.mturk import PREVIEW_ASSIGNMENT
from .errors import BadArrival, NotSetUp
from .models import ProviderSession

Session = ProviderSession.State
PROLIFIC_PARAMETERS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
PROLIFIC_ID = r"[0-9a-f]{24}"
MTURK_ID = r"[A-Z0-9]{1,64}"
LINK_BACKEND = "accounts.backends.ProviderLinkBackend"


def _refused(request, refusal, *, provider, template="providers/refused.html"):
    return render(request, template, {"message": refusal.message, "provider": provider}, status=refusal.status)


# --- Prolific ---------------------------------------------------------------------------------


@require_GET
def prolific_arrival(request, batch_id):
    parameters = {name: request.GET.get(name, "").strip() for name in PROLIFIC_PARAMETERS}
    try:
        services.check_parameters(
            parameters,
            pattern=PROLIFIC_ID,
            message="Open this study from Prolific: its link carries your Prolific ids.",
        )
        session = services.arrive(
            provider="prolific",
            batch_id=batch_id,
            worker_id=parameters["PROLIFIC_PID"],
            study_id=parameters["STUDY_ID"],
            external_id=parameters["SESSION_ID"],
        )
    except DomainError as refusal:
        return _refused(request, refusal, provider="Prolific")
    login(request, session.worker.user, backend=LINK_BACKEND)
    drive(
        request,
        batch_id=session.batch_id,
        next_url=reverse("providers:prolific_next", args=[session.token]),
        stop_url=reverse("providers:prolific_stop", args=[session.token]),
        stop_label="Stop and return to Prolific",
    )
    return redirect("providers:prolific_next", token=session.token)


def _own_session(request, token):
    session = get_object_or_404(ProviderSession.objects.select_related("worker", "batch"), token=token)
    if session.worker.user_id != request.user.pk:
        raise Http404("No such session.")
    return session


@login_required
@require_GET
def prolific_next(request, token):
    """After each task: the next one, or back to Prolific once the session is over."""
    session = _own_session(request, token)
    try:
        assignment = services.next_task(session=session)
    except DomainError as refusal:
        return _refused(request, refusal, provider="Prolific")
    if assignment is not None:
        return redirect("hits:task", assignment_id=assignment.pk)
    return _prolific_ended(request, session)


@login_required
@require_POST
def prolific_stop(request, token):
    session = _own_session(request, token)
    if session.state == Session.ACTIVE:
        try:
            services.stop(session=session)
        except DomainError as refusal:
            return _refused(request, refusal, provider="Prolific")
    return _prolific_ended(request, session)


def _prolific_ended(request, session):
    adapter, provider_settings = selectors.settings_for(batch=session.batch, provider="prolific")
    code = adapter.code_for(settings=provider_settings, state=session.state)
    return render(
        request,
        "providers/prolific_ended.html",
        {
            "session": session,
            "code": code,
            "back_url": adapter.completion_url(code),
            "done": selectors.tasks_done(session),
        },
    )


# --- Mechanical Turk ----------------------------------------------------------------------------


def _framed(response, *, submit_to=""):
    """Lets MTurk's worker sites frame the page, and the page post to ``submit_to``."""
    response._csp_replace = {"frame-ancestors": settings.MTURK_WORKER_ORIGINS or ["'none'"]}
    if submit_to:
        response._csp_update = {"form-action": [_origin(submit_to)]}
    return response


def _origin(url):
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _mturk_page(request, template, context, status=200, submit_to=""):
    return _framed(render(request, template, context, status=status), submit_to=submit_to)


@xframe_options_exempt
@require_GET
def mturk_task(request, batch_id):
    """The HIT's page: a read-only preview, or the worker's task once they accepted."""
    try:
        batch = Batch.objects.filter(pk=batch_id).first()
        if batch is None:
            raise NotSetUp("This HIT points to a batch that does not exist.")
        selectors.settings_for(batch=batch, provider="mturk")
        if request.GET.get("assignmentId") == PREVIEW_ASSIGNMENT:
            return _mturk_preview(request, batch)
        parameters = {name: request.GET.get(name, "").strip() for name in ("assignmentId", "hitId", "workerId")}
        services.check_parameters(parameters, pattern=MTURK_ID, message="Open this HIT from Mechanical Turk.")
        submit_to = request.GET.get("turkSubmitTo", "").strip().rstrip("/")
        if _origin(submit_to) not in settings.MTURK_WORKER_ORIGINS or urlsplit(submit_to).path not in ("", "/"):
            raise BadArrival("Open this HIT from Mechanical Turk: the address to send the work to is not MTurk's.")
        session = services.arrive(
            provider="mturk",
            batch_id=batch.pk,
            worker_id=parameters["workerId"],
            study_id=parameters["hitId"],
            external_id=parameters["assignmentId"],
            submit_to=submit_to,
        )
        if session.state == Session.COMPLETED:
            return _mturk_send(request, session)
        assignment = services.next_task(session=session)
    except DomainError as refusal:
        return _framed(_refused(request, refusal, provider="Mechanical Turk", template="providers/mturk_refused.html"))
    if assignment is None:
        return _mturk_page(request, "providers/mturk_ended.html", {"session": session})
    return _mturk_form(request, session, assignment)


def _mturk_preview(request, batch):
    task = batch.tasks.order_by("id").first()
    if task is None:
        raise NotSetUp("This batch has no tasks yet.")
    kind = kinds.get(batch.kind)
    assignment = Assignment(task=task, batch=batch)
    context = {"kind": kind, "batch": batch, "payload": task.payload, "values": {}, "errors": {}, "preview": True}
    return _mturk_page(request, "providers/mturk_task.html", {**context, **kind.page_context(assignment=assignment)})


def _mturk_form(request, session, assignment, *, values=None, errors=None, status=200):
    kind = kinds.get(session.batch.kind)
    context = {
        "kind": kind,
        "batch": session.batch,
        "session": session,
        "assignment": assignment,
        "payload": assignment.task.payload,
        "values": values or {},
        "errors": errors or {},
        "preview": False,
    }
    return _mturk_page(
        request, "providers/mturk_task.html", {**context, **kind.page_context(assignment=assignment)}, status=status
    )


def _mturk_send(request, session):
    """Posts the finished HIT on to MTurk (the page submits itself; a button if not)."""
    assignment = Assignment.objects.filter(provider_work__session=session).order_by("-assigned_at").first()
    answer = {key: value for key, value in (assignment.answer or {}).items() if isinstance(value, str | int | float)}
    return _mturk_page(
        request,
        "providers/mturk_send.html",
        {
            "session": session,
            "assignment": assignment,
            "answer": answer,
            "action": f"{session.submit_to}/mturk/externalSubmit",
        },
        submit_to=session.submit_to,
    )


@csrf_exempt  # framed on MTurk's site, where this site's cookies may be withheld: the token is the proof
@xframe_options_exempt
@require_POST
def mturk_submit(request, token):
    session = get_object_or_404(
        ProviderSession.objects.select_related("worker__user", "batch"), token=token, provider="mturk"
    )
    if session.state == Session.COMPLETED:
        return _mturk_send(request, session)
    kind = kinds.get(session.batch.kind)
    values = kind.form_data(request.POST)
    try:
        services.submit(session=session, data=values, active_seconds=_seconds(request.POST.get("active_seconds")))
    except serializers.ValidationError as error:
        errors = error.detail if isinstance(error.detail, dict) else {"non_field_errors": error.detail}
        assignment = Assignment.objects.filter(provider_work__session=session).order_by("-assigned_at").first()
        return _mturk_form(request, session, assignment, values=values, errors=errors, status=400)
    except DomainError as refusal:
        return _framed(_refused(request, refusal, provider="Mechanical Turk", template="providers/mturk_refused.html"))
    session.refresh_from_db()
    return _mturk_send(request, session)


def _seconds(value):
    try:
        return max(0, int(float(value)))
    except (TypeError, ValueError):
        return None
