from django.urls import path
from rest_framework.routers import SimpleRouter

from . import api

router = SimpleRouter()
router.register("releases", api.ReleaseViewSet, basename="release")

urlpatterns = [
    *router.urls,
    path(
        "releases/<str:pk>/files/<path:path>", api.ReleaseFileDownload.as_view({"get": "retrieve"}), name="release-file"
    ),
]
