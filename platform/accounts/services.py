"""Every change to accounts goes through one of these functions.

Qualifications are granted and revoked only by ``validation.services`` (``grant``,
``revoke`` and passing a test), which records each change in the worker's history.
"""

import secrets

from django.db import transaction
from django.utils import timezone

from .models import ApiToken, RaterProfile, Role, User, digest_token


@transaction.atomic
def create_user(*, username, password, email="", role=Role.RATER, locale="en-US"):
    user = User(username=username, email=email, role=role)
    user.set_password(password)
    user.save()
    RaterProfile.objects.filter(user=user).update(locale=locale)
    return user


def ensure_profile(*, user):
    """Users made outside ``create_user`` (``createsuperuser``) get a profile on first use."""
    profile, _ = RaterProfile.objects.get_or_create(user=user)
    return profile


def set_locale(*, user, locale):
    """Where the worker is, for eligibility rules that ask for a locale."""
    profile = ensure_profile(user=user)
    profile.locale = locale
    profile.save(update_fields=["locale"])
    return profile


def create_api_token(*, user, name):
    """Returns ``(token, key)``; the key is never stored and cannot be shown again."""
    key = secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name.strip() or "API token", digest=digest_token(key), prefix=key[:8]
    )
    return token, key


def revoke_api_token(*, token):
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token
