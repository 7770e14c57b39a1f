"""Who may use the console: staff (admins are staff). Anyone else signed in gets the
site's 403 page, which says why; a visitor is sent to log in first."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

REFUSAL = "The console is for staff only. Ask an admin if your work needs it."


def staff_only(view):
    @wraps(view)
    def checked(request, *args, **kwargs):
        if not request.user.is_staff:
            raise PermissionDenied(REFUSAL)
        return view(request, *args, **kwargs)

    return login_required(checked)
