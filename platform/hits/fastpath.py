"""A lean path for the two calls a rater's script makes on every cycle: asking for the
next task (``POST /assignments/``) and submitting it (``POST /assignments/<id>/submit/``).

DRF's dispatch (wrapping the request, content negotiation, the renderer's choice, the
authentication and throttle classes) cost as much CPU as the hand-out itself. A call on
the happy path — a JSON body of the plain shape clients send, ``Authorization: Token``
with the token in the cache, nothing asked of content negotiation — is answered here by
a plain Django view: the same token lookup, the same throttle (read and counted in one
Redis round trip, ``counted_credentials``), the same services and the same JSON (DRF's
renderer, the same headers). Its refusals from then on (throttled, no
such batch, not eligible, an invalid answer…) go through the API's exception handler,
so their bodies are the ones DRF's view gives. Anything else is the DRF view's to
answer, untouched: a body to parse or check with a serializer, a token read from the
database or refused, a session, another format.

The lean view carries the DRF view's attributes (``cls``, ``actions``…), so the URL
routes and drf-spectacular's schema see the DRF view they always did.
"""

import json
from functools import wraps

from django.core.exceptions import SuspiciousOperation
from django.http import HttpResponse
from rest_framework import exceptions, status
from rest_framework.renderers import JSONRenderer

from accounts.authentication import ApiTokenAuthentication
from config.api import WriteThrottle, exception_handler

from . import services
from .api import plain_id, plain_submission, submit_answer
from .serializers import assignment_data

_AUTHENTICATION = ApiTokenAuthentication()
_RENDERER = JSONRenderer()
# What DRF's content negotiation answers with its JSON renderer as is (no indent asked).
_PLAIN_ACCEPT = {"", "*/*", "application/json"}
_JSON_CONTENT_TYPES = {"application/json", "application/json; charset=utf-8", "application/json;charset=utf-8"}
# The headers of DRF's error responses that the exception handler keeps.
_ERROR_HEADERS = ("Retry-After", "WWW-Authenticate")


def _refuse_constant(name):
    raise ValueError(f"{name} is not valid JSON")  # as DRF's strict JSON parser


def _json_body(request):
    """The request's JSON body if the call is one the lean path may answer, else None."""
    meta = request.META
    if request.method != "POST" or meta.get("QUERY_STRING"):
        return None
    if (
        meta.get("HTTP_ACCEPT", "") not in _PLAIN_ACCEPT
        or meta.get("CONTENT_TYPE", "").lower() not in _JSON_CONTENT_TYPES
    ):
        return None
    try:
        return json.loads(request.body.decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, SuspiciousOperation):  # malformed or too large: DRF's view says so
        return None


def _allowed_methods(drf_view):
    # As DRF's viewset view builds its instance: the actions bound, HEAD as GET.
    view = drf_view.cls(**drf_view.initkwargs)
    for method, action in drf_view.actions.items():
        setattr(view, method, getattr(view, action))
    if hasattr(view, "get") and not hasattr(view, "head"):
        view.head = view.get
    return ", ".join(view.allowed_methods)


def _json_response(data, status_code, *, allow, headers=()):
    response = HttpResponse(_RENDERER.render(data), status=status_code, content_type="application/json")
    response["Allow"] = allow
    response["Vary"] = "Accept"
    for name, value in headers:
        response[name] = value
    return response


def lean(drf_view, *, read, answer):
    """``drf_view`` with the lean path in front: ``read(data)`` gives the call's
    arguments from its JSON body (None: not the plain shape, DRF's view answers), and
    ``answer(request, arguments, **url_kwargs)`` gives ``(data, status)``."""
    allow = _allowed_methods(drf_view)

    @wraps(drf_view)
    def view(request, *args, **kwargs):
        data = _json_body(request)
        arguments = read(data) if data is not None else None
        throttle = WriteThrottle()
        counted = _AUTHENTICATION.counted_credentials(request, throttle) if arguments is not None else None
        if counted is None:
            return drf_view(request, *args, **kwargs)
        request.user, request.auth, allowed = counted
        try:
            if not allowed:
                raise exceptions.Throttled(throttle.wait())
            body, status_code = answer(request, arguments, **kwargs)
        except Exception as exc:
            response = exception_handler(exc, {"request": request, "view": None})
            if response is None:
                raise
            headers = [(name, response[name]) for name in _ERROR_HEADERS if response.has_header(name)]
            return _json_response(response.data, response.status_code, allow=allow, headers=headers)
        return _json_response(body, status_code, allow=allow)

    return view


def _hand_out(request, batch_id):
    assignment, created = services.request_next_task(worker=request.user, batch_id=batch_id)
    return assignment_data(assignment), status.HTTP_201_CREATED if created else status.HTTP_200_OK


def _submit(request, data, pk):
    return assignment_data(submit_answer(worker=request.user, data=data, pk=pk)), status.HTTP_200_OK


def hand_out_view(drf_view):
    return lean(drf_view, read=lambda data: plain_id(data, "batch"), answer=_hand_out)


def submit_view(drf_view):
    return lean(drf_view, read=plain_submission, answer=_submit)
