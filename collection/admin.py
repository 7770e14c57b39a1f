from django import forms
from django.contrib import admin, messages
from django.shortcuts import redirect, render
from django.urls import path

from .catalogue import import_sites
from .models import Category, Evidence, QAPair, Screen, Site


class SitesCsvForm(forms.Form):
    file = forms.FileField(help_text="Columns: category, name, url (and optionally notes). UTF-8.")


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "position"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    list_display = ["name", "category", "url", "active"]
    list_filter = ["category", "active"]
    search_fields = ["name", "url", "host"]
    change_list_template = "admin/collection/site/change_list.html"

    def get_urls(self):
        return [
            path("import/", self.admin_site.admin_view(self.import_csv), name="collection_site_import"),
            *super().get_urls(),
        ]

    def import_csv(self, request):
        form = SitesCsvForm(request.POST or None, request.FILES or None)
        report = None
        if request.method == "POST" and form.is_valid():
            try:
                text = form.cleaned_data["file"].read().decode("utf-8")
            except UnicodeDecodeError:
                form.add_error("file", "The file is not UTF-8 text. Save it as CSV (UTF-8) and try again.")
            else:
                report = import_sites(text=text)
                if report.ok:
                    self.message_user(
                        request, f"{report.created} sites added, {report.updated} updated.", messages.SUCCESS
                    )
                    return redirect("admin:collection_site_changelist")
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "report": report,
            "title": "Import sites from CSV",
            "opts": self.model._meta,
        }
        return render(request, "admin/collection/site/import.html", context)


class EvidenceInline(admin.TabularInline):
    model = Evidence
    extra = 0
    raw_id_fields = ["screen"]


@admin.register(QAPair)
class QAPairAdmin(admin.ModelAdmin):
    list_display = ["id", "question", "answer", "family", "split_kind", "state", "author", "created_at"]
    list_filter = ["family", "split_kind", "state", "category"]
    search_fields = ["question", "answer"]
    raw_id_fields = ["author", "assignment"]
    inlines = [EvidenceInline]


@admin.register(Screen)
class ScreenAdmin(admin.ModelAdmin):
    list_display = ["id", "url", "site", "category", "author", "captured_at"]
    list_filter = ["category"]
    search_fields = ["url", "title"]
    raw_id_fields = ["asset", "author", "assignment", "site"]
