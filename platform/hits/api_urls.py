from django.urls import URLPattern
from rest_framework.routers import SimpleRouter

from .api import AssignmentViewSet, BatchViewSet, WorkerViewSet
from .fastpath import hand_out_view, submit_view

router = SimpleRouter()
router.register("batches", BatchViewSet, basename="batch")
router.register("assignments", AssignmentViewSet, basename="assignment")
router.register("workers", WorkerViewSet, basename="worker")

# Asking for the next task and submitting it take the lean path when they can
# (hits/fastpath.py); every other call, and the schema, see the DRF views.
LEAN = {"assignment-list": hand_out_view, "assignment-submit": submit_view}

# They come first: every cycle of a rater's script resolves them.
urlpatterns = [
    URLPattern(route.pattern, LEAN[route.name](route.callback), route.default_args, route.name)
    for route in router.urls
    if route.name in LEAN
] + [route for route in router.urls if route.name not in LEAN]
