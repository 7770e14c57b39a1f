from datetime import timedelta

from django.utils import timezone
from rest_framework import authentication, exceptions

from .models import ApiToken, digest_token

# Writing last_used_at on every call would turn each read into a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class ApiTokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` against the user's named, revocable API tokens."""

    keyword = "Token"

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
