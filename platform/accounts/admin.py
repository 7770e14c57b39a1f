from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from config.admin import run_on_each

from .models import ApiToken, Qualification, QualificationGrant, RaterProfile, User


class RaterProfileInline(admin.StackedInline):
    model = RaterProfile
    can_delete = False
    readonly_fields = ["approved_count", "rejected_count", "blocked_at"]


@admin.register(User)
class TrailmarkUserAdmin(UserAdmin):
    list_display = ["username", "email", "role", "is_active", "date_joined"]
    list_filter = ["role", "is_active"]
    fieldsets = UserAdmin.fieldsets + (("Trailmark", {"fields": ["role"]}),)
    add_fieldsets = UserAdmin.add_fieldsets + (("Trailmark", {"fields": ["role"]}),)
    inlines = [RaterProfileInline]

    def get_inlines(self, request, obj):
        # A new user's profile is made when the user is saved.
        return self.inlines if obj else []


class BlockForm(admin.helpers.ActionForm):
    reason = forms.CharField(required=False, label="Reason (required to block; the worker sees it)")


@admin.register(RaterProfile)
class RaterProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "locale", "approved_count", "rejected_count", "blocked"]
    list_filter = ["blocked", "locale"]
    search_fields = ["user__username"]
    readonly_fields = ["approved_count", "rejected_count", "blocked", "blocked_reason", "blocked_at"]
    action_form = BlockForm
    actions = ["block", "unblock"]

    @admin.action(description="Block the selected workers (with the reason above)")
    def block(self, request, queryset):
        from hits.services import block_worker

        run_on_each(
            self,
            request,
            queryset.select_related("user"),
            lambda p: block_worker(worker=p.user, actor=request.user, reason=request.POST.get("reason", "")),
            "blocked",
        )

    @admin.action(description="Unblock the selected workers")
    def unblock(self, request, queryset):
        from hits.services import unblock_worker

        run_on_each(
            self,
            request,
            queryset.select_related("user"),
            lambda p: unblock_worker(worker=p.user, actor=request.user),
            "unblocked",
        )


@admin.register(Qualification)
class QualificationAdmin(admin.ModelAdmin):
    list_display = ["slug", "name"]
    prepopulated_fields = {"slug": ["name"]}


class RevokeForm(admin.helpers.ActionForm):
    reason = forms.CharField(required=False, label="Reason (required to revoke; the worker sees it)")


@admin.register(QualificationGrant)
class QualificationGrantAdmin(admin.ModelAdmin):
    """Granting here (Add) and revoking (the action) go through the qualification
    service, which keeps each worker's qualification history."""

    list_display = ["user", "qualification", "granted_at", "granted_by", "note"]
    list_filter = ["qualification"]
    search_fields = ["user__username"]
    autocomplete_fields = ["user"]
    fields = ["user", "qualification", "note"]
    action_form = RevokeForm
    actions = ["revoke"]

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        from validation.qualification import grant

        reason = obj.note.strip() or f"Granted by {request.user.username}."
        saved = grant(worker=obj.user, qualification=obj.qualification, actor=request.user, reason=reason)
        obj.pk = saved.pk

    @admin.action(description="Revoke the selected qualifications (with the reason above)")
    def revoke(self, request, queryset):
        from validation.qualification import revoke

        run_on_each(
            self,
            request,
            queryset.select_related("user", "qualification"),
            lambda g: revoke(
                worker=g.user, qualification=g.qualification, actor=request.user, reason=request.POST.get("reason", "")
            ),
            "revoked",
        )


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "prefix", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["digest", "prefix", "created_at", "last_used_at"]
    search_fields = ["user__username", "name"]
