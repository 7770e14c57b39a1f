"""The project's own middleware: ``RejectNulCharacters``, the browsers' middleware that
API calls made with a token pass over (``PassedOverOnTokenCalls``), and the
Content-Security-Policy, fixed for those calls (``CSPMiddleware``)."""

from csp import middleware as csp_middleware
from csp.constants import HEADER as CSP_HEADER
from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.http import HttpResponseBadRequest, JsonResponse
from django.middleware import csrf


class RejectNulCharacters:
    """Refuses requests whose query string carries a NUL character: no text the platform
    looks up may hold one (PostgreSQL refuses it outright), so such a request is malformed
    and gets a 400 instead of reaching a view that would fail. (Bodies are the views' to
    check: reading one here would spool an upload before its size is checked.)"""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in query or "%00" in query:
            return self._refuse(request)
        return self.get_response(request)

    def _refuse(self, request):
        message = "The request holds a NUL character, which no field may contain."
        if request.path.startswith("/api/"):
            return JsonResponse({"error": {"code": "invalid", "message": message, "fields": {}}}, status=400)
        return HttpResponseBadRequest(message)


def is_token_call(request):
    """An API call authenticated by an API token (``Authorization: Token …``): it has no
    use for a session, its user, flash messages, CSRF checks or log-in lockouts, which
    serve browsers signed in with a password."""
    return request.path_info.startswith("/api/") and request.META.get("HTTP_AUTHORIZATION", "")[:6].lower() == "token "


class PassedOverOnTokenCalls:
    """Mixed into a browser's middleware: token calls pass it over. A rater's script asks
    for work and submits it hundreds of times a minute, and each layer it skips is time
    off every call. (Subclasses of the originals, so that Django's and axes's checks
    still find them.)"""

    def __call__(self, request):
        if is_token_call(request):
            return self.get_response(request)
        return super().__call__(request)


class SessionMiddleware(PassedOverOnTokenCalls, sessions.SessionMiddleware):
    pass


class CsrfViewMiddleware(PassedOverOnTokenCalls, csrf.CsrfViewMiddleware):
    def process_view(self, request, callback, callback_args, callback_kwargs):
        if is_token_call(request):
            return None
        return super().process_view(request, callback, callback_args, callback_kwargs)


class AuthenticationMiddleware(PassedOverOnTokenCalls, auth.AuthenticationMiddleware):
    pass


class MessageMiddleware(PassedOverOnTokenCalls, messages.MessageMiddleware):
    pass


# A token call's answer is data for a script, never a page: nothing in it may load or run.
TOKEN_CALL_POLICY = "default-src 'none'; frame-ancestors 'none'"


class CSPMiddleware(csp_middleware.CSPMiddleware):
    """django-csp's middleware, with token calls answered under ``TOKEN_CALL_POLICY``
    instead of the pages' policy built anew for every response (a nonce, the settings'
    directives): the strictest policy, and none of that work on every hand-out."""

    def __call__(self, request):
        if is_token_call(request):
            response = self.get_response(request)
            if CSP_HEADER not in response:
                response[CSP_HEADER] = TOKEN_CALL_POLICY
            return response
        return super().__call__(request)
