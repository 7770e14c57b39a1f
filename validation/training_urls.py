from django.urls import path

from . import training_views as views

app_name = "training"

urlpatterns = [
    path("", views.index, name="index"),
    path("tutorials/<str:family>/", views.tutorial, name="tutorial"),
    path("tests/<slug:slug>/", views.take_test, name="test"),
    path("attempts/<int:attempt_id>/", views.attempt, name="attempt"),
    path("figures/<int:item_id>/<int:index>.png", views.figure, name="figure"),
    path("quality/", views.my_quality, name="quality"),
    path("questions/", views.my_questions, name="questions"),
]
