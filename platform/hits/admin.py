from django import forms
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from accounts.admin import RaterProfileAdmin
from config.admin import run_on_each
from config.errors import DomainError

from . import registry, services
from .models import Assignment, Batch, Disqualification, KindRequirements, Task, WorkEvent


class BatchForm(forms.ModelForm):
    kind = forms.ChoiceField(choices=registry.choices)

    class Meta:
        model = Batch
        fields = "__all__"  # noqa: DJ007 (the admin shows every field of a batch)


@admin.register(Batch)
class BatchAdmin(admin.ModelAdmin):
    form = BatchForm
    list_display = ["name", "kind", "state", "reward", "created_at", "opened_at", "spot_check_link"]
    list_filter = ["state", "kind"]
    search_fields = ["name"]
    filter_horizontal = ["required_qualifications"]
    actions = ["open_batches", "close_batches", "fill_batches"]

    @admin.display(description="Spot check")
    def spot_check_link(self, batch):
        url = reverse("hits:spot_check", args=[batch.pk])
        return format_html('<a href="{}">Spot-check</a>', url)

    @admin.action(description="Open the selected batches")
    def open_batches(self, request, queryset):
        run_on_each(
            self, request, queryset, lambda batch: services.open_batch(batch=batch, actor=request.user), "opened"
        )

    @admin.action(description="Close the selected batches")
    def close_batches(self, request, queryset):
        run_on_each(
            self, request, queryset, lambda batch: services.close_batch(batch=batch, actor=request.user), "closed"
        )

    @admin.action(description="Add tasks from the pools or site graphs (image, six-image, text and navigation batches)")
    def fill_batches(self, request, queryset):
        for batch in queryset:
            try:
                outcome = registry.get(batch.kind).fill(batch=batch)
            except DomainError as refusal:
                outcome = refusal.message
            self.message_user(request, f"{batch}: {outcome or 'this kind of batch is not filled from a pool.'}")


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ["id", "batch", "assignments_wanted", "slots_taken", "created_at"]
    list_filter = ["batch"]
    readonly_fields = ["slots_taken"]
    raw_id_fields = ["batch"]


class DecisionForm(admin.helpers.ActionForm):
    feedback = forms.CharField(required=False, label="Feedback or bonus reason")
    amount = forms.DecimalField(required=False, min_value=0, decimal_places=2, label="Bonus")


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "batch",
        "worker",
        "state",
        "spot_check",
        "assigned_at",
        "submitted_at",
        "active_seconds",
        "pay",
        "bonus",
    ]
    list_filter = ["state", "spot_check", "batch"]
    search_fields = ["worker__username"]
    list_select_related = ["batch", "worker"]
    raw_id_fields = ["task", "batch", "worker", "decided_by"]
    readonly_fields = [
        "state",
        "assigned_at",
        "submitted_at",
        "decided_at",
        "ended_at",
        "answer",
        "pay",
        "bonus",
        "bonus_reason",
    ]
    action_form = DecisionForm
    actions = ["approve", "reject", "bonus"]

    @admin.action(description="Approve the selected submissions")
    def approve(self, request, queryset):
        feedback = request.POST.get("feedback", "")
        run_on_each(
            self,
            request,
            queryset,
            lambda a: services.approve_assignment(assignment_id=a.pk, actor=request.user, feedback=feedback),
            "approved",
        )

    @admin.action(description="Reject the selected submissions (with the feedback above)")
    def reject(self, request, queryset):
        feedback = request.POST.get("feedback", "")
        run_on_each(
            self,
            request,
            queryset,
            lambda a: services.reject_assignment(assignment_id=a.pk, actor=request.user, feedback=feedback),
            "rejected",
        )

    @admin.action(description="Pay the bonus above to the selected submissions (the feedback is the reason)")
    def bonus(self, request, queryset):
        amount, reason = request.POST.get("amount") or "0", request.POST.get("feedback", "")
        run_on_each(
            self,
            request,
            queryset,
            lambda a: services.grant_bonus(assignment_id=a.pk, actor=request.user, amount=amount, reason=reason),
            "bonused",
        )


@admin.register(WorkEvent)
class WorkEventAdmin(admin.ModelAdmin):
    list_display = ["created_at", "action", "actor", "worker", "batch", "assignment"]
    list_filter = ["action"]
    list_select_related = ["actor", "worker", "batch", "assignment"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False


class DisqualificationForm(forms.ModelForm):
    kind = forms.ChoiceField(choices=registry.choices)

    class Meta:
        model = Disqualification
        fields = ["worker", "kind", "reason"]


@admin.register(Disqualification)
class DisqualificationAdmin(admin.ModelAdmin):
    """Workers barred from a kind of work, automatically or by hand. Adding one here
    disqualifies (their open tasks of that kind go back); "lift" restores access."""

    form = DisqualificationForm
    list_display = ["worker", "kind", "automatic", "created_at", "lifted_at", "reason"]
    list_filter = ["kind", "automatic", ("lifted_at", admin.EmptyFieldListFilter)]
    search_fields = ["worker__username", "reason"]
    raw_id_fields = ["worker"]
    actions = ["lift"]

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change):
        record = services.disqualify(worker_id=obj.worker_id, kind=obj.kind, reason=obj.reason, actor=request.user)
        obj.pk = record.pk

    @admin.action(description="Lift the selected disqualifications")
    def lift(self, request, queryset):
        run_on_each(
            self,
            request,
            queryset.filter(lifted_at__isnull=True),
            lambda d: services.requalify(worker_id=d.worker_id, kind=d.kind, actor=request.user),
            "lifted",
        )


class KindRequirementsForm(forms.ModelForm):
    kind = forms.ChoiceField(choices=registry.choices)

    class Meta:
        model = KindRequirements
        fields = ["kind", "required_qualifications", "min_approval_rate", "min_approved_count", "allowed_locales"]


@admin.register(KindRequirements)
class KindRequirementsAdmin(admin.ModelAdmin):
    """Who may take one kind of work in every batch of it (each batch can add its own rules)."""

    form = KindRequirementsForm
    list_display = ["kind", "min_approval_rate", "min_approved_count", "allowed_locales"]
    filter_horizontal = ["required_qualifications"]


class BlockForm(admin.helpers.ActionForm):
    reason = forms.CharField(required=False, label="Reason (required to block; the worker sees it)")


@admin.action(description="Block the selected workers (with the reason above)")
def block(modeladmin, request, queryset):
    run_on_each(
        modeladmin,
        request,
        queryset.select_related("user"),
        lambda p: services.block_worker(worker=p.user, actor=request.user, reason=request.POST.get("reason", "")),
        "blocked",
    )


@admin.action(description="Unblock the selected workers")
def unblock(modeladmin, request, queryset):
    run_on_each(
        modeladmin,
        request,
        queryset.select_related("user"),
        lambda p: services.unblock_worker(worker=p.user, actor=request.user),
        "unblocked",
    )


# The work engine's actions on the accounts app's worker profiles.
RaterProfileAdmin.action_form = BlockForm
RaterProfileAdmin.actions = [*(RaterProfileAdmin.actions or []), block, unblock]
