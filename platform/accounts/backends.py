"""Log-in through the site's form is guarded by django-axes (failed attempts lock the
account and the address); ``authenticate()`` called without a request (scripts, the test
client's ``login``) has no address to count and goes straight to the password check."""

from axes.backends import AxesStandaloneBackend


class LoginGuardBackend(AxesStandaloneBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None  # the next backend (Django's ModelBackend) checks the password
        return super().authenticate(request, username=username, password=password, **kwargs)
