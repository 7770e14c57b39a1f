"""Conventions shared by every API endpoint: the error body, pagination, throttling."""

import time

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle
from rest_framework.views import exception_handler as drf_exception_handler

from config.errors import DomainError, NotFound


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
        allowed, period = self._rate()
        now = time.time()
        who = request.user.pk if request.user and request.user.is_authenticated else self.get_ident(request)
        key = f"trailmark:throttle:{self.scope}:{who}:{int(now // period)}"
        self.wait_seconds = period - now % period
        return _count(key, period) <= allowed

    def wait(self):
        return self.wait_seconds

    def _rate(self):
        number, _, unit = self.THROTTLE_RATES[self.scope].partition("/")
        return int(number), self.PERIODS[unit[0]]


_redis_clients = {}


def _redis_client(cache):
    # Django's Redis cache builds a new client object (and its table of response
    # callbacks) for every call; one per process and server does, pooled and thread-safe.
    server = cache._cache._servers[0]
    if server not in _redis_clients:
        _redis_clients[server] = cache._cache.get_client(write=True)
    return _redis_clients[server]


def _count(key, period):
    """Adds one to the counter ``key`` (kept for one window) and returns it."""
    cache = caches["default"]
    if isinstance(cache, RedisCache):
        pipe = _redis_client(cache).pipeline(transaction=False)
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
