from django.urls import path
from rest_framework.routers import SimpleRouter

from .api import ApiTokenViewSet, MeView

router = SimpleRouter()
router.register("tokens", ApiTokenViewSet, basename="token")

urlpatterns = [path("me/", MeView.as_view(), name="me"), *router.urls]
