from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import ApiToken, Qualification, RaterProfile, User


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


@admin.register(RaterProfile)
class RaterProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "locale", "approved_count", "rejected_count", "blocked"]
    list_filter = ["blocked", "locale"]
    search_fields = ["user__username"]
    readonly_fields = ["approved_count", "rejected_count", "blocked", "blocked_reason", "blocked_at"]
    # Blocking is the work engine's (``hits.admin`` adds the actions).


@admin.register(Qualification)
class QualificationAdmin(admin.ModelAdmin):
    list_display = ["slug", "name"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "prefix", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["digest", "prefix", "created_at", "last_used_at"]
    search_fields = ["user__username", "name"]
