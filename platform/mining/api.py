"""REST API for the mining jobs: runs (start, poll, retry), distractors and reasoning checks.

Staff only: admins start and retry runs; reviewers and admins read everything here."""

from django.db.models import Prefetch
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts.models import Role
from accounts.permissions import requires
from config.api import WriteThrottle, url_id, validated
from config.errors import NotFound
from hits.models import Batch

from . import services
from .models import Distractor, MiningChunk, MiningRun, ReasoningCheck
from .serializers import (
    DistractorFilterSerializer,
    DistractorSerializer,
    MiningRunSerializer,
    ReasoningCheckFilterSerializer,
    ReasoningCheckSerializer,
    ResolveCheckSerializer,
    RunFilterSerializer,
    StartRunSerializer,
)

QA_PAIR = OpenApiParameter("qa_pair", int, description="Only this QA pair's.")

SeesMining = requires(Role.REVIEWER, "Only reviewers and admins can see mining results.")
RunsMining = requires(Role.ADMIN, "Only admins can start or retry mining runs.")


class MiningRunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Categorisation and mining runs; poll one for its state and progress.

    ``POST`` starts a run (202): ``{"job": "mine" | "categorise", "scope": "new" | "all" |
    "batch" | "qa_pairs", "batch": id, "qa_pairs": [ids]}``."""

    serializer_class = MiningRunSerializer
    throttle_classes = [WriteThrottle]

    def get_permissions(self):
        return [RunsMining()] if self.action in ("create", "retry") else [SeesMining()]

    def get_queryset(self):
        runs = MiningRun.objects.prefetch_related(Prefetch("chunks", queryset=MiningChunk.objects.only("run", "state")))
        if self.action == "list":
            runs = runs.filter(**validated(RunFilterSerializer, self.request.query_params))
        return runs.order_by("-id")

    @extend_schema(parameters=[RunFilterSerializer])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=StartRunSerializer, responses={202: MiningRunSerializer})
    def create(self, request):
        data = validated(StartRunSerializer, request.data)
        batch = None
        if data.get("batch"):
            batch = Batch.objects.filter(pk=data["batch"]).first()
            if batch is None:
                raise NotFound(f"There is no batch {data['batch']}.")
        run = services.start_run(
            job=data["job"],
            scope=data["scope"],
            batch=batch,
            qa_pair_ids=data.get("qa_pairs", ()),
            chunk_size=data.get("chunk_size"),
            created_by=request.user,
        )
        return Response(MiningRunSerializer(self.get_queryset().get(pk=run.pk)).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={202: MiningRunSerializer})
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        """Retries a failed run's failed chunks; its done chunks are not redone."""
        run = services.retry_failed_chunks(run=self.get_object())
        return Response(MiningRunSerializer(self.get_queryset().get(pk=run.pk)).data, status=status.HTTP_202_ACCEPTED)


class DistractorViewSet(viewsets.ReadOnlyModelViewSet):
    """Mined distractors, best first; filter with ``?qa_pair=``, ``?kind=``."""

    serializer_class = DistractorSerializer
    permission_classes = [SeesMining]

    @extend_schema(parameters=[QA_PAIR, DistractorFilterSerializer])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def get_queryset(self):
        distractors = Distractor.objects.order_by("qa_pair_id", "kind", "rank")
        params = self.request.query_params
        if params.get("qa_pair"):
            distractors = distractors.filter(qa_pair_id=url_id(params["qa_pair"], what="QA pair"))
        if self.action == "list":
            distractors = distractors.filter(**validated(DistractorFilterSerializer, params))
        return distractors


class ReasoningCheckViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Checks of screen questions' ticked reasoning types; ``?state=open`` lists the
    disagreements waiting for a reviewer, who closes one with ``resolve/``."""

    serializer_class = ReasoningCheckSerializer
    permission_classes = [SeesMining]
    throttle_classes = [WriteThrottle]

    def get_queryset(self):
        checks = ReasoningCheck.objects.order_by("-id")
        params = self.request.query_params
        if params.get("qa_pair"):
            checks = checks.filter(qa_pair_id=url_id(params["qa_pair"], what="QA pair"))
        if self.action == "list":
            checks = checks.filter(**validated(ReasoningCheckFilterSerializer, params))
        return checks

    @extend_schema(parameters=[QA_PAIR, ReasoningCheckFilterSerializer])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=ResolveCheckSerializer, responses=ReasoningCheckSerializer)
    @action(detail=True, methods=["post"])
    def resolve(self, request, pk=None):
        data = validated(ResolveCheckSerializer, request.data)
        check = services.resolve_reasoning_check(check=self.get_object(), actor=request.user, note=data.get("note", ""))
        return Response(ReasoningCheckSerializer(check).data)
