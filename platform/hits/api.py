"""REST API v1 for the work engine. Views check input and call a service; nothing more."""

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts.models import Role
from accounts.permissions import IsAdmin, requires
from config.api import WriteThrottle, url_id, validated

from . import selectors, services
from .models import Assignment, Batch
from .serializers import (
    AssignmentFilterSerializer,
    AssignmentSerializer,
    AvailableBatchSerializer,
    BatchSerializer,
    BlockSerializer,
    BonusSerializer,
    DraftSerializer,
    FeedbackSerializer,
    RejectSerializer,
    RequestTaskSerializer,
    SubmitSerializer,
    TasksInSerializer,
    assignment_data,
)


class BatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet):
    """Batches. Workers list the open work they can see (``/batches/available/``);
    admins create batches, add tasks, open and close them."""

    serializer_class = BatchSerializer
    throttle_classes = [WriteThrottle]

    def get_permissions(self):
        if self.action == "available":
            return [permissions.IsAuthenticated()]
        return [IsAdmin()]

    def get_queryset(self):
        return Batch.objects.prefetch_related("required_qualifications").order_by("-id")

    def perform_create(self, serializer):
        serializer.instance = services.create_batch(created_by=self.request.user, **serializer.validated_data)

    @extend_schema(responses=AvailableBatchSerializer(many=True))
    @action(detail=False)
    def available(self, request):
        """Open batches, each with whether you may take its tasks and, if not, why."""
        rows = selectors.open_batches_for(worker=request.user)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(AvailableBatchSerializer(page, many=True).data)

    @extend_schema(request=TasksInSerializer, responses={201: None})
    @action(detail=True, methods=["post"])
    def tasks(self, request, pk=None):
        """Adds tasks; every payload is checked against the kind's input schema first."""
        batch = self.get_object()
        data = validated(TasksInSerializer, request.data)
        try:
            tasks = services.add_tasks(
                batch=batch, payloads=data["payloads"], assignments_wanted=data.get("assignments_wanted")
            )
        except serializers.ValidationError as error:
            raise serializers.ValidationError({"payloads": error.detail}) from None
        return Response({"created": len(tasks)}, status=status.HTTP_201_CREATED)

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def open(self, request, pk=None):
        return Response(BatchSerializer(services.open_batch(batch=self.get_object(), actor=request.user)).data)

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def close(self, request, pk=None):
        return Response(BatchSerializer(services.close_batch(batch=self.get_object(), actor=request.user)).data)


class AssignmentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Your assignments (reviewers and admins see everyone's).

    ``POST /assignments/`` with a batch asks for the next task in it: 201 with a new
    assignment, or 200 with the one you already hold there.
    """

    serializer_class = AssignmentSerializer
    throttle_classes = [WriteThrottle]

    def get_queryset(self):
        queryset = Assignment.objects.select_related("batch", "task").order_by("-id")
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return queryset.none()
        user = self.request.user
        if not user.has_role(Role.REVIEWER):
            queryset = queryset.filter(worker=user)
        if self.action == "list":
            queryset = queryset.filter(**validated(AssignmentFilterSerializer, self.request.query_params))
        return queryset

    @extend_schema(parameters=[AssignmentFilterSerializer])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=RequestTaskSerializer, responses={200: AssignmentSerializer, 201: AssignmentSerializer})
    def create(self, request):
        batch_id = plain_id(request.data, "batch")
        if batch_id is None:  # anything else gets the serializer's field errors
            batch_id = validated(RequestTaskSerializer, request.data)["batch"]
        assignment, created = services.request_next_task(worker=request.user, batch_id=batch_id)
        return Response(assignment_data(assignment), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(request=SubmitSerializer, responses=AssignmentSerializer)
    @action(detail=True, methods=["post"])
    def submit(self, request, pk=None):
        data = plain_submission(request.data) or validated(SubmitSerializer, request.data)
        return Response(assignment_data(submit_answer(worker=request.user, data=data, pk=pk)))

    @extend_schema(request=DraftSerializer, responses={204: None})
    @action(detail=True, methods=["put"])
    def draft(self, request, pk=None):
        """Saves work in progress on an open assignment; the task page does this as you type."""
        data = validated(DraftSerializer, request.data)
        services.save_draft(assignment_id=url_id(pk, what="assignment"), worker=request.user, draft=data["draft"])
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses=AssignmentSerializer)
    @action(detail=True, methods=["post"], url_path="return")
    def return_(self, request, pk=None):
        assignment = services.return_assignment(assignment_id=url_id(pk, what="assignment"), worker=request.user)
        return Response(AssignmentSerializer(assignment).data)

    @extend_schema(request=FeedbackSerializer, responses=AssignmentSerializer)
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        data = validated(FeedbackSerializer, request.data)
        assignment = services.approve_assignment(
            assignment_id=url_id(pk, what="assignment"), actor=request.user, feedback=data.get("feedback", "")
        )
        return Response(AssignmentSerializer(assignment).data)

    @extend_schema(request=RejectSerializer, responses=AssignmentSerializer)
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        data = validated(RejectSerializer, request.data)
        assignment = services.reject_assignment(
            assignment_id=url_id(pk, what="assignment"), actor=request.user, feedback=data["feedback"]
        )
        return Response(AssignmentSerializer(assignment).data)

    @extend_schema(request=BonusSerializer, responses=AssignmentSerializer)
    @action(detail=True, methods=["post"])
    def bonus(self, request, pk=None):
        data = validated(BonusSerializer, request.data)
        assignment = services.grant_bonus(
            assignment_id=url_id(pk, what="assignment"),
            actor=request.user,
            amount=data["amount"],
            reason=data["reason"],
        )
        return Response(AssignmentSerializer(assignment).data)


# The hand-out's and submission's bodies as clients send them, read without building a
# serializer; anything else (a missing field, a string for a number) goes through the
# serializer, whose errors say what to fix.
def plain_id(data, name):
    value = data.get(name) if isinstance(data, dict) else None
    return value if type(value) is int and value >= 1 else None


def plain_submission(data):
    if not isinstance(data, dict) or not isinstance(data.get("answer"), dict):
        return None
    if data.keys() - {"answer", "active_seconds"}:
        return None
    if "active_seconds" in data and not (type(data["active_seconds"]) is int and data["active_seconds"] >= 0):
        return None
    return data


class WorkerViewSet(viewsets.GenericViewSet):
    """Blocking and unblocking workers (reviewers and admins)."""

    queryset = get_user_model().objects.all()
    serializer_class = BlockSerializer
    permission_classes = [requires(Role.REVIEWER, "Only reviewers and admins can block or unblock workers.")]
    throttle_classes = [WriteThrottle]

    def get_object(self):
        return get_object_or_404(get_user_model(), pk=url_id(self.kwargs["pk"], what="worker"))

    @extend_schema(request=BlockSerializer, responses={204: None})
    @action(detail=True, methods=["post"])
    def block(self, request, pk=None):
        worker = self.get_object()
        data = validated(BlockSerializer, request.data)
        services.block_worker(worker=worker, actor=request.user, reason=data["reason"])
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["post"])
    def unblock(self, request, pk=None):
        services.unblock_worker(worker=self.get_object(), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def submit_answer(*, worker, data, pk):
    """Records ``worker``'s submission ``data`` (``answer``, ``active_seconds``) to the
    assignment ``pk`` of the URL; the DRF view and the fast path both submit through it."""
    try:
        return services.submit_assignment(
            assignment_id=url_id(pk, what="assignment"),
            worker=worker,
            data=data["answer"],
            active_seconds=data.get("active_seconds"),
        )
    except serializers.ValidationError as error:
        # Errors about the kind's fields are reported under "answer.<field>".
        raise serializers.ValidationError({"answer": error.detail}) from None
