from django.contrib import admin

from .models import (
    BatchAgreement,
    Judgement,
    PairValidation,
    QualificationAttempt,
    QualificationChange,
    QualificationItem,
    QualificationTest,
    ReferenceAnswer,
    ReferenceSet,
    ReviewDecision,
    ReviewItem,
    WorkerQuality,
)


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = ["asset", "queue", "risk", "prescreened_at", "claimed_by", "decided_at"]
    list_filter = ["queue"]
    readonly_fields = [f.name for f in ReviewItem._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(ReviewDecision)
class ReviewDecisionAdmin(admin.ModelAdmin):
    """The audit log: read-only, kept after the bytes it speaks of are purged."""

    list_display = ["created_at", "decision", "reviewer", "asset_sha256", "reason"]
    list_filter = ["decision"]
    search_fields = ["asset_sha256", "reason", "reviewer__username"]
    readonly_fields = [f.name for f in ReviewDecision._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


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
class QualificationAttemptAdmin(ReadOnly):
    """Every attempt, kept: what each worker marked and how they explained it."""

    list_display = ["worker", "test", "number", "score", "outcome", "submitted_at"]
    list_filter = ["test", "outcome"]
    search_fields = ["worker__username"]


@admin.register(QualificationChange)
class QualificationChangeAdmin(ReadOnly):
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
class PairValidationAdmin(ReadOnly):
    list_display = ["qa_pair", "outcome", "accept_votes", "reject_votes", "created_at", "decided_at"]
    list_filter = ["outcome"]
    inlines = [JudgementInline]


class ReferenceAnswerInline(admin.TabularInline):
    model = ReferenceAnswer
    extra = 0
    can_delete = False
    readonly_fields = ["worker", "answer", "created_at"]
    fields = readonly_fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(ReferenceSet)
class ReferenceSetAdmin(ReadOnly):
    list_display = ["qa_pair", "keyword_answer", "chosen_by", "created_at"]
    inlines = [ReferenceAnswerInline]


@admin.register(WorkerQuality)
class WorkerQualityAdmin(ReadOnly):
    list_display = ["worker", "judgements_decided", "judgements_agreeing", "pairs_accepted", "pairs_rejected"]
    search_fields = ["worker__username"]


@admin.register(BatchAgreement)
class BatchAgreementAdmin(ReadOnly):
    list_display = ["batch", "statistic", "value", "observed_agreement", "pairs", "judgements", "computed_at"]
