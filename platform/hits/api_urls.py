from rest_framework.routers import SimpleRouter

from .api import AssignmentViewSet, BatchViewSet, WorkerViewSet

router = SimpleRouter()
router.register("batches", BatchViewSet, basename="batch")
router.register("assignments", AssignmentViewSet, basename="assignment")
router.register("workers", WorkerViewSet, basename="worker")

urlpatterns = router.urls
