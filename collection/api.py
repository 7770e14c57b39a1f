"""REST API for capture: the catalogue, screens and QA pairs. Submitting a capture task
is the work engine's ``POST /api/v1/assignments/{id}/submit/`` with the kind's fields."""

from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, parsers, status, viewsets
from rest_framework.response import Response

from accounts.models import Role
from config.api import WriteThrottle
from hits.errors import AssignmentClosed, NotYourAssignment
from hits.models import Assignment

from . import screens
from .models import Category, Evidence, QAPair, Screen, Site
from .serializers import CategorySerializer, QAPairSerializer, ScreenSerializer, ScreenUploadSerializer, SiteSerializer


class CategoryViewSet(viewsets.ReadOnlyModelViewSet):
    """Website categories."""

    queryset = Category.objects.all()
    serializer_class = CategorySerializer
    lookup_field = "slug"


class SiteViewSet(viewsets.ReadOnlyModelViewSet):
    """Sites raters are sent to; filter with ``?category=<slug>``."""

    serializer_class = SiteSerializer

    def get_queryset(self):
        sites = Site.objects.filter(active=True).select_related("category")
        if self.request.query_params.get("category"):
            sites = sites.filter(category__slug=self.request.query_params["category"])
        return sites


class ScreenViewSet(mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet):
    """Screens you captured (reviewers and admins see all). Upload with a multipart
    ``POST`` of ``file`` and optionally ``url``, ``title`` and ``assignment``."""

    serializer_class = ScreenSerializer
    throttle_classes = [WriteThrottle]
    parser_classes = [parsers.MultiPartParser, parsers.FormParser, parsers.JSONParser]

    def get_queryset(self):
        queryset = Screen.objects.select_related("asset", "category").order_by("-id")
        if getattr(self, "swagger_fake_view", False):
            return queryset.none()
        if not self.request.user.has_role(Role.REVIEWER):
            queryset = queryset.filter(author=self.request.user)
        if self.request.query_params.get("assignment"):
            queryset = queryset.filter(assignment_id=self.request.query_params["assignment"])
        return queryset

    @extend_schema(request={"multipart/form-data": ScreenUploadSerializer}, responses={201: ScreenSerializer})
    def create(self, request, *args, **kwargs):
        upload = ScreenUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        data = upload.validated_data
        assignment = None
        if data.get("assignment"):
            assignment = Assignment.objects.filter(pk=data["assignment"]).first()
            if assignment is None or assignment.worker_id != request.user.pk:
                raise NotYourAssignment("Screens can be attached only to your own assignments.")
            if not assignment.is_open:
                raise AssignmentClosed(f"This assignment is already {assignment.get_state_display().lower()}.")
        screen = screens.capture_screen(
            file=data["file"],
            author=request.user,
            url=data.get("url", ""),
            title=data.get("title", ""),
            assignment=assignment,
            viewport_width=data.get("viewport_width"),
            viewport_height=data.get("viewport_height"),
        )
        return Response(ScreenSerializer(screen).data, status=status.HTTP_201_CREATED)

    def destroy(self, request, *args, **kwargs):
        screens.remove_screen(screen=self.get_object(), author=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class QAPairViewSet(viewsets.ReadOnlyModelViewSet):
    """Question–answer pairs you wrote (reviewers and admins see all)."""

    serializer_class = QAPairSerializer

    def get_queryset(self):
        pairs = QAPair.objects.select_related("category").prefetch_related(
            Prefetch("evidence", queryset=Evidence.objects.order_by("position"))
        )
        if getattr(self, "swagger_fake_view", False):
            return pairs.none()
        if not self.request.user.has_role(Role.REVIEWER):
            pairs = pairs.filter(author=self.request.user)
        for field in ("state", "split_kind", "family"):
            if self.request.query_params.get(field):
                pairs = pairs.filter(**{field: self.request.query_params[field]})
        return pairs.order_by("-id")
