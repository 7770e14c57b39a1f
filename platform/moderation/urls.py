from django.urls import path

from . import views

app_name = "moderation"

urlpatterns = [
    path("", views.queues, name="queues"),
    path("<str:queue>/", views.next_item, name="next"),
    path("items/<int:item_id>/<str:decision>/", views.decide, name="decide"),
    path("decisions/<int:decision_id>/undo/", views.undo, name="undo"),
]
