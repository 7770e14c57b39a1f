from django.contrib import admin
from django.utils.html import format_html

from .models import Candidate, GenerationRun, SiteSample


class SampleInline(admin.TabularInline):
    model = SiteSample
    extra = 0
    can_delete = False
    readonly_fields = ["site", "candidates", "size", "accepted", "rejected", "state", "decided_at"]


@admin.register(GenerationRun)
class GenerationRunAdmin(admin.ModelAdmin):
    """Runs are started from their page (/generation/) or the API; here they are read."""

    list_display = ["__str__", "state", "processed", "total", "candidates", "failures", "page_link", "created_at"]
    list_filter = ["state", "generator"]
    readonly_fields = [f.name for f in GenerationRun._meta.fields]
    inlines = [SampleInline]

    @admin.display(description="page")
    def page_link(self, run):
        return format_html('<a href="/generation/runs/{}/">open</a>', run.pk)

    def has_add_permission(self, request):
        return False


@admin.register(Candidate)
class CandidateAdmin(admin.ModelAdmin):
    list_display = ["qa_pair", "run", "site", "generator", "generator_version", "kind", "decision"]
    list_filter = ["generator", "decision"]
    readonly_fields = [f.name for f in Candidate._meta.fields]

    def has_add_permission(self, request):
        return False
