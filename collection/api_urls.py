from rest_framework.routers import SimpleRouter

from .api import CategoryViewSet, QAPairViewSet, ScreenViewSet, SiteViewSet

router = SimpleRouter()
router.register("categories", CategoryViewSet, basename="category")
router.register("sites", SiteViewSet, basename="site")
router.register("screens", ScreenViewSet, basename="screen")
router.register("qa-pairs", QAPairViewSet, basename="qa-pair")

urlpatterns = router.urls
