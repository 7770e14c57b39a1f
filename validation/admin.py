from django import forms
from django.contrib import admin, messages

from accounts.models import QualificationGrant
from config.admin import ReadOnlyAdmin, run_on_each
from config.errors import DomainError
from corpus.admin import QAPairAdmin
from releases.admin import ReleaseAdmin

from .models import (
    BatchAgreement,
    Judgement,
    PairValidation,
    QualificationAttempt,
    QualificationChange,
    QualificationItem,
    QualificationTest,
    WorkerQuality,
)
from .services import choose_test_candidates, grant, revoke


class QualificationItemInline(admin.StackedInline):
    model = QualificationItem
    extra = 0
    fields = ["position", "question", "answer", "figures", "follows_guidelines", "broken_rule", "explanation"]


@admin.register(QualificationTest)
class QualificationTestAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "family", "qualification", "active"]
    list_filter = ["family", "active"]
    prepopulated_fields = {"slug": ["title"]}
    inlines = [QualificationItemInline]


@admin.register(QualificationAttempt)
class QualificationAttemptAdmin(ReadOnlyAdmin):
    """Every attempt, kept: what each worker marked and how they explained it."""

    list_display = ["worker", "test", "number", "score", "outcome", "submitted_at"]
    list_filter = ["test", "outcome"]
    search_fields = ["worker__username"]


@admin.register(QualificationChange)
class QualificationChangeAdmin(ReadOnlyAdmin):
    """Who gained or lost which qualification, when and why (grant and revoke them under
    Accounts › Qualification grants)."""

    list_display = ["created_at", "worker", "qualification", "action", "actor", "reason"]
    list_filter = ["action", "qualification"]
    search_fields = ["worker__username", "reason"]


class JudgementInline(admin.TabularInline):
    model = Judgement
    extra = 0
    can_delete = False
    fields = ["validator", "answer_correct", "follows_guidelines", "sources_needed", "accept", "agrees_with_majority",
              "comment", "corrected_answer", "created_at"]  # fmt: skip
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(PairValidation)
class PairValidationAdmin(ReadOnlyAdmin):
    list_display = ["qa_pair", "outcome", "accept_votes", "reject_votes", "created_at", "decided_at"]
    list_filter = ["outcome"]
    inlines = [JudgementInline]


@admin.register(WorkerQuality)
class WorkerQualityAdmin(ReadOnlyAdmin):
    list_display = ["worker", "judgements_decided", "judgements_agreeing", "pairs_accepted", "pairs_rejected"]
    search_fields = ["worker__username"]


@admin.register(BatchAgreement)
class BatchAgreementAdmin(ReadOnlyAdmin):
    list_display = ["batch", "statistic", "value", "observed_agreement", "pairs", "judgements", "computed_at"]


def _report_candidates(modeladmin, request, **choice):
    try:
        result = choose_test_candidates(actor=request.user, **choice)
    except DomainError as refusal:
        modeladmin.message_user(request, refusal.message, messages.ERROR)
        return
    made = len(result.created)
    noun = "pair" if made == 1 else "pairs"
    text = f"{made} {noun} of the test split of {result.release} now get reference answers."
    if result.skipped:
        shown = "; ".join(f"pair {pair_id}: {reason}" for pair_id, reason in sorted(result.skipped.items())[:20])
        more = f" and {len(result.skipped) - 20} more" if len(result.skipped) > 20 else ""
        text += f" Skipped {len(result.skipped)} ({shown}{more})."
    modeladmin.message_user(request, text, messages.WARNING if result.skipped else messages.SUCCESS)


@admin.action(description="Collect five reference answers for the selected pairs the draft release puts in test")
def collect_reference_answers(modeladmin, request, queryset):
    _report_candidates(modeladmin, request, qa_pairs=list(queryset.order_by("id")))


@admin.action(description="Collect five reference answers for every pair of the selected draft's test split")
def collect_test_split_references(modeladmin, request, queryset):
    if queryset.count() != 1:
        modeladmin.message_user(request, "Select one draft release: its test split is chosen.", messages.ERROR)
        return
    _report_candidates(modeladmin, request, release=queryset.get())


# Validation's own actions on the corpus's QA pair admin and the releases' admin.
QAPairAdmin.actions = [*(QAPairAdmin.actions or []), collect_reference_answers]
ReleaseAdmin.actions = [*(ReleaseAdmin.actions or []), collect_test_split_references]


class RevokeForm(admin.helpers.ActionForm):
    reason = forms.CharField(required=False, label="Reason (required to revoke; the worker sees it)")


@admin.register(QualificationGrant)
class QualificationGrantAdmin(admin.ModelAdmin):
    """Granting here (Add) and revoking (the action) go through the qualification
    service, which keeps each worker's qualification history."""

    list_display = ["user", "qualification", "granted_at", "granted_by", "note"]
    list_filter = ["qualification"]
    search_fields = ["user__username"]
    autocomplete_fields = ["user"]
    fields = ["user", "qualification", "note"]
    action_form = RevokeForm
    actions = ["revoke"]

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        reason = obj.note.strip() or f"Granted by {request.user.username}."
        saved = grant(worker=obj.user, qualification=obj.qualification, actor=request.user, reason=reason)
        obj.pk = saved.pk

    @admin.action(description="Revoke the selected qualifications (with the reason above)")
    def revoke(self, request, queryset):
        run_on_each(
            self,
            request,
            queryset.select_related("user", "qualification"),
            lambda g: revoke(
                worker=g.user, qualification=g.qualification, actor=request.user, reason=request.POST.get("reason", "")
            ),
            "revoked",
        )
