from django.urls import path

from . import landing, views

app_name = "hits"

urlpatterns = [
    path("", landing.front, name="home"),
    path("welcome/", landing.landing, name="landing"),
    path("batches/<int:batch_id>/start/", views.start, name="start"),
    path("assignments/<int:assignment_id>/", views.task, name="task"),
    path("assignments/<int:assignment_id>/return/", views.give_back, name="return"),
    path("batches/<int:batch_id>/spot-check/", views.spot_check, name="spot_check"),
    path("batches/<int:batch_id>/approve-rest/", views.approve_rest, name="approve_rest"),
    path("assignments/<int:assignment_id>/decide/", views.decide, name="decide"),
]
