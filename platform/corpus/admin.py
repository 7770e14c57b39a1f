"""The dataset's records in the admin: staff browse and correct them here. Apps above
add their own actions (e.g. validation's "collect reference answers" on QA pairs)."""

from django.contrib import admin

from config.admin import ReadOnlyAdmin

from .models import (
    Category,
    Evidence,
    ImageGroup,
    ImageSource,
    ImageTriple,
    QAPair,
    ReferenceAnswer,
    ReferenceSet,
    Screen,
    Snippet,
)


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "position"]
    prepopulated_fields = {"slug": ["name"]}


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


class ReferenceAnswerInline(admin.TabularInline):
    model = ReferenceAnswer
    extra = 0
    can_delete = False
    readonly_fields = ["worker", "answer", "created_at"]
    fields = readonly_fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(ReferenceSet)
class ReferenceSetAdmin(ReadOnlyAdmin):
    list_display = ["qa_pair", "keyword_answer", "chosen_by", "created_at"]
    inlines = [ReferenceAnswerInline]
