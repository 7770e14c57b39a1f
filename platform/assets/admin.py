from django.contrib import admin

from .models import Asset, AssetUpload


class AssetUploadInline(admin.TabularInline):
    model = AssetUpload
    extra = 0
    readonly_fields = ["uploaded_by", "uploaded_at"]
    can_delete = False


@admin.register(Asset)
class AssetAdmin(admin.ModelAdmin):
    """Read-only: assets change through assets.services (and, later, the review queues)."""

    list_display = ["id", "format", "width", "height", "byte_size", "review_state", "created_at"]
    list_filter = ["review_state", "format"]
    search_fields = ["sha256", "phash"]
    inlines = [AssetUploadInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
