from django import forms
from django.contrib import admin, messages

from accounts.models import QualificationGrant
from config.admin import ReadOnlyAdmin, run_on_each
from config.errors import DomainError
from corpus.admin import QAPairAdmin

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
from .services import choose_for_references, grant, revoke


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


@admin.action(description="Collect five reference answers for the selected accepted pairs (test candidates)")
def collect_reference_answers(modeladmin, request, queryset):
    try:
        made = choose_for_references(qa_pairs=list(queryset), actor=request.user)
    except DomainError as refusal:
        modeladmin.message_user(request, refusal.message, messages.ERROR)
        return
    skipped = queryset.count() - len(made)
    note = f"; {skipped} skipped (not accepted, or already chosen)" if skipped else ""
    modeladmin.message_user(request, f"{len(made)} pairs now collect reference answers{note}.")


# Validation's own action on the corpus's QA pair admin.
QAPairAdmin.actions = [*(QAPairAdmin.actions or []), collect_reference_answers]


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
