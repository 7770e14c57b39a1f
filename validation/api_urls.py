from django.urls import path
from rest_framework.routers import SimpleRouter

from .api import QualificationTestViewSet, QualityView, ReferenceSetsView

router = SimpleRouter()
router.register("qualification-tests", QualificationTestViewSet, basename="qualification-test")

urlpatterns = [
    *router.urls,
    path("quality/", QualityView.as_view(), name="quality"),
    path("reference-sets/", ReferenceSetsView.as_view(), name="reference-sets"),
]
