from django import forms
from django.contrib import admin, messages

from config.errors import DomainError
from corpus.models import QAPair

from . import selectors, services
from .models import FAMILIES, Release


class ReleaseForm(forms.ModelForm):
    """A release definition; the version is typed as major.minor.patch."""

    version = forms.CharField(help_text="major.minor.patch, higher than the name's latest version.")
    families = forms.MultipleChoiceField(choices=[(f, f) for f in FAMILIES], widget=forms.CheckboxSelectMultiple)
    qa_states = forms.MultipleChoiceField(choices=QAPair.State.choices, widget=forms.CheckboxSelectMultiple,
                                          initial=["accepted"])  # fmt: skip

    class Meta:
        model = Release
        fields = ["name", "families", "qa_states", "split_strategy", "webvln_setting", "seed", "train_percent",
                  "val_percent", "parent", "notes", "test_answers_public"]  # fmt: skip

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A saved release is shown read-only (a change is a new version): then the form
        # has none of these fields.
        if "parent" in self.fields:
            self.fields["parent"].queryset = Release.objects.filter(state=Release.State.PUBLISHED)
        if self.instance.pk and "version" in self.fields:
            self.fields["version"].initial = self.instance.version

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            data["version_key"] = services.parse_version(data["version"])
            if not self.instance.pk:
                services.check_definition(
                    name=data["name"], version=data["version_key"], families=data["families"],
                    qa_states=data["qa_states"], train_percent=data["train_percent"],
                    val_percent=data["val_percent"], parent=data.get("parent"),
                )  # fmt: skip
        except DomainError as error:
            raise forms.ValidationError(error.message) from None
        return data


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    form = ReleaseForm
    list_display = ["__str__", "state", "stage", "progress_text", "snapshot_at", "published_at"]
    list_filter = ["state", "name"]
    readonly_fields = ["state", "attempt", "stage", "progress_text", "message", "snapshot_at", "published_at",
                       "storage_prefix", "counts", "rebuild_check", "created_by"]  # fmt: skip
    actions = ["build", "check_rebuild"]

    @admin.display(description="progress")
    def progress_text(self, release):
        progress = selectors.progress(release)
        return f"{progress['stage']} {progress['done']}/{progress['total']}" if progress["total"] else progress["stage"]

    def has_change_permission(self, request, obj=None):
        # A definition is fixed once it exists: a change is a new version.
        return obj is None

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        release = services.create_release(
            name=data["name"], version=data["version_key"], families=data["families"], qa_states=data["qa_states"],
            split_strategy=data["split_strategy"], seed=data["seed"], train_percent=data["train_percent"],
            val_percent=data["val_percent"], parent=data.get("parent"), notes=data["notes"], created_by=request.user,
            test_answers_public=data.get("test_answers_public", False),
            webvln_setting=data.get("webvln_setting", "seen"),
        )  # fmt: skip
        # The admin's messages and redirect use ``obj``: it becomes the release just made.
        obj.__dict__.update({field.attname: getattr(release, field.attname) for field in Release._meta.concrete_fields})

    @admin.action(description="Build (or build again after a failure)")
    def build(self, request, queryset):
        for release in queryset:
            try:
                services.start_build(release=release)
                self.message_user(request, f"The build of {release} is queued.")
            except DomainError as error:
                self.message_user(request, error.message, level=messages.ERROR)

    @admin.action(description="Rebuild and compare checksums")
    def check_rebuild(self, request, queryset):
        for release in queryset:
            try:
                services.request_rebuild_check(release=release)
                self.message_user(request, f"{release} is being rebuilt; the result shows in “Rebuild check”.")
            except DomainError as error:
                self.message_user(request, error.message, level=messages.ERROR)
