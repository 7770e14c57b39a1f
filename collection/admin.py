from django import forms
from django.contrib import admin, messages
from django.shortcuts import redirect, render
from django.urls import path

from . import pools
from .catalogue import import_sites
from .models import Category, Evidence, ImageGroup, ImageSource, ImageTriple, PoolImport, QAPair, Screen, Site, Snippet


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
    raw_id_fields = ["screen", "step", "image", "snippet"]


@admin.register(QAPair)
class QAPairAdmin(admin.ModelAdmin):
    list_display = [
        "id", "question", "answer", "family", "split_kind", "question_category", "state", "author", "created_at",
    ]  # fmt: skip
    list_filter = ["family", "split_kind", "state", "question_category", "question_category_manual", "category"]
    search_fields = ["question", "answer"]
    raw_id_fields = ["author", "assignment", "trace", "image_group"]
    inlines = [EvidenceInline]
    actions = ["collect_reference_answers"]

    @admin.action(description="Collect five reference answers for the selected accepted pairs (test candidates)")
    def collect_reference_answers(self, request, queryset):
        from config.errors import DomainError
        from validation.references import choose_for_references

        try:
            made = choose_for_references(qa_pairs=list(queryset), actor=request.user)
        except DomainError as refusal:
            self.message_user(request, refusal.message, messages.ERROR)
            return
        skipped = queryset.count() - len(made)
        note = f"; {skipped} skipped (not accepted, or already chosen)" if skipped else ""
        self.message_user(request, f"{len(made)} pairs now collect reference answers{note}.")

    def save_model(self, request, obj, form, change):
        # A category set by staff sticks: the categorisation job leaves it alone.
        if "question_category" in form.changed_data:
            obj.question_category_manual = True
        super().save_model(request, obj, form, change)


@admin.register(ImageSource)
class ImageSourceAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "topic", "review_state", "created_at"]
    list_filter = ["topic", "asset__review_state"]
    search_fields = ["title", "description", "topic"]
    raw_id_fields = ["asset", "imported_by"]

    @admin.display(description="Review")
    def review_state(self, image):
        return image.asset.get_review_state_display()

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("asset")


@admin.register(Snippet)
class SnippetAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "topic", "created_at"]
    list_filter = ["topic"]
    search_fields = ["title", "text"]
    readonly_fields = ["digest"]
    raw_id_fields = ["imported_by"]


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


@admin.register(ImageTriple)
class ImageTripleAdmin(admin.ModelAdmin):
    list_display = ["id", "label", "topic", "author", "group", "created_at"]
    list_filter = [("group", admin.EmptyFieldListFilter)]
    search_fields = ["label", "topic"]
    raw_id_fields = ["assignment", "author", "group", "images"]


@admin.register(ImageGroup)
class ImageGroupAdmin(admin.ModelAdmin):
    list_display = ["id", "label", "similarity", "task", "created_at"]
    search_fields = ["label"]
    raw_id_fields = ["task"]


@admin.register(Screen)
class ScreenAdmin(admin.ModelAdmin):
    list_display = ["id", "url", "site", "category", "author", "captured_at"]
    list_filter = ["category"]
    search_fields = ["url", "title"]
    raw_id_fields = ["asset", "author", "assignment", "site"]
