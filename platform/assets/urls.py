from django.urls import path

from . import views

app_name = "assets"

urlpatterns = [
    path("<int:asset_id>/", views.asset_file, name="file"),
    path("<int:asset_id>/thumb/", views.asset_thumbnail, name="thumbnail"),
]
