"""Conventions shared by every API endpoint: the error body (and its place in the schema),
pagination, throttling."""

import logging
import time
from typing import NamedTuple

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from django.views import defaults
from redis.exceptions import RedisError
from rest_framework import exceptions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle
from rest_framework.views import exception_handler as drf_exception_handler

from config.cache import redis_client
from config.errors import DomainError, NotFound

logger = logging.getLogger(__name__)


class Pagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 500


class WriteThrottle(BaseThrottle):
    """Limits writes per user (or per address for anonymous calls); reads are free.

    A fixed-window counter: one Redis round trip per write, whatever the rate, where
    DRF's sliding-window throttles read and rewrite a list of every recent timestamp.
    """

    scope = "writes"
    THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
    PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}

    def allow_request(self, request, view):
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        who = request.user.pk if request.user and request.user.is_authenticated else self.get_ident(request)
        window = self.window()
        try:
            return _count(f"{window.prefix}{who}:{window.number}", window.keep_seconds) <= window.allowed
        except RedisError as error:
            # Writes never depend on Redis being up: without the counter, let it through.
            global THROTTLE_FAILURES
            THROTTLE_FAILURES += 1
            logger.warning(
                "Write throttle skipped, Redis unreachable (%s failures so far): %s", THROTTLE_FAILURES, error
            )
            return True

    def window(self):
        """This moment's window: a counter's key is ``f"{prefix}{who}:{number}"``, kept
        ``keep_seconds``; more than ``allowed`` writes in it are refused, for
        ``self.wait()`` seconds."""
        allowed, period = self._rate()
        now = time.time()
        self.wait_seconds = period - now % period
        return Window(f"trailmark:throttle:{self.scope}:", int(now // period), period + 1, allowed)

    def wait(self):
        return self.wait_seconds

    def _rate(self):
        number, _, unit = self.THROTTLE_RATES[self.scope].partition("/")
        return int(number), self.PERIODS[unit[0]]


class Window(NamedTuple):
    prefix: str
    number: int
    keep_seconds: int
    allowed: int


# How often the throttle let a write through because Redis could not be reached.
THROTTLE_FAILURES = 0


def _count(key, period):
    """Adds one to the counter ``key`` (kept for one window) and returns it."""
    cache = caches["default"]
    if isinstance(cache, RedisCache):
        pipe = redis_client(cache).pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, period + 1, nx=True)
        return pipe.execute()[0]
    if cache.add(key, 1, timeout=period + 1):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # the window ended between the two calls
        cache.add(key, 1, timeout=period + 1)
        return 1


def url_id(pk, *, what):
    """The id from a URL as a number. The routes admit any text, and an id that is not a
    number names nothing: a 404, like an id that does not exist."""
    try:
        return int(pk)
    except ValueError:
        raise NotFound(f"There is no {what} {pk}.") from None


def validated(serializer_class, data):
    """``data`` checked by ``serializer_class``; a 400 with field errors otherwise."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class Conflict(exceptions.APIException):
    """The request is valid but the resource's state does not allow it (HTTP 409)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The resource is not in a state that allows this."


def _flatten(detail):
    if isinstance(detail, list):
        return " ".join(_flatten(item) for item in detail)
    if isinstance(detail, dict):
        return " ".join(f"{key}: {_flatten(value)}" for key, value in detail.items())
    return str(detail)


def _codes(codes):
    if isinstance(codes, list) and codes:
        return _codes(codes[0])
    if isinstance(codes, dict) and codes:
        return _codes(next(iter(codes.values())))
    return codes if isinstance(codes, str) else "error"


def field_errors(detail, prefix=""):
    """DRF's nested error detail as ``{"dotted.field.path": [messages]}``.

    A list serializer's errors become ``screens.1.url``; errors about a whole list or
    object stay on its own name.
    """
    if not isinstance(detail, dict):
        detail = {"non_field_errors": detail}
    flat = {}
    for key, value in detail.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(field_errors(value, prefix=f"{name}."))
        elif isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
            for index, item in enumerate(value):
                if item:
                    flat.update(field_errors(item if isinstance(item, dict) else {"": item}, prefix=f"{name}.{index}."))
        else:
            flat[name] = [str(item) for item in (value if isinstance(value, list) else [value])]
    return {key.rstrip("."): messages for key, messages in flat.items()}


def exception_handler(exc, context):
    """Renders every API error as ``{"error": {"code", "message", "fields"}}``."""
    if isinstance(exc, DomainError):
        return Response({"error": {"code": exc.code, "message": exc.message, "fields": {}}}, status=exc.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None

    fields = {}
    if isinstance(exc, exceptions.ValidationError):
        fields = field_errors(exc.detail)
        code = "invalid"
        message = "The request has invalid fields: " + ", ".join(sorted(fields)) + "."
    else:
        code = getattr(exc, "code_override", None) or _codes(exc.get_codes())
        message = _flatten(exc.detail)
    body = {"error": {"code": code, "message": message, "fields": fields}}
    return Response(body, status=response.status_code, headers=_kept_headers(response))


def _kept_headers(response):
    return {key: value for key, value in response.items() if key in ("Retry-After", "WWW-Authenticate", "Allow")}


# --- Errors outside the views, and their place in the schema --------------------------------


def error_page(request, exception=None, *, status_code, code, message, page):
    """Django's own error pages (a URL no route matches, a request it refuses, a crash)
    with the API's error body for addresses under ``/api/``, so an API client always
    reads JSON; the site's pages keep ``page``, Django's default view."""
    if not request.path.startswith("/api/"):
        return page(request, exception) if exception is not None else page(request)
    return JsonResponse({"error": {"code": code, "message": message, "fields": {}}}, status=status_code)


def api_not_found(request, exception=None):
    return error_page(
        request, exception, status_code=404, code="not_found", message=f"There is nothing at {request.path}.",
        page=defaults.page_not_found,
    )  # fmt: skip


def api_bad_request(request, exception=None):
    return error_page(
        request, exception, status_code=400, code="bad_request",
        message="The request cannot be read: a malformed body, or more fields or bytes than the server reads.",
        page=defaults.bad_request,
    )  # fmt: skip


def api_server_error(request):
    return error_page(
        request, status_code=500, code="server_error",
        message="Something went wrong on our side; it is logged. Try again.",
        page=defaults.server_error,
    )  # fmt: skip


ERROR_SCHEMA = {
    "type": "object",
    "description": "Every API error has this body.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "Stable, for programs: `invalid`, `not_found`, `throttled`…"},
                "message": {"type": "string", "description": "What went wrong and what to do, for people."},
                "fields": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": {"type": "string"}},
                    "description": "For `invalid`: the problems of each field, by dotted path (`screens.1.url`).",
                },
            },
            "required": ["code", "message", "fields"],
        }
    },
    "required": ["error"],
}

ERROR_DESCRIPTIONS = {
    400: "The request is invalid; `fields` says what to fix.",
    401: "No valid credentials: send `Authorization: Token <key>`.",
    403: "Your role, or whose the resource is, does not allow this.",
    404: "There is no such resource, or it is not yours to see.",
    409: "The resource's state does not allow this now.",
    414: "The address is longer than the server reads (4094 bytes): the server's own page, not JSON.",
    415: "The body's content type is not one this operation reads.",
    429: "Too many writes, or failed token checks from your address: retry after `Retry-After` seconds.",
}

WRITES = {"post", "put", "patch", "delete"}


def error_statuses(method, operation):
    """The error statuses an operation can answer with, read from its schema: every
    signed-in operation can be refused (401, 403) or throttled (429: writes, and failed
    token checks); anything naming a resource (a path or query parameter, a page number,
    a body) can name a missing one (404); a query filter or a body can be invalid (400);
    a write can meet a state that forbids it (409); a body can come in a content type
    the operation does not read (415); and gunicorn refuses an address longer than it
    reads (414) before the application sees it."""
    parameters = operation.get("parameters", [])
    query = {p["name"] for p in parameters if p["in"] == "query"}
    write = method in WRITES
    statuses = set()
    if {} not in operation.get("security", [{}]):
        statuses |= {401, 403, 429}
    if write or query:  # any query string may be malformed (a NUL: config/middleware.py)
        statuses.add(400)
    if write or query or any(p["in"] == "path" for p in parameters):
        statuses.add(404)
    if parameters:
        statuses.add(414)
    if write:
        statuses.add(409)
    if "requestBody" in operation:
        statuses.add(415)
    return sorted(statuses)


def document_errors(result, generator, request, public):
    """drf-spectacular postprocessing hook: adds the error responses of each operation
    (``error_statuses``) with the error body, leaving any an operation declares itself."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    body = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for status_code in error_statuses(method, operation):
                response = {"description": ERROR_DESCRIPTIONS[status_code]}
                if status_code != 414:
                    response["content"] = body
                if status_code == 429:
                    response["headers"] = {
                        "Retry-After": {
                            "schema": {"type": "integer"},
                            "description": "Seconds to wait before retrying.",
                        }
                    }
                responses.setdefault(str(status_code), response)
    return result
