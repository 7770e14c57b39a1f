"""Log-in through the site's form is guarded by django-axes (failed attempts lock the
account and the address); ``authenticate()`` called without a request (scripts, the test
client's ``login``) has no address to count and goes straight to the password check."""

from axes.backends import AxesStandaloneBackend
from django.contrib.auth.backends import BaseBackend

from .models import User


class LoginGuardBackend(AxesStandaloneBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None  # the next backend (Django's ModelBackend) checks the password
        return super().authenticate(request, username=username, password=password, **kwargs)


class ProviderLinkBackend(BaseBackend):
    """Logs in the accounts of workers who arrive from a recruitment provider (the
    ``providers`` app vouches for them and calls ``login()`` with this backend). It never
    checks a password: ``authenticate()`` always declines, so the log-in form and
    django-axes are untouched; it only loads the user of a session it started."""

    def authenticate(self, request, **credentials):
        return None

    def get_user(self, user_id):
        return User.objects.filter(pk=user_id, is_active=True).first()
