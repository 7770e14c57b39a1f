"""Webhook endpoints and their deliveries, for admins."""

from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts.models import Role
from accounts.permissions import requires
from config.api import WriteThrottle

from . import services
from .models import Delivery, Endpoint
from .serializers import DeliverySerializer, EndpointSerializer

ManagesWebhooks = requires(Role.ADMIN, "Only admins manage webhooks.")


class EndpointViewSet(viewsets.ModelViewSet):
    """Endpoints that receive events. ``POST`` registers one (its secret is in the answer);
    ``POST …/enable/`` turns a disabled one back on."""

    serializer_class = EndpointSerializer
    permission_classes = [ManagesWebhooks]
    throttle_classes = [WriteThrottle]
    queryset = Endpoint.objects.order_by("id")

    def perform_create(self, serializer):
        serializer.save(created_by=self.request.user)

    @extend_schema(request=None, responses={200: EndpointSerializer})
    @action(detail=True, methods=["post"])
    def enable(self, request, pk=None):
        return Response(EndpointSerializer(services.enable(endpoint=self.get_object())).data)


class DeliveryViewSet(viewsets.ReadOnlyModelViewSet):
    """Every delivery, newest first, with its attempts; ``POST …/redeliver/`` sends one again."""

    serializer_class = DeliverySerializer
    permission_classes = [ManagesWebhooks]
    throttle_classes = [WriteThrottle]
    queryset = Delivery.objects.prefetch_related("attempt_log").order_by("-id")

    @extend_schema(request=None, responses={202: DeliverySerializer})
    @action(detail=True, methods=["post"])
    def redeliver(self, request, pk=None):
        delivery = services.redeliver(delivery=self.get_object())
        return Response(DeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)
