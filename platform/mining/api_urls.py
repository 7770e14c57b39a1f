from rest_framework.routers import SimpleRouter

from .api import DistractorViewSet, MiningRunViewSet, ReasoningCheckViewSet

router = SimpleRouter()
router.register("mining-runs", MiningRunViewSet, basename="mining-run")
router.register("distractors", DistractorViewSet, basename="distractor")
router.register("reasoning-checks", ReasoningCheckViewSet, basename="reasoning-check")

urlpatterns = router.urls
