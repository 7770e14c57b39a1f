from django.conf import settings
from django.contrib import admin, messages

from config.errors import DomainError
from hits.admin import BatchAdmin

from . import services
from .models import ProviderCall, ProviderSession, ProviderWorker, PublishedHit


@admin.register(ProviderWorker)
class ProviderWorkerAdmin(admin.ModelAdmin):
    list_display = ["provider", "external_id", "user", "created_at"]
    list_filter = ["provider"]
    search_fields = ["external_id", "user__username"]
    readonly_fields = ["provider", "external_id", "user", "created_at"]


@admin.register(ProviderSession)
class ProviderSessionAdmin(admin.ModelAdmin):
    list_display = ["provider", "external_id", "batch", "worker", "state", "decision", "started_at", "ended_at"]
    list_filter = ["provider", "state", "decision"]
    search_fields = ["external_id", "study_id", "worker__external_id"]
    readonly_fields = [f.name for f in ProviderSession._meta.fields if f.name != "token"]
    exclude = ["token"]


@admin.register(PublishedHit)
class PublishedHitAdmin(admin.ModelAdmin):
    list_display = ["hit_id", "batch", "max_assignments", "created_at"]
    readonly_fields = [f.name for f in PublishedHit._meta.fields]


@admin.register(ProviderCall)
class ProviderCallAdmin(admin.ModelAdmin):
    list_display = ["provider", "purpose", "method", "path", "state", "status", "attempts", "created_at", "sent_at"]
    list_filter = ["provider", "purpose", "state"]
    readonly_fields = [f.name for f in ProviderCall._meta.fields]
    actions = ["send_again"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Send again (failed calls)")
    def send_again(self, request, queryset):
        sent = sum(services.retry_call(call=call) for call in queryset)
        self.message_user(request, f"{sent} failed calls queued again.", messages.SUCCESS)


@admin.action(description="Publish on the batch's recruitment provider (MTurk HITs)")
def publish(modeladmin, request, queryset):
    site_url = settings.PROVIDERS_SITE_URL or request.build_absolute_uri("/")
    for batch in queryset:
        try:
            calls = services.publish(batch=batch, site_url=site_url)
        except DomainError as refusal:
            modeladmin.message_user(request, f"{batch}: {refusal.message}", messages.ERROR)
        else:
            modeladmin.message_user(request, f"{batch}: {len(calls)} HITs being published.", messages.SUCCESS)


# The batch page gains the action from here, so that hits never learns of providers.
BatchAdmin.actions = [*(BatchAdmin.actions or []), publish]
