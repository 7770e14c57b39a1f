from rest_framework.routers import SimpleRouter

from .api import AssetViewSet

router = SimpleRouter()
router.register("assets", AssetViewSet, basename="asset")

urlpatterns = router.urls
