from drf_spectacular.utils import extend_schema
from rest_framework import generics, mixins, status, viewsets
from rest_framework.response import Response

from config.api import WriteThrottle

from . import services
from .models import ApiToken
from .serializers import ApiTokenSerializer, MeSerializer, NewApiTokenSerializer


class MeView(generics.RetrieveAPIView):
    """The signed-in user: role, locale, standing and qualifications."""

    serializer_class = MeSerializer

    def get_object(self):
        services.ensure_profile(user=self.request.user)
        return self.request.user


class ApiTokenViewSet(
    mixins.ListModelMixin, mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet
):
    """Your own API tokens. Deleting one revokes it at once."""

    serializer_class = ApiTokenSerializer
    throttle_classes = [WriteThrottle]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return ApiToken.objects.none()
        return self.request.user.api_tokens.all()

    @extend_schema(responses={201: NewApiTokenSerializer})
    def create(self, request, *args, **kwargs):
        serializer = ApiTokenSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token, key = services.create_api_token(user=request.user, name=serializer.validated_data["name"])
        token.key = key
        return Response(NewApiTokenSerializer(token).data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance):
        services.revoke_api_token(token=instance)
