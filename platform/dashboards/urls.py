from django.urls import path

from . import views

app_name = "dashboards"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("batches/", views.batches, name="batches"),
    path("queues/", views.queues, name="queues"),
    path("throughput/", views.throughput, name="throughput"),
    path("workers/", views.workers, name="workers"),
    path("workers/<int:user_id>/", views.worker, name="worker"),
    path("dataset/", views.dataset, name="dataset"),
]
