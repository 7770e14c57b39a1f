"""REST API for capture: the catalogue, screens and QA pairs. Submitting a capture task
is the work engine's ``POST /api/v1/assignments/{id}/submit/`` with the kind's fields."""

import json

from django.conf import settings
from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, parsers, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Role
from accounts.permissions import requires
from assets import selectors as assets_selectors
from assets import services as assets
from assets.api import (
    IDEMPOTENCY_KEY_HEADER,
    KEYED_UPLOAD_REFUSALS,
    MULTIPART_OVERHEAD,
    UPLOAD_REFUSALS,
    UploadEndpoint,
    idempotency_key,
)
from config.api import WriteThrottle, url_id, validated
from config.errors import DomainError, NotFound
from corpus import services as corpus_services
from corpus.models import Category, Evidence, ImageSource, QAPair, Screen, Site, Snippet, Trace, TraceStep
from hits.errors import AssignmentClosed, NotYourAssignment
from hits.models import Assignment

from . import pools, selectors, services
from .graph_serializers import GraphRebuildSerializer, SiteGraphSerializer, site_graph
from .models import PoolImport
from .serializers import (
    CategorySerializer,
    FinishSerializer,
    ImageSourceSerializer,
    PoolImportSerializer,
    PoolImportStartSerializer,
    QAPairSerializer,
    ScreenSerializer,
    ScreenUploadSerializer,
    SiteSerializer,
    SnippetSerializer,
    StepInSerializer,
    TraceSerializer,
    TraceStartSerializer,
    TraceStepSerializer,
)


class UploadThrottle(WriteThrottle):
    """Trace uploads send a request per step: a recording of a few hundred steps must
    go through in one go."""

    scope = "uploads"


class StepUploadSerializer(serializers.Serializer):
    screenshot = serializers.FileField(allow_empty_file=True, help_text="The viewport screenshot (PNG or JPEG).")
    step = serializers.CharField(help_text="The step's metadata as a JSON string (see docs/trace-api.md).")


class CategoryViewSet(viewsets.ReadOnlyModelViewSet):
    """Website categories."""

    queryset = Category.objects.all()
    serializer_class = CategorySerializer
    lookup_field = "slug"


GraphAdmin = requires(Role.ADMIN, "Only admins can see and rebuild sites' navigation graphs.")


class SiteViewSet(viewsets.ReadOnlyModelViewSet):
    """Sites raters are sent to; filter with ``?category=<slug>``. Admins read each site's
    navigation graph (``graph/``) and rebuild it (``graph/rebuild/``)."""

    serializer_class = SiteSerializer

    def get_queryset(self):
        sites = Site.objects.filter(active=True).select_related("category")
        if self.request.query_params.get("category"):
            sites = sites.filter(category__slug=self.request.query_params["category"])
        return sites

    def _any_site(self):
        """The site named in the URL, inactive ones included: their graphs stay."""
        site = Site.objects.filter(pk=url_id(self.kwargs["pk"], what="site")).first()
        if site is None:
            raise NotFound(f"There is no site {self.kwargs['pk']}.")
        return site

    @extend_schema(responses=SiteGraphSerializer)
    @action(detail=True, methods=["get"], permission_classes=[GraphAdmin])
    def graph(self, request, pk=None):
        """The site's navigation graph: its pages (ids ``<host>_<number>``), the edges
        between them, and the pages the homepage does not reach."""
        graph = site_graph(self._any_site())
        return Response(SiteGraphSerializer(graph, context={"request": request}).data)

    @extend_schema(request=None, responses={202: GraphRebuildSerializer})
    @action(
        detail=True, methods=["post"], url_path="graph/rebuild", url_name="graph-rebuild",
        permission_classes=[GraphAdmin], throttle_classes=[WriteThrottle],
    )  # fmt: skip
    def rebuild_graph(self, request, pk=None):
        """Queues a rebuild of the site's graph from its traces; read ``graph/`` once it ran."""
        site = self._any_site()
        job = corpus_services.request_rebuild(site=site)
        return Response(
            GraphRebuildSerializer({"site": site.pk, "job": job.pk, "requested_at": job.created_at}).data,
            status=status.HTTP_202_ACCEPTED,
        )


class ScreenViewSet(UploadEndpoint, mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet):
    """Screens you captured (reviewers and admins see all). Upload with a multipart
    ``POST`` of ``file`` and optionally ``url``, ``title`` and ``assignment``; send an
    ``Idempotency-Key`` (or the field ``idempotency_key``) so that a retried upload
    answers 200 with the screen the first one made instead of making a second."""

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
            assignment = self.request.query_params["assignment"]
            if not assignment.isdigit():
                raise DomainError(f"?assignment= takes an assignment id (a number), not {assignment!r}.")
            queryset = queryset.filter(assignment_id=int(assignment))
        return queryset

    @extend_schema(
        request={"multipart/form-data": ScreenUploadSerializer},
        parameters=[IDEMPOTENCY_KEY_HEADER],
        responses={200: ScreenSerializer, 201: ScreenSerializer, **KEYED_UPLOAD_REFUSALS},
    )
    def create(self, request, *args, **kwargs):
        earlier = assets_selectors.made_with_key(
            user=request.user, key=idempotency_key(request, read_body=False), model=Screen
        )
        if earlier is not None:  # a retry: answered without reading the file again
            return Response(ScreenSerializer(earlier).data, status=status.HTTP_200_OK)
        upload = ScreenUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        screen, replayed = assets.once_per_key(
            user=request.user,
            key=idempotency_key(request),
            model=Screen,
            make=lambda: _capture(upload.validated_data, request.user),
        )
        return Response(
            ScreenSerializer(screen).data, status=status.HTTP_200_OK if replayed else status.HTTP_201_CREATED
        )

    def destroy(self, request, *args, **kwargs):
        services.remove_screen(screen=self.get_object(), author=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _capture(data, author):
    assignment = None
    if data.get("assignment"):
        assignment = Assignment.objects.filter(pk=data["assignment"]).first()
        if assignment is None or assignment.worker_id != author.pk:
            raise NotYourAssignment("Screens can be attached only to your own assignments.")
        if not assignment.is_open:
            raise AssignmentClosed(f"This assignment is already {assignment.get_state_display().lower()}.")
    return services.capture_screen(
        file=data["file"],
        author=author,
        url=data.get("url", ""),
        title=data.get("title", ""),
        assignment=assignment,
        viewport_width=data.get("viewport_width"),
        viewport_height=data.get("viewport_height"),
    )


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


class BlockListView(APIView):
    """Pages the extension must never capture."""

    @extend_schema(responses={200: dict})
    def get(self, request):
        return Response(selectors.block_list())


class TraceViewSet(UploadEndpoint, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Your recorded traces: start one, add its steps, finish it (see docs/trace-api.md)."""

    serializer_class = TraceSerializer
    throttle_classes = [UploadThrottle]
    parser_classes = [parsers.JSONParser, parsers.MultiPartParser, parsers.FormParser]
    upload_actions = ("steps",)

    def upload_allowance(self):
        # A step's metadata may carry the page's HTML: up to Django's cap on form fields.
        return settings.DATA_UPLOAD_MAX_MEMORY_SIZE + MULTIPART_OVERHEAD

    def get_queryset(self):
        queryset = Trace.objects.select_related("category").prefetch_related(
            Prefetch("steps", queryset=TraceStep.objects.select_related("screen").order_by("position"))
        )
        if getattr(self, "swagger_fake_view", False):
            return queryset.none()
        if not self.request.user.has_role(Role.REVIEWER):
            queryset = queryset.filter(author=self.request.user)
        return queryset.order_by("-id")

    @extend_schema(request=TraceStartSerializer, responses={200: TraceSerializer, 201: TraceSerializer})
    def create(self, request, *args, **kwargs):
        data = validated(TraceStartSerializer, request.data)
        trace, created = services.start_trace(
            author=request.user,
            client_id=data["client_id"],
            category=data["category"],
            batch_id=data.get("batch"),
            started_at=data.get("started_at"),
            user_agent=data.get("user_agent", ""),
        )
        return Response(TraceSerializer(trace).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(
        request={"multipart/form-data": StepUploadSerializer},
        responses={200: TraceStepSerializer, 201: TraceStepSerializer, **UPLOAD_REFUSALS},
    )
    @action(detail=True, methods=["post"], parser_classes=[parsers.MultiPartParser])
    def steps(self, request, pk=None):
        upload = validated(StepUploadSerializer, request.data)
        try:
            metadata = json.loads(upload["step"])
        except ValueError:
            raise serializers.ValidationError({"step": ["The step part is not valid JSON."]}) from None
        step = StepInSerializer(data=metadata)
        if not step.is_valid():
            raise serializers.ValidationError({"step": step.errors})
        stored, created = services.add_step(
            trace_id=url_id(pk, what="trace"),
            author=request.user,
            screenshot=upload["screenshot"],
            step=step.validated_data,
        )
        return Response(
            TraceStepSerializer(stored).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )

    @extend_schema(request=FinishSerializer, responses=TraceSerializer)
    @action(detail=True, methods=["post"])
    def finish(self, request, pk=None):
        data = validated(FinishSerializer, request.data)
        trace = services.finish_trace(
            trace_id=url_id(pk, what="trace"), author=request.user, step_count=data["step_count"]
        )
        return Response(TraceSerializer(self.get_queryset().get(pk=trace.pk)).data)


PoolAdmin = requires(Role.ADMIN, "Only admins can manage the image and snippet pools.")


class PoolImportViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Imports into the image and snippet pools (admins). ``POST`` starts one as a job;
    poll its ``state``, ``processed`` of ``total`` and the line-numbered ``errors``."""

    serializer_class = PoolImportSerializer
    permission_classes = [PoolAdmin]
    throttle_classes = [WriteThrottle]
    queryset = PoolImport.objects.all()

    def get_object(self):
        job = PoolImport.objects.filter(pk=url_id(self.kwargs["pk"], what="import")).first()
        if job is None:
            raise NotFound(f"There is no import {self.kwargs['pk']}.")
        return job

    @extend_schema(request=PoolImportStartSerializer, responses={202: PoolImportSerializer})
    def create(self, request):
        data = validated(PoolImportStartSerializer, request.data)
        job = pools.start_import(kind=data["kind"], source=data["source"], user=request.user)
        job.refresh_from_db()
        return Response(PoolImportSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class ImageSourceViewSet(viewsets.ReadOnlyModelViewSet):
    """Pool images (admins); filter with ``?topic=``."""

    serializer_class = ImageSourceSerializer
    permission_classes = [PoolAdmin]

    def get_queryset(self):
        images = ImageSource.objects.select_related("asset").order_by("id")
        topic = self.request.query_params.get("topic")
        return images.filter(topic=topic) if topic else images


class SnippetViewSet(viewsets.ReadOnlyModelViewSet):
    """Pool snippets (admins); filter with ``?topic=``."""

    serializer_class = SnippetSerializer
    permission_classes = [PoolAdmin]

    def get_queryset(self):
        pool = Snippet.objects.order_by("id")
        topic = self.request.query_params.get("topic")
        return pool.filter(topic=topic) if topic else pool
