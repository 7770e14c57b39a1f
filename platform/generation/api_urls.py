from rest_framework.routers import SimpleRouter

from .api import GenerationRunViewSet

router = SimpleRouter()
router.register("generation-runs", GenerationRunViewSet, basename="generation-run")

urlpatterns = router.urls
