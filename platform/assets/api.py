"""REST API v1 for assets: upload an image, read one you may see.

``UploadEndpoint`` is what every API view that takes an image upload shares (this one,
and collection's screen and trace-step uploads): the body cap checked before a byte is
read, and ``Retry-After`` on the 503 of a busy decoder. ``idempotency_key`` reads the
client's ``Idempotency-Key``.
"""

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from config.api import WriteThrottle

from . import selectors, services
from .errors import DecodersBusy, FileTooLarge, IdempotencyKeyInvalid, LengthRequired, UploadTooLarge
from .images import describe_size
from .models import Asset
from .serializers import AssetSerializer, UploadSerializer

# Room for the multipart boundaries, part headers and the small fields around the file.
MULTIPART_OVERHEAD = 64 * 1024

IDEMPOTENCY_KEY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        "A fresh key (e.g. a UUID) per upload, sent again unchanged with every retry of it: the "
        "same key from the same user within 24 hours answers 200 with what the first request "
        "made. May also be sent as the form field `idempotency_key`."
    ),
)


# The API's error body (the schema's "Error", config.api) for the refusals below.
ERROR_BODY = inline_serializer(name="Error", fields={"error": serializers.JSONField()})
UPLOAD_REFUSALS = {
    411: OpenApiResponse(
        ERROR_BODY, description="No usable Content-Length: an upload's size is checked before it is read."
    ),
    413: OpenApiResponse(
        ERROR_BODY, description="The body is larger than one image and its form fields; nothing was read."
    ),
    503: OpenApiResponse(
        ERROR_BODY,
        description="Every image decoder of the server is busy: send the same upload again after `Retry-After` seconds.",
    ),
}
KEYED_UPLOAD_REFUSALS = {
    **UPLOAD_REFUSALS,
    422: OpenApiResponse(
        ERROR_BODY, description="The Idempotency-Key was used in the last 24 hours for another kind of upload."
    ),
}


class CappedUploadHandler(FileUploadHandler):
    """Stops reading a multipart body as soon as its files pass ``ASSET_MAX_BYTES``,
    whatever length the request declared (the trace step's cap leaves room for a page's
    HTML, which a file could otherwise fill). Installed first, so the handlers after it
    (memory, then the temporary file) never receive the bytes over the limit."""

    def __init__(self, request=None):
        super().__init__(request)
        self.received = 0

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > settings.ASSET_MAX_BYTES:
            # The same refusal (400) as a file found too large once stored: the request
            # was within its cap, the file in it is not.
            raise FileTooLarge(
                f"The file is larger than {describe_size(settings.ASSET_MAX_BYTES)}, the limit for one image; "
                "upload a smaller image, e.g. a PNG or WebP of one screen."
            )
        return raw_data

    def file_complete(self, file_size):
        return None  # the next handler makes the file


class UploadEndpoint:
    """For API viewsets whose ``upload_actions`` take one image in a multipart body.

    - The declared ``Content-Length`` is checked before anything else (authentication
      included, which may read a form body for its CSRF check): over ``ASSET_MAX_BYTES``
      plus ``upload_allowance()`` is a 413, a missing or unreadable one a 411, and no byte
      of the body is read or spooled. ``CappedUploadHandler`` then stops the parser at
      the limit whatever was declared.
    - A ``DecodersBusy`` refusal (503) carries ``Retry-After``.
    """

    upload_actions = ("create",)

    def upload_allowance(self):
        """Bytes allowed in the body besides the file: form fields, boundaries, headers."""
        return MULTIPART_OVERHEAD

    def initialize_request(self, request, *args, **kwargs):
        request = super().initialize_request(request, *args, **kwargs)
        if self._takes_upload(request):
            request.upload_handlers.insert(0, CappedUploadHandler(request))
        return request

    def initial(self, request, *args, **kwargs):
        if self._takes_upload(request):
            _check_declared_length(request, limit=settings.ASSET_MAX_BYTES + self.upload_allowance())
        super().initial(request, *args, **kwargs)

    def handle_exception(self, exc):
        response = super().handle_exception(exc)
        if isinstance(exc, DecodersBusy):
            response["Retry-After"] = str(exc.retry_after)
        return response

    def _takes_upload(self, request):
        return request.method == "POST" and getattr(self, "action", None) in self.upload_actions


def _check_declared_length(request, *, limit):
    declared = request.META.get("CONTENT_LENGTH")
    if not declared:
        raise LengthRequired(
            "The upload has no Content-Length header; send the file in a request that declares its "
            "length (a normal multipart form post does), not in chunks."
        )
    try:
        length = int(declared)
    except ValueError:
        length = -1
    if length < 0:
        raise LengthRequired(f"The Content-Length header ({declared[:40]!r}) is not a number of bytes.")
    if length > limit:
        raise UploadTooLarge(
            f"The upload is {describe_size(length)}; the limit for one image is "
            f"{describe_size(settings.ASSET_MAX_BYTES)}. Upload a smaller image."
        )


def idempotency_key(request, *, read_body=True):
    """The client's idempotency key for this request: the ``Idempotency-Key`` header, or
    else (when ``read_body``) the ``idempotency_key`` form field; "" when there is none."""
    key = request.headers.get("Idempotency-Key")
    if key is None and read_body:
        key = request.data.get("idempotency_key")
    if key in (None, ""):
        return ""
    if not isinstance(key, str) or len(key) > 255 or not (key.isascii() and key.isprintable()):
        raise IdempotencyKeyInvalid(
            "The Idempotency-Key must be 1 to 255 printable ASCII characters; send a fresh UUID with each upload."
        )
    return key


class AssetViewSet(UploadEndpoint, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Images: screenshots and pictures.

    ``POST /assets/`` with a multipart ``file`` stores a PNG, JPEG or WebP with its
    metadata removed: 201 with the new asset, or 200 with the one already stored for
    the same image (or made by an earlier request with the same ``Idempotency-Key``).
    ``GET /assets/{id}/`` reads an asset you uploaded (reviewers and admins read any).
    The ``url`` and ``thumbnail_url`` serve the bytes to the same users.
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

    @extend_schema(
        request=UploadSerializer,
        parameters=[IDEMPOTENCY_KEY_HEADER],
        responses={200: AssetSerializer, 201: AssetSerializer, **KEYED_UPLOAD_REFUSALS},
    )
    def create(self, request):
        earlier = selectors.made_with_key(user=request.user, key=idempotency_key(request, read_body=False), model=Asset)
        if earlier is not None:  # a retry: answered without reading the file again
            return Response(self.get_serializer(earlier).data, status=status.HTTP_200_OK)
        upload = UploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        stored = {}  # 201 only when this very request stored a new image

        def store():
            asset, stored["created"] = services.store_image(
                file=upload.validated_data["file"], uploaded_by=request.user
            )
            return asset

        asset, _replayed = services.once_per_key(
            user=request.user, key=idempotency_key(request), model=Asset, make=store
        )
        created = stored.get("created", False)
        return Response(
            self.get_serializer(asset).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )
