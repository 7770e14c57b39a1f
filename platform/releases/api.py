"""REST API for releases: researchers list published releases, read their manifest and
datasheet, download files and compare versions; admins define and build them."""

from django.db import transaction
from django.http import FileResponse, HttpResponseRedirect
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from accounts.models import Role
from config.api import WriteThrottle, url_id, validated
from config.errors import DomainError, NotFound

from . import selectors, services
from .diff import diff_summary
from .models import FAMILIES, Evaluation, Release, ReleaseFile


class NotAllowed(DomainError):
    status = 403
    code = "forbidden"


class ReleaseSerializer(serializers.ModelSerializer):
    version = serializers.CharField()
    parent = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    def get_parent(self, release) -> dict | None:
        if release.parent_id is None:
            return None
        return {"id": release.parent_id, "name": release.parent.name, "version": release.parent.version}

    def get_progress(self, release) -> dict:
        return selectors.progress(release)

    def get_url(self, release) -> str:
        return f"/api/v1/releases/{release.pk}/"

    class Meta:
        model = Release
        fields = ["id", "url", "name", "version", "state", "families", "qa_states", "split_strategy",
                  "webvln_setting", "seed",
                  "train_percent", "val_percent", "parent", "notes", "test_answers_public", "progress", "message",
                  "snapshot_at",
                  "published_at", "created_at"]  # fmt: skip


class ReleaseDetailSerializer(ReleaseSerializer):
    class Meta(ReleaseSerializer.Meta):
        fields = [*ReleaseSerializer.Meta.fields, "counts", "manifest", "datasheet", "rebuild_check"]


# The largest version part and seed the database stores (PositiveIntegerField).
LARGEST_STORED = 2**31 - 1


class ReleaseCreateSerializer(serializers.Serializer):
    name = serializers.SlugField(max_length=80)
    version = serializers.CharField(max_length=40, help_text="major.minor.patch, higher than the name's latest.")
    families = serializers.ListField(child=serializers.ChoiceField(choices=FAMILIES), default=list(FAMILIES))
    qa_states = serializers.ListField(child=serializers.CharField(), default=["accepted"])
    split_strategy = serializers.ChoiceField(choices=Release.SplitStrategy.choices, default="adversarial")
    webvln_setting = serializers.ChoiceField(
        choices=Release.WebVLNSetting.choices, default="seen",
        help_text="seen: every website in every split, episodes split (WebVLN-v1); unseen: whole websites per split.",
    )  # fmt: skip
    seed = serializers.IntegerField(min_value=0, max_value=LARGEST_STORED, default=0)
    train_percent = serializers.IntegerField(min_value=1, max_value=100, default=80)
    val_percent = serializers.IntegerField(min_value=0, max_value=99, default=10)
    parent = serializers.IntegerField(required=False, allow_null=True, help_text="Id of a published release.")
    notes = serializers.CharField(required=False, allow_blank=True, default="")
    test_answers_public = serializers.BooleanField(
        default=False, help_text="Ship the test answers in the public download instead of the evaluation set only."
    )
    build = serializers.BooleanField(default=True, help_text="Start the build at once.")

    def validate_version(self, value):
        # The form itself (major.minor.patch) is the service's to check; here, the size.
        if any(part.isdecimal() and int(part) > LARGEST_STORED for part in value.strip().split(".")):
            raise serializers.ValidationError(f"Each part of a version is at most {LARGEST_STORED}.")
        return value


class ReleaseFilterSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, max_length=80, help_text="Only the versions of this dataset.")


class ReleaseFileSerializer(serializers.ModelSerializer):
    download = serializers.SerializerMethodField()

    def get_download(self, release_file) -> str:
        return f"/api/v1/releases/{release_file.release_id}/files/{release_file.path}"

    class Meta:
        model = ReleaseFile
        fields = ["path", "size", "sha256", "private", "download"]


class EvaluationSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    submitted_by = serializers.CharField(source="submitted_by.username", read_only=True)

    def get_url(self, run) -> str:
        return f"/api/v1/releases/{run.release_id}/evaluations/{run.pk}/"

    class Meta:
        model = Evaluation
        fields = ["id", "url", "release", "family", "split", "name", "public", "submitted_by", "state", "metrics",
                  "per_category", "missing", "count", "message", "created_at", "finished_at"]  # fmt: skip


class EvaluationInSerializer(serializers.Serializer):
    predictions = serializers.FileField(help_text="The predictions file, in the family's format (docs/evaluation.md).")
    family = serializers.ChoiceField(choices=FAMILIES)
    split = serializers.ChoiceField(choices=["val", "test"])
    name = serializers.CharField(max_length=120, help_text="The model or run, as the leaderboard shows it.")
    public = serializers.BooleanField(default=False, help_text="Show the result on the release's leaderboard.")


class ReleaseViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Dataset releases. Everyone signed in sees published ones; admins see drafts and
    running builds too, and create them (``POST``, then poll the release's ``state`` and
    ``progress``). Filter with ``?name=``."""

    throttle_classes = [WriteThrottle]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Release.objects.none()
        releases = selectors.visible_releases(user=self.request.user)
        if self.action == "list":
            releases = releases.filter(**validated(ReleaseFilterSerializer, self.request.query_params))
        return releases

    @extend_schema(parameters=[ReleaseFilterSerializer])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def get_serializer_class(self):
        if self.action == "create":
            return ReleaseCreateSerializer
        return ReleaseDetailSerializer if self.action == "retrieve" else ReleaseSerializer

    def get_object(self):
        release = self.get_queryset().filter(pk=url_id(self.kwargs["pk"], what="release")).first()
        if release is None:
            raise NotFound(f"There is no release {self.kwargs['pk']}, or it is not published yet.")
        return release

    def _admin(self):
        if not self.request.user.has_role(Role.ADMIN):
            raise NotAllowed("Only admins define and build releases.")

    @extend_schema(request=ReleaseCreateSerializer, responses={201: ReleaseDetailSerializer})
    def create(self, request):
        self._admin()
        data = validated(ReleaseCreateSerializer, request.data)
        parent = None
        if data.get("parent"):
            parent = Release.objects.filter(pk=data["parent"]).first()
            if parent is None:
                raise NotFound(f"There is no release {data['parent']}.")
        build = data.pop("build")
        data.pop("parent", None)
        with transaction.atomic():  # an empty release is refused whole, not left as a draft
            release = services.create_release(**data, parent=parent, created_by=request.user)
            if build:
                services.check_not_empty(release=release)
                release = services.start_build(release=release)
        release.refresh_from_db()  # a build run at once (no broker) has published or failed by now
        return Response(ReleaseDetailSerializer(release).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={202: ReleaseSerializer})
    @action(detail=True, methods=["post"])
    def build(self, request, pk=None):
        """Starts the build of a draft or failed release (or one whose worker died); a
        release that would hold no QA pair is refused (``empty_release``)."""
        self._admin()
        release = self.get_object()
        services.check_not_empty(release=release)
        release = services.start_build(release=release)
        return Response(ReleaseSerializer(release).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={200: ReleaseFileSerializer(many=True)})
    @action(detail=True, methods=["get"])
    def files(self, request, pk=None):
        """Every file of a published release, with its size and SHA-256."""
        release = self._published()
        files = selectors.visible_files(release=release, user=request.user).order_by("path")
        page = self.paginate_queryset(files)
        return self.get_paginated_response(ReleaseFileSerializer(page, many=True).data)

    @extend_schema(
        parameters=[OpenApiParameter("against", int, description="Release id to compare with; the parent by default.")],
        responses={200: inline_serializer("ReleaseDiff", {"from": serializers.CharField(), "to": serializers.CharField(),
                                                          "splits": serializers.DictField()})},
    )  # fmt: skip
    @action(detail=True, methods=["get"])
    def diff(self, request, pk=None):
        """QA pairs added, removed and changed per split (counts and the first 100 ids;
        the full lists are the release's ``diff.json``)."""
        release = self._published()
        against = release.parent
        if request.query_params.get("against"):
            against_id = url_id(request.query_params["against"], what="release")
            against = selectors.visible_releases(user=request.user).filter(pk=against_id, state="published").first()
            if against is None:
                raise NotFound(f"There is no published release {against_id}.")
        if against is None:
            raise DomainError(f"{release} has no parent: say which release to compare with (?against=id).")
        return Response(diff_summary(release=release, against=against))

    @extend_schema(
        methods=["GET"],
        responses={200: EvaluationSerializer(many=True)},
        description="Your evaluations of this release, and everyone's public ones (admins see all).",
    )
    @extend_schema(
        methods=["POST"], request={"multipart/form-data": EvaluationInSerializer}, responses={202: EvaluationSerializer}
    )
    @action(detail=True, methods=["get", "post"], parser_classes=[MultiPartParser, FormParser])
    def evaluations(self, request, pk=None):
        """Scores a predictions file against the val or test split with the family's own
        metric (``POST``: the file is checked at once, then scored by a job; poll the run's
        ``state``). Test answers stay private: the platform reads them, nobody downloads them."""
        release = self._published()
        if request.method == "GET":
            runs = selectors.visible_evaluations(release=release, user=request.user)
            page = self.paginate_queryset(runs)
            return self.get_paginated_response(EvaluationSerializer(page, many=True).data)
        data = validated(EvaluationInSerializer, request.data)
        run = services.submit_evaluation(
            release=release, family=data["family"], split=data["split"], predictions=data["predictions"].read(),
            name=data["name"], public=data["public"], user=request.user,
        )  # fmt: skip
        return Response(EvaluationSerializer(run).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={200: EvaluationSerializer})
    @action(detail=True, methods=["get"], url_path=r"evaluations/(?P<evaluation_id>[0-9]+)")
    def evaluation(self, request, pk=None, evaluation_id=None):
        """One evaluation run: its state, metrics and per-category tables."""
        release = self._published()
        run = selectors.visible_evaluations(release=release, user=request.user).filter(pk=evaluation_id).first()
        if run is None:
            raise NotFound(f"Release {release.pk} has no evaluation {evaluation_id} of yours.")
        return Response(EvaluationSerializer(run).data)

    def _published(self):
        release = self.get_object()
        if not release.is_published:
            raise NotFound(f"{release} is not published yet.")
        return release


@extend_schema(
    responses={(200, "application/octet-stream"): OpenApiTypes.BINARY, 302: None},
    description="Downloads one file of a published release: a redirect to a short-lived signed link on S3, "
    "the file itself on local storage.",
)
class ReleaseFileDownload(viewsets.ViewSet):
    def retrieve(self, request, pk=None, path=""):
        release = (
            selectors.visible_releases(user=request.user)
            .filter(pk=url_id(pk, what="release"), state=Release.State.PUBLISHED)
            .first()
        )
        release_file = release and selectors.release_file(release=release, path=path, user=request.user)
        if release_file is None:
            raise NotFound(f"Release {pk} has no file {path}.")
        return serve(release, release_file)


def serve(release, release_file):
    from django.core.files.storage import default_storage

    key = selectors.storage_key(release, release_file)
    if selectors.signs_urls():
        response = HttpResponseRedirect(default_storage.url(key))
        response["Cache-Control"] = "private, no-store"
        return response
    response = FileResponse(
        default_storage.open(key, "rb"), as_attachment=True, filename=release_file.path.rsplit("/", 1)[-1]
    )
    response["Content-Length"] = str(release_file.size)
    response["X-Checksum-SHA256"] = release_file.sha256
    return response
