from django.urls import path

from . import views

app_name = "releases"

urlpatterns = [
    path("", views.release_list, name="list"),
    path("<int:release_id>/", views.release_detail, name="detail"),
    path("<int:release_id>/progress/", views.release_progress, name="progress"),
    path("<int:release_id>/build/", views.release_build, name="build"),
    path("<int:release_id>/files/<path:path>", views.release_file, name="file"),
    path("<int:release_id>/evaluation/", views.release_evaluation, name="evaluation"),
]
