from django.contrib import admin

from .models import BlockedDomain, ReviewDecision, ReviewItem


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = ["asset", "queue", "risk", "prescreened_at", "claimed_by", "decided_at"]
    list_filter = ["queue"]
    readonly_fields = [f.name for f in ReviewItem._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(ReviewDecision)
class ReviewDecisionAdmin(admin.ModelAdmin):
    """The audit log: read-only, kept after the bytes it speaks of are purged."""

    list_display = ["created_at", "decision", "reviewer", "asset_sha256", "reason"]
    list_filter = ["decision"]
    search_fields = ["asset_sha256", "reason", "reviewer__username"]
    readonly_fields = [f.name for f in ReviewDecision._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(BlockedDomain)
class BlockedDomainAdmin(admin.ModelAdmin):
    list_display = ["domain", "reason", "created_at"]
    search_fields = ["domain", "reason"]
