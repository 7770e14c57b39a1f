"""REST API of generation runs: admins start them and everyone on staff follows them."""

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.response import Response

from accounts.models import Role
from accounts.permissions import requires
from config.api import WriteThrottle, validated

from . import services
from .models import GenerationRun
from .serializers import GenerationRunSerializer, StartGenerationSerializer

RunsGeneration = requires(Role.ADMIN, "Only admins can start or see generation runs.")


class GenerationRunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Generation runs; poll one for its progress, its failed pages and each site's sample.

    ``POST`` starts a run (202): ``{"generator": "rules" | "openai-compatible", "parameters":
    {...}, "sites": [ids], "sample_size": 100, "threshold": 0.8}``."""

    serializer_class = GenerationRunSerializer
    permission_classes = [RunsGeneration]
    throttle_classes = [WriteThrottle]

    def get_queryset(self):
        return GenerationRun.objects.prefetch_related("sites", "samples__site").order_by("-id")

    @extend_schema(request=StartGenerationSerializer, responses={202: GenerationRunSerializer})
    def create(self, request):
        data = validated(StartGenerationSerializer, request.data)
        run = services.start_run(created_by=request.user, **data)
        return Response(self.get_serializer(self.get_queryset().get(pk=run.pk)).data, status=status.HTTP_202_ACCEPTED)
