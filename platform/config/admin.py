"""Helpers shared by the Django admin pages of every app."""

from django.contrib import admin, messages

from config.errors import DomainError


def run_on_each(modeladmin, request, objects, change, done):
    """Applies ``change`` to each object; refusals are listed, the rest reported as ``done``."""
    count = 0
    for obj in objects:
        try:
            change(obj)
            count += 1
        except DomainError as refusal:
            modeladmin.message_user(request, f"{obj}: {refusal.message}", messages.WARNING)
    modeladmin.message_user(request, f"{count} {done}.")


class ReadOnlyAdmin(admin.ModelAdmin):
    """For records that only their own workflow writes: staff look, nobody edits."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False
