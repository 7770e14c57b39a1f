import contextlib
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from rest_framework import authentication, exceptions

from .models import ApiToken, digest_token

# Writing last_used_at on every call would turn each read into a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenFailures(exceptions.Throttled):
    default_detail = "Too many failed API token checks from this address. Wait before trying again."
    default_code = "too_many_failures"


class ApiTokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` against the user's named, revocable API tokens."""

    keyword = "Token"

    def authenticate(self, request):
        address = request.META.get("REMOTE_ADDR", "")
        key = f"trailmark:token-failures:{address}"
        if (cache.get(key) or 0) >= settings.TOKEN_FAILURE_LIMIT:
            raise TokenFailures(settings.TOKEN_FAILURE_WINDOW_SECONDS)
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            # Guessing tokens costs a wait: failures per address are counted for a window.
            if not cache.add(key, 1, timeout=settings.TOKEN_FAILURE_WINDOW_SECONDS):
                with contextlib.suppress(ValueError):  # the window ended meanwhile
                    cache.incr(key)
            raise

    def authenticate_credentials(self, key):
        try:
            token = ApiToken.objects.select_related("user").get(digest=digest_token(key))
        except ApiToken.DoesNotExist:
            token = None
        if token is None or not token.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This account is disabled.")
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token
