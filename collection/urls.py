from django.urls import path

from . import views

app_name = "collection"

urlpatterns = [
    path("extension/", views.extension, name="extension"),
    path("extension/download/", views.extension_download, name="extension-download"),
]
