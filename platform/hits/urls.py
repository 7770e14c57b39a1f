from django.urls import path

from . import views

app_name = "hits"

urlpatterns = [
    path("", views.home, name="home"),
    path("batches/<int:batch_id>/start/", views.start, name="start"),
    path("assignments/<int:assignment_id>/", views.task, name="task"),
    path("assignments/<int:assignment_id>/return/", views.give_back, name="return"),
]
