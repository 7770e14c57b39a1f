"""REST API v1 for assets: upload an image, read one you may see."""

from django.conf import settings
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from config.api import WriteThrottle

from . import selectors, services
from .errors import FileTooLarge
from .images import describe_size
from .models import Asset
from .serializers import AssetSerializer, UploadSerializer

# Room for the multipart boundaries and part headers around the file itself.
MULTIPART_OVERHEAD = 64 * 1024


class AssetViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Images: screenshots and pictures.

    ``POST /assets/`` with a multipart ``file`` stores a PNG, JPEG or WebP with its
    metadata removed: 201 with the new asset, or 200 with the one already stored for
    the same image. ``GET /assets/{id}/`` reads an asset you uploaded (reviewers and
    admins read any). The ``url`` and ``thumbnail_url`` serve the bytes to the same users.
    """

    queryset = Asset.objects.none()  # objects come from get_object: one rule, can_view
    serializer_class = AssetSerializer
    parser_classes = [MultiPartParser]
    throttle_classes = [WriteThrottle]
    lookup_value_regex = "[0-9]+"

    def get_object(self):
        asset = selectors.viewable_asset(user=self.request.user, asset_id=self.kwargs["pk"])
        if asset is None:
            raise Http404
        return asset

    @extend_schema(request=UploadSerializer, responses={200: AssetSerializer, 201: AssetSerializer})
    def create(self, request):
        # Refuse an oversized body from its declared length, before a byte of it is read.
        declared = _declared_length(request)
        if declared > settings.ASSET_MAX_BYTES + MULTIPART_OVERHEAD:
            raise FileTooLarge(
                f"The upload is {describe_size(declared)}; the limit for one image is "
                f"{describe_size(settings.ASSET_MAX_BYTES)}. Upload a smaller image."
            )
        upload = UploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        asset, created = services.store_image(file=upload.validated_data["file"], uploaded_by=request.user)
        return Response(
            self.get_serializer(asset).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


def _declared_length(request):
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0
