from django.urls import path

from . import views

app_name = "generation"

urlpatterns = [
    path("", views.run_list, name="runs"),
    path("runs/<int:run_id>/", views.run_detail, name="run"),
]
