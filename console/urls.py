from django.urls import path

from . import batch_views, reference_views, release_views, run_views, views

app_name = "console"

urlpatterns = [
    path("", views.index, name="index"),
    path("batches/", batch_views.batch_list, name="batches"),
    path("batches/new/<str:kind>/", batch_views.batch_new, name="batch-new"),
    path("batches/<int:batch_id>/", batch_views.batch_detail, name="batch"),
    path("batches/<int:batch_id>/tasks/", batch_views.batch_tasks, name="batch-tasks"),
    path("batches/<int:batch_id>/<str:action>/", batch_views.batch_action, name="batch-action"),
    path("references/", reference_views.references, name="reference-answers"),
    path("releases/", release_views.release_list, name="releases"),
    path("releases/new/", release_views.release_new, name="release-new"),
    path("releases/<int:release_id>/", release_views.release_detail, name="release"),
    path("releases/<int:release_id>/build/", release_views.release_build, name="release-build"),
    path("releases/<int:release_id>/archive/", release_views.release_archive, name="release-archive"),
    path("runs/", run_views.runs, name="runs"),
]
