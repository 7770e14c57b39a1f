from django.urls import path

from . import views

app_name = "providers"

urlpatterns = [
    path("prolific/<int:batch_id>/", views.prolific_arrival, name="prolific_arrival"),
    path("prolific/sessions/<str:token>/next/", views.prolific_next, name="prolific_next"),
    path("prolific/sessions/<str:token>/stop/", views.prolific_stop, name="prolific_stop"),
    path("mturk/<int:batch_id>/", views.mturk_task, name="mturk_task"),
    path("mturk/sessions/<str:token>/", views.mturk_submit, name="mturk_submit"),
]
