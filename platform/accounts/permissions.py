"""Who may do what, by role: DRF permission classes for the API and one decorator for
pages. Each role can do everything the roles below it can (``User.has_role``)."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from rest_framework import permissions

from .models import Role

MESSAGES = {
    Role.RATER: "Sign in to do this.",
    Role.VALIDATOR: "Only validators, reviewers and admins can do this.",
    Role.REVIEWER: "Only reviewers and admins can do this.",
    Role.ADMIN: "Only admins can do this.",
}


class HasRole(permissions.BasePermission):
    """Signed in with ``role`` or a role above it. Subclass, or use ``requires``."""

    role = Role.RATER
    message = MESSAGES[Role.RATER]

    def has_permission(self, request, view):
        return bool(request.user and request.user.is_authenticated and request.user.has_role(self.role))


class IsValidator(HasRole):
    role, message = Role.VALIDATOR, MESSAGES[Role.VALIDATOR]


class IsReviewer(HasRole):
    role, message = Role.REVIEWER, MESSAGES[Role.REVIEWER]


class IsAdmin(HasRole):
    role, message = Role.ADMIN, MESSAGES[Role.ADMIN]


def requires(role, message=None):
    """A permission class for ``role`` with a message that says what is refused, e.g.
    ``requires(Role.ADMIN, "Only admins can manage the pools.")``."""
    return type(f"Requires{Role(role).name.title()}", (HasRole,), {"role": role, "message": message or MESSAGES[role]})


def role_required(role, message=None):
    """Page decorator: signs the visitor in first, then refuses (403, with ``message``)
    anyone without ``role``."""

    def decorate(view):
        @wraps(view)
        def checked(request, *args, **kwargs):
            if not request.user.has_role(role):
                raise PermissionDenied(message or MESSAGES[role])
            return view(request, *args, **kwargs)

        return login_required(checked)

    return decorate
