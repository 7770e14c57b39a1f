"""Conventions shared by every API endpoint: the error body, pagination, throttling."""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.throttling import UserRateThrottle
from rest_framework.views import exception_handler as drf_exception_handler

from config.errors import DomainError


class Pagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 500


class WriteThrottle(UserRateThrottle):
    """Throttles writes per user (or per address for anonymous calls); reads are free."""

    scope = "writes"

    def allow_request(self, request, view):
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        return super().allow_request(request, view)


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
        detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        fields = {
            key: [str(item) for item in (value if isinstance(value, list) else [value])]
            for key, value in detail.items()
        }
        code = "invalid"
        message = "The request has invalid fields: " + ", ".join(sorted(fields)) + "."
    else:
        code = getattr(exc, "code_override", None) or _codes(exc.get_codes())
        message = _flatten(exc.detail)
    body = {"error": {"code": code, "message": message, "fields": fields}}
    return Response(body, status=response.status_code, headers=_kept_headers(response))


def _kept_headers(response):
    return {key: value for key, value in response.items() if key in ("Retry-After", "WWW-Authenticate", "Allow")}
