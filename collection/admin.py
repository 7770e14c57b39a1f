from django import forms
from django.contrib import admin, messages
from django.shortcuts import redirect, render
from django.urls import path

from corpus.models import Site

from . import pools
from .catalogue import import_sites
from .models import PoolImport


class SitesCsvForm(forms.Form):
    file = forms.FileField(help_text="Columns: category, name, url (and optionally notes). UTF-8.")


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    list_display = ["name", "category", "url", "active"]
    list_filter = ["category", "active"]
    search_fields = ["name", "url", "host"]
    change_list_template = "admin/corpus/site/change_list.html"

    def get_urls(self):
        return [
            path("import/", self.admin_site.admin_view(self.import_csv), name="corpus_site_import"),
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
                    return redirect("admin:corpus_site_changelist")
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "report": report,
            "title": "Import sites from CSV",
            "opts": self.model._meta,
        }
        return render(request, "admin/corpus/site/import.html", context)


class PoolImportForm(forms.ModelForm):
    class Meta:
        model = PoolImport
        fields = ["kind", "source"]
        help_texts = {
            "source": "A manifest (CSV or JSON Lines) or its folder, under the import folder "
            "(POOL_IMPORT_ROOT), or s3://bucket/prefix/.",
        }

    def clean(self):
        data = super().clean()
        if data.get("kind") and data.get("source"):
            try:
                pools.open_source(data["kind"], data["source"])
            except pools.SourceError as error:
                raise forms.ValidationError({"source": error.message}) from None
        return data


@admin.register(PoolImport)
class PoolImportAdmin(admin.ModelAdmin):
    """Pool imports and their progress, with the line-numbered report of bad rows. "Add"
    starts one as a background job; so do ``manage.py import_pool`` and the API."""

    list_display = ["id", "kind", "source", "state", "progress", "created_count", "existing_count", "error_count"]
    list_filter = ["kind", "state"]

    @admin.display(description="Progress")
    def progress(self, job):
        return f"{job.processed} / {job.total if job.total is not None else '?'}"

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = PoolImportForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        return ["kind", "source"] if obj is None else [f.name for f in PoolImport._meta.fields]

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else [f.name for f in PoolImport._meta.fields]

    def save_model(self, request, obj, form, change):
        job = pools.start_import(kind=obj.kind, source=obj.source, user=request.user)
        obj.pk = job.pk

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)
