from rest_framework.routers import SimpleRouter

from .api import DeliveryViewSet, EndpointViewSet

router = SimpleRouter()
router.register("webhooks", EndpointViewSet, basename="webhook")
router.register("webhook-deliveries", DeliveryViewSet, basename="webhook-delivery")

urlpatterns = router.urls
