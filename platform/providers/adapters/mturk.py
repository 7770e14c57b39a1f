"""Amazon Mechanical Turk: a batch is published as HITs whose question is Trailmark's
own page (an ExternalQuestion); workers do one task per HIT assignment, and decisions
and bonuses go to MTurk's requester API through boto3."""

import json
import math
from decimal import Decimal
from xml.sax.saxutils import escape

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from django.conf import settings as django_settings
from rest_framework import serializers

from .. import registry
from ..errors import ProviderUnreachable
from ..models import PublishedHit
from .base import Answer, Call, ProviderAdapter, ProviderSettings

# MTurk's system qualification types (the same ids on the sandbox and production).
PERCENT_APPROVED = "000000000000000000L0"
NUMBER_APPROVED = "00000000000000000040"
LOCALE = "00000000000000000071"
EXTERNAL_QUESTION = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"
# What MTurk puts in assignmentId while a worker only previews a HIT.
PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"


class MTurkSettings(ProviderSettings):
    hits = serializers.IntegerField(min_value=1, required=False, help_text="HITs to publish; one per task if unset.")
    assignments_per_hit = serializers.IntegerField(min_value=1, default=1)
    title = serializers.CharField(max_length=128, required=False)
    description = serializers.CharField(max_length=2000, required=False)
    keywords = serializers.CharField(max_length=1000, default="")
    lifetime_hours = serializers.IntegerField(min_value=1, default=72)
    auto_approve_days = serializers.IntegerField(min_value=0, max_value=30, default=3)
    frame_height = serializers.IntegerField(min_value=0, default=0, help_text="0: the worker's whole window.")


def external_question(url, frame_height):
    return (
        f'<ExternalQuestion xmlns="{EXTERNAL_QUESTION}">'
        f"<ExternalURL>{escape(url)}</ExternalURL><FrameHeight>{frame_height}</FrameHeight>"
        "</ExternalQuestion>"
    )


def qualification_requirements(batch):
    """The batch's eligibility rules as MTurk qualification requirements, checked by MTurk
    against the worker's MTurk record before they may accept a HIT."""
    requirements = []
    if batch.min_approval_rate is not None:
        percent = math.ceil(Decimal(batch.min_approval_rate) * 100)
        requirements.append(_requirement(PERCENT_APPROVED, "GreaterThanOrEqualTo", IntegerValues=[percent]))
    if batch.min_approved_count:
        requirements.append(
            _requirement(NUMBER_APPROVED, "GreaterThanOrEqualTo", IntegerValues=[batch.min_approved_count])
        )
    countries = []
    for locale in batch.allowed_locales or []:
        _language, _, region = locale.replace("_", "-").partition("-")
        if region and region.upper() not in countries:
            countries.append(region.upper())
    if countries:
        requirements.append(_requirement(LOCALE, "In", LocaleValues=[{"Country": c} for c in countries]))
    return requirements


def _requirement(type_id, comparator, **values):
    return {"QualificationTypeId": type_id, "Comparator": comparator, **values, "ActionsGuarded": "Accept"}


@registry.provider
class MechanicalTurk(ProviderAdapter):
    name = "mturk"
    title = "Amazon Mechanical Turk"
    settings_serializer = MTurkSettings
    publish_purpose = "create_hit"

    def publish_calls(self, *, batch, settings, task_url, tasks, published):
        """One CreateHIT call per HIT still to publish; ``published`` counts those already
        asked for. Each carries a request token, so MTurk makes a repeated call a no-op."""
        wanted = settings.get("hits") or tasks
        minutes = batch.assignment_minutes or django_settings.ASSIGNMENT_MINUTES
        calls = []
        for number in range(published, wanted):
            body = {
                "MaxAssignments": settings["assignments_per_hit"],
                "AutoApprovalDelayInSeconds": settings["auto_approve_days"] * 86400,
                "LifetimeInSeconds": settings["lifetime_hours"] * 3600,
                "AssignmentDurationInSeconds": minutes * 60,
                "Reward": f"{batch.reward:.2f}",
                "Title": settings.get("title") or batch.name,
                "Keywords": settings["keywords"],
                "Description": settings.get("description") or batch.description or batch.name,
                "Question": external_question(task_url, settings["frame_height"]),
                "QualificationRequirements": qualification_requirements(batch),
                "UniqueRequestToken": f"trailmark-batch-{batch.pk}-hit-{number}",
            }
            calls.append(Call("create_hit", "CreateHIT", body))
        return calls

    def decision_calls(self, *, session, settings, approved, feedback):
        if approved:
            body = {"AssignmentId": session.external_id}
            if feedback:
                body["RequesterFeedback"] = feedback[:1024]
            return [Call("approve", "ApproveAssignment", body)]
        body = {"AssignmentId": session.external_id, "RequesterFeedback": feedback[:1024]}
        return [Call("reject", "RejectAssignment", body)]

    def bonus_calls(self, *, session, settings, assignment, amount, reason, number):
        body = {
            "WorkerId": session.worker.external_id,
            "BonusAmount": f"{amount:.2f}",
            "AssignmentId": session.external_id,
            "Reason": reason[:4096],
            "UniqueRequestToken": f"trailmark-assignment-{assignment.pk}-bonus-{number}",
        }
        return [Call("bonus", "SendBonus", body)]

    def after(self, *, call, answer):
        hit = (answer.data or {}).get("HIT")
        if call.purpose == "create_hit" and hit and call.batch_id:
            PublishedHit.objects.get_or_create(
                hit_id=hit["HITId"],
                defaults={
                    "batch_id": call.batch_id,
                    "hit_type_id": hit.get("HITTypeId", ""),
                    "max_assignments": hit.get("MaxAssignments") or call.request_body["MaxAssignments"],
                    "request_token": call.request_body["UniqueRequestToken"],
                },
            )
        return []

    def client(self):
        return boto3.client(
            "mturk",
            region_name="us-east-1",
            endpoint_url=django_settings.MTURK_ENDPOINT_URL,
            aws_access_key_id=django_settings.MTURK_ACCESS_KEY_ID or None,
            aws_secret_access_key=django_settings.MTURK_SECRET_ACCESS_KEY or None,
            config=Config(
                connect_timeout=django_settings.PROVIDER_TIMEOUT_SECONDS,
                read_timeout=django_settings.PROVIDER_TIMEOUT_SECONDS,
                retries={"max_attempts": 1},
            ),
        )

    def send(self, call):
        client = self.client()
        method = {api: name for name, api in client.meta.method_to_api_mapping.items()}[call.path]
        try:
            response = getattr(client, method)(**call.request_body)
        except ClientError as error:
            status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 400
            return Answer(status, json.dumps(error.response.get("Error", {})), None)
        except BotoCoreError as error:
            raise ProviderUnreachable(f"{type(error).__name__}: {error}") from None
        status = response.pop("ResponseMetadata", {}).get("HTTPStatusCode", 200)
        data = json.loads(json.dumps(response, default=str))
        return Answer(status, json.dumps(data), data)
