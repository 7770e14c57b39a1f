from django.contrib import admin

from config.admin import ReadOnlyAdmin

from .models import Job


@admin.register(Job)
class JobAdmin(ReadOnlyAdmin):
    list_display = ["id", "task", "args", "queue", "created_at", "sent_at", "attempts", "last_error"]
    list_filter = [("sent_at", admin.EmptyFieldListFilter), "task"]
