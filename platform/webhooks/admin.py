from django.contrib import admin, messages

from . import services
from .models import Attempt, Delivery, Endpoint


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    list_display = ["url", "description", "events", "active", "disabled_at", "consecutive_failures"]
    readonly_fields = ["consecutive_failures", "disabled_at", "disabled_reason", "created_by", "created_at"]
    actions = ["enable"]

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    @admin.action(description="Enable again (after fixing the receiver)")
    def enable(self, request, queryset):
        for endpoint in queryset:
            services.enable(endpoint=endpoint)
        self.message_user(request, f"{queryset.count()} endpoints enabled; their waiting deliveries go out now.")


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    can_delete = False
    readonly_fields = ["at", "status", "error", "response", "milliseconds"]


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ["event", "endpoint", "state", "attempts", "last_status", "next_attempt_at", "created_at"]
    list_filter = ["state", "event", "endpoint"]
    readonly_fields = [f.name for f in Delivery._meta.fields]
    inlines = [AttemptInline]
    actions = ["redeliver"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Send again")
    def redeliver(self, request, queryset):
        for delivery in queryset:
            services.redeliver(delivery=delivery)
        self.message_user(request, f"{queryset.count()} deliveries queued again.", messages.SUCCESS)
