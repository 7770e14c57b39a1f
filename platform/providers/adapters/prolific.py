"""Prolific (https://www.prolific.com): participants open the study's URL with their
ids, work through a number of tasks and are sent back with a completion code; decisions
and bonuses go to Prolific's researcher API."""

import json
import re
import urllib.error
import urllib.request

from django.conf import settings as django_settings
from rest_framework import serializers

from .. import registry
from ..errors import ProviderUnreachable, SessionMismatch
from .base import Answer, Call, ProviderAdapter, ProviderSettings

PROLIFIC_ID = re.compile(r"^[0-9a-f]{24}$")
REJECTION_CATEGORIES = [
    "TOO_QUICKLY",
    "TOO_SLOWLY",
    "FAILED_INSTRUCTIONS",
    "INCOMP_LONGITUDINAL",
    "FAILED_CHECK",
    "LOW_EFFORT",
    "MALINGERING",
    "NO_CODE",
    "BAD_CODE",
    "NO_DATA",
    "UNSUPP_DEVICE",
    "OTHER",
]


class ProlificSettings(ProviderSettings):
    tasks = serializers.IntegerField(min_value=1, help_text="Tasks each participant does.")
    completion_code = serializers.CharField(max_length=64)
    screened_out_code = serializers.CharField(max_length=64)
    return_code = serializers.CharField(
        max_length=64, required=False, help_text="For participants who stop early; the screened-out code if unset."
    )
    study_id = serializers.RegexField(
        PROLIFIC_ID, required=False, help_text="When set, arrivals naming another study are refused."
    )
    rejection_category = serializers.ChoiceField(choices=REJECTION_CATEGORIES, default="OTHER")


@registry.provider
class Prolific(ProviderAdapter):
    name = "prolific"
    title = "Prolific"
    settings_serializer = ProlificSettings
    once_per_batch = True

    def check_study(self, *, settings, study_id):
        if settings.get("study_id") and settings["study_id"] != study_id:
            raise SessionMismatch("This link is for another Prolific study; open the study again from Prolific.")

    def completion_url(self, code):
        return f"{django_settings.PROLIFIC_COMPLETION_URL}?cc={code}"

    def code_for(self, *, settings, state):
        """The code a session that ended in ``state`` is sent back with."""
        if state == "completed":
            return settings["completion_code"]
        if state == "returned":
            return settings.get("return_code") or settings["screened_out_code"]
        return settings["screened_out_code"]

    def decision_calls(self, *, session, settings, approved, feedback):
        body = {"action": "APPROVE"}
        if not approved:
            body = {"action": "REJECT", "message": feedback, "rejection_category": settings["rejection_category"]}
        purpose = "approve" if approved else "reject"
        return [Call(purpose, f"/api/v1/submissions/{session.external_id}/transition/", body)]

    def bonus_calls(self, *, session, settings, assignment, amount, reason, number):
        body = {"study_id": session.study_id, "csv_bonuses": f"{session.worker.external_id},{amount:.2f}"}
        return [Call("bonus", "/api/v1/submissions/bonus-payments/", body)]

    def after(self, *, call, answer):
        # A bonus is set up first, then paid.
        if call.purpose == "bonus" and answer.data and answer.data.get("id"):
            return [Call("bonus_pay", f"/api/v1/bulk-bonus-payments/{answer.data['id']}/pay/", {})]
        return []

    def send(self, call):
        request = urllib.request.Request(
            django_settings.PROLIFIC_API_URL + call.path,
            data=json.dumps(call.request_body).encode(),
            method=call.method,
            headers={
                "Authorization": f"Token {django_settings.PROLIFIC_API_TOKEN}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=django_settings.PROVIDER_TIMEOUT_SECONDS) as response:
                status, text = response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode("utf-8", "replace")
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            raise ProviderUnreachable(f"{type(error).__name__}: {error}") from None
        try:
            data = json.loads(text) if text else None
        except ValueError:
            data = None
        return Answer(status, text, data if isinstance(data, dict) else None)
