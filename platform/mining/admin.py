"""Mining in the admin: start a run (the add form), watch its progress, retry what failed;
browse distractors; close reasoning-check disagreements."""

from django import forms
from django.contrib import admin, messages
from django.utils.html import format_html

from config.errors import DomainError
from corpus.models import QAPair

from . import services
from .models import Distractor, MiningChunk, MiningRun, ReasoningCheck


class StartRunForm(forms.ModelForm):
    qa_pairs = forms.CharField(
        required=False, help_text="For “Chosen QA pairs”: their ids, separated by commas or spaces."
    )

    class Meta:
        model = MiningRun
        fields = ["job", "scope", "batch", "chunk_size"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["chunk_size"].required = False

    def clean_qa_pairs(self):
        try:
            ids = {int(value) for value in self.cleaned_data["qa_pairs"].replace(",", " ").split()}
        except ValueError:
            raise forms.ValidationError("Give QA pair ids as whole numbers.") from None
        unknown = ids - set(QAPair.objects.filter(pk__in=ids).values_list("pk", flat=True))
        if unknown:
            raise forms.ValidationError(f"There are no QA pairs {', '.join(map(str, sorted(unknown)))}.")
        return sorted(ids)

    def clean(self):
        data = super().clean()
        if data.get("scope") == MiningRun.Scope.BATCH and not data.get("batch"):
            self.add_error("batch", "Choose the batch to run over.")
        if data.get("scope") == MiningRun.Scope.QA_PAIRS and not data.get("qa_pairs"):
            self.add_error("qa_pairs", "List the QA pairs to run over.")
        return data


class MiningChunkInline(admin.TabularInline):
    model = MiningChunk
    fields = ["number", "state", "attempts", "changed", "error", "started_at", "finished_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(MiningRun)
class MiningRunAdmin(admin.ModelAdmin):
    list_display = ["id", "job", "scope", "state", "progress_bar", "changed", "created_by", "created_at", "finished_at"]
    list_filter = ["job", "state"]
    inlines = [MiningChunkInline]
    actions = ["retry_failed"]

    @admin.display(description="progress")
    def progress_bar(self, run):
        return format_html(
            '<progress value="{}" max="{}"></progress> {} / {}', run.processed, run.total or 1, run.processed, run.total
        )

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = StartRunForm
        return super().get_form(request, obj, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return [field.name for field in MiningRun._meta.fields] + ["progress_bar"]

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["job", "scope", "batch", "qa_pairs", "chunk_size"]
        return ["job", "scope", "batch", "qa_pair_ids", "state", "progress_bar", "changed", "message",
                "created_by", "created_at", "started_at", "finished_at"]  # fmt: skip

    def get_inlines(self, request, obj):
        return self.inlines if obj else []

    def save_model(self, request, obj, form, change):
        if change:
            return
        data = form.cleaned_data
        run = services.start_run(
            job=data["job"],
            scope=data["scope"],
            batch=data.get("batch"),
            qa_pair_ids=data.get("qa_pairs") or (),
            chunk_size=data.get("chunk_size"),
            created_by=request.user,
        )
        obj.pk = run.pk
        obj.refresh_from_db()

    def save_related(self, request, form, formsets, change):
        if change:
            super().save_related(request, form, formsets, change)

    @admin.action(description="Retry the failed chunks of the selected runs")
    def retry_failed(self, request, queryset):
        retried = 0
        for run in queryset:
            try:
                services.retry_failed_chunks(run=run)
                retried += 1
            except DomainError as error:
                self.message_user(request, f"Run {run.pk}: {error.message}", messages.WARNING)
        if retried:
            self.message_user(request, f"Retrying the failed chunks of {retried} run(s).")


@admin.register(Distractor)
class DistractorAdmin(admin.ModelAdmin):
    list_display = ["qa_pair", "kind", "rank", "method", "score", "snippet", "image", "screen", "created_at"]
    list_filter = ["kind", "method"]
    list_select_related = ["qa_pair", "snippet", "image", "screen"]
    raw_id_fields = ["qa_pair", "snippet", "image", "screen"]
    search_fields = ["qa_pair__question"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(ReasoningCheck)
class ReasoningCheckAdmin(admin.ModelAdmin):
    """Disagreements between a screen question's ticked reasoning types and its wording.
    Correct the QA pair's types in its own page if the author was wrong, then mark the
    check resolved."""

    list_display = ["qa_pair", "state", "declared", "detected", "message", "checked_at", "resolved_by"]
    list_filter = ["state"]
    list_select_related = ["qa_pair", "resolved_by"]
    search_fields = ["qa_pair__question"]
    readonly_fields = [field.name for field in ReasoningCheck._meta.fields if field.name != "note"] + ["message"]
    actions = ["resolve"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Mark the selected disagreements resolved")
    def resolve(self, request, queryset):
        resolved = 0
        for check in queryset.filter(state=ReasoningCheck.State.OPEN):
            services.resolve_reasoning_check(check=check, actor=request.user)
            resolved += 1
        self.message_user(request, f"Resolved {resolved} check(s).")
