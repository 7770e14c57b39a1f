"""REST API v1 for qualification tests, worker quality and test candidates."""

from django.contrib.auth import get_user_model
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Role
from config.api import WriteThrottle, validated
from config.errors import NotFound
from corpus.models import QAPair
from releases.models import Release

from . import quality, selectors, services
from .errors import NotAllowed
from .serializers import (
    AttemptInSerializer,
    AttemptSerializer,
    QualityQuerySerializer,
    QualitySerializer,
    ReferenceSetsInSerializer,
    ReferenceSetsOutSerializer,
    TestDetailSerializer,
    TestStatusSerializer,
)

SLUG_PATTERN = "[-a-zA-Z0-9_]+"  # what a SlugField holds
_SLUG = OpenApiParameter(
    "slug", str, OpenApiParameter.PATH, pattern=f"^{SLUG_PATTERN}$", description="The test's slug."
)


@extend_schema_view(retrieve=extend_schema(parameters=[_SLUG]), attempts=extend_schema(parameters=[_SLUG]))
class QualificationTestViewSet(viewsets.ViewSet):
    """Qualification tests with your standing in each; ``attempts/`` submits one attempt."""

    lookup_field = "slug"
    # Any other address names no test: a 404, before the database sees it.
    lookup_value_regex = SLUG_PATTERN
    throttle_classes = [WriteThrottle]

    @extend_schema(responses=TestStatusSerializer(many=True))
    def list(self, request):
        return Response(TestStatusSerializer(selectors.statuses_for(worker=request.user), many=True).data)

    @extend_schema(responses=TestDetailSerializer)
    def retrieve(self, request, slug=None):
        test = selectors.active_test(slug)
        return Response(TestDetailSerializer(selectors.status_of(worker=request.user, test=test)).data)

    @extend_schema(request=AttemptInSerializer, responses={201: AttemptSerializer})
    @action(detail=True, methods=["post"])
    def attempts(self, request, slug=None):
        test = selectors.active_test(slug)
        data = validated(AttemptInSerializer, request.data)
        attempt = services.submit_attempt(test=test, worker=request.user, answers=data["answers"])
        return Response(AttemptSerializer(attempt).data, status=status.HTTP_201_CREATED)


class QualityView(APIView):
    """Your quality record; reviewers and admins may ask for a worker's (``?worker=``)."""

    @extend_schema(responses=QualitySerializer, parameters=[QualityQuerySerializer])
    def get(self, request):
        worker = request.user
        if request.query_params.get("worker"):
            if not request.user.has_role(Role.REVIEWER):
                raise NotAllowed("Only reviewers and admins see other workers' records.")
            worker_id = validated(QualityQuerySerializer, request.query_params)["worker"]
            worker = get_user_model().objects.filter(pk=worker_id).first()
            if worker is None:
                raise NotFound(f"There is no worker {worker_id}.")
        return Response(QualitySerializer(quality.standing_of(worker=worker)).data)


class ReferenceSetsView(APIView):
    """Admins choose test items for reference answers (five sentences each) from the test
    split of a draft release: all of it not chosen yet (up to ``limit``), or the given
    pairs that are in it; the others are skipped with the reason."""

    throttle_classes = [WriteThrottle]

    @extend_schema(request=ReferenceSetsInSerializer, responses={201: ReferenceSetsOutSerializer})
    def post(self, request):
        data = validated(ReferenceSetsInSerializer, request.data)
        release = None
        if "release" in data:
            release = Release.objects.filter(pk=data["release"]).first()
            if release is None:
                raise NotFound(f"There is no release {data['release']}.")
        pairs, unknown = None, []
        if "qa_pairs" in data:
            pairs = list(QAPair.objects.filter(pk__in=data["qa_pairs"]).order_by("id"))
            unknown = sorted(set(data["qa_pairs"]) - {pair.pk for pair in pairs})
            if unknown and not pairs:
                raise NotFound(f"No QA pair has the id {', '.join(map(str, unknown))}.")
        result = services.choose_test_candidates(actor=request.user, release=release, qa_pairs=pairs,
                                                 limit=data["limit"])  # fmt: skip
        skipped = {**result.skipped, **dict.fromkeys(unknown, "no such QA pair")}
        body = {
            "release": result.release.pk,
            "created": len(result.created),
            "qa_pairs": [reference_set.qa_pair_id for reference_set in result.created],
            "skipped": [{"qa_pair": pair_id, "reason": reason} for pair_id, reason in sorted(skipped.items())],
        }
        return Response(ReferenceSetsOutSerializer(body).data, status=status.HTTP_201_CREATED)
