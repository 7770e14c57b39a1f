"""Every change the providers app makes: workers arriving and leaving through a
provider, publishing HITs, and the provider calls that settle Trailmark's decisions.

Arrivals check everything before they write anything: a refused arrival leaves no
account, link or session behind. Provider calls are recorded (``ProviderCall``) in the
transaction of the decision that asks for them and made by a job (``providers.send_call``)
once it commits; each answer is recorded on the call.
"""

import re
import secrets
import time

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import RaterProfile
from accounts.services import create_user
from hits import services as hits
from hits.errors import AssignmentClosed, BatchNotOpen, NoTaskAvailable, NotEligible
from hits.models import Assignment, Batch
from outbox.services import enqueue

from . import registry, selectors
from .errors import BadArrival, NotSetUp, ProviderUnreachable, SessionMismatch
from .models import ProviderCall, ProviderSession, ProviderWorker, SessionAssignment

Session = ProviderSession.State
EXCERPT_CHARS = 2000


# --- Arrivals -------------------------------------------------------------------------------


def check_parameters(parameters, *, pattern, message):
    """The provider's parameters, each matching ``pattern``; ``BadArrival`` names the
    missing or malformed ones (and nothing is written)."""
    wrong = [name for name, value in parameters.items() if not value or not re.fullmatch(pattern, value)]
    if wrong:
        raise BadArrival(f"{message} Missing or malformed: {', '.join(wrong)}.")
    return parameters


def _batch(batch_id):
    batch = Batch.objects.filter(pk=batch_id).first()
    if batch is None:
        raise NotSetUp("This study link points to a batch that does not exist.")
    return batch


@transaction.atomic
def arrive(*, provider, batch_id, worker_id, study_id, external_id, submit_to=""):
    """A worker arrives from ``provider`` for a turn at a batch: returns their session,
    new or resumed, with its linked account. Refused (and nothing written) when the
    batch is not set up for the provider, or the ids contradict what is on record."""
    batch = _batch(batch_id)
    adapter, settings = selectors.settings_for(batch=batch, provider=provider)
    adapter.check_study(settings=settings, study_id=study_id)
    session = ProviderSession.objects.select_related("worker").filter(provider=provider, external_id=external_id)
    session = session.first()
    if session is not None:
        if session.worker.external_id != worker_id or session.batch_id != batch.pk or session.study_id != study_id:
            raise SessionMismatch(
                f"This {adapter.title} session was started by another worker or for another study; "
                f"open the study again from {adapter.title}."
            )
        return session
    link = _link(provider=provider, worker_id=worker_id)
    ProviderWorker.objects.select_for_update().filter(pk=link.pk).first()  # one worker's arrivals queue
    earlier = ProviderSession.objects.filter(provider=provider, worker=link, batch=batch).first()
    if earlier is not None and adapter.once_per_batch:
        raise SessionMismatch(
            f"You already took part in this study with another {adapter.title} session; "
            "each participant can take part once."
        )
    try:
        with transaction.atomic():
            return ProviderSession.objects.create(
                provider=provider,
                worker=link,
                batch=batch,
                external_id=external_id,
                study_id=study_id,
                submit_to=submit_to,
            )
    except IntegrityError:  # the same arrival, twice at once: the first one made it
        return ProviderSession.objects.select_related("worker").get(provider=provider, external_id=external_id)


def _link(*, provider, worker_id):
    link = ProviderWorker.objects.select_related("user").filter(provider=provider, external_id=worker_id).first()
    if link is not None:
        return link
    try:
        with transaction.atomic():
            # A made-up name: the provider's id stays on the link, never on the account.
            user = create_user(username=f"{provider}-{secrets.token_hex(6)}", password=None)
            RaterProfile.objects.filter(user=user).update(screened_by_provider=provider)
            return ProviderWorker.objects.create(provider=provider, external_id=worker_id, user=user)
    except IntegrityError:
        return ProviderWorker.objects.select_related("user").get(provider=provider, external_id=worker_id)


def next_task(*, session):
    """Hands the session's worker their next task, or ends the session: returns the
    assignment, or None once the session has ended (its state says how)."""
    if session.state != Session.ACTIVE:
        return None
    adapter, settings = selectors.settings_for(batch=session.batch, provider=session.provider)
    wanted = settings.get("tasks", 1)
    done = selectors.tasks_done(session)
    if done >= wanted:
        _end(session, state=Session.COMPLETED)
        return None
    try:
        assignment, _created = hits.request_next_task(worker=session.worker.user, batch_id=session.batch_id)
    except NotEligible as refusal:
        _end(session, state=Session.SCREENED_OUT, reason=refusal.message)
        return None
    except (NoTaskAvailable, BatchNotOpen) as refusal:
        # Out of work: those who did some are paid for it; the rest are screened out.
        _end(session, state=Session.COMPLETED if done else Session.SCREENED_OUT, reason=refusal.message)
        return None
    SessionAssignment.objects.get_or_create(assignment=assignment, defaults={"session": session})
    return assignment


def _end(session, *, state, reason=""):
    updated = ProviderSession.objects.filter(pk=session.pk, state=Session.ACTIVE).update(
        state=state, reason=reason, ended_at=timezone.now()
    )
    session.refresh_from_db(fields=["state", "reason", "ended_at"])
    return updated


@transaction.atomic
def stop(*, session):
    """The worker stops early: their open task goes back, and the session ends returned."""
    open_work = Assignment.objects.filter(provider_work__session=session, state=Assignment.State.ASSIGNED).values_list(
        "pk", flat=True
    )
    for assignment_id in list(open_work):
        try:
            hits.return_assignment(assignment_id=assignment_id, worker=session.worker.user)
        except AssignmentClosed:
            continue  # it expired meanwhile: already back for someone else
    _end(session, state=Session.RETURNED)
    return session


def submit(*, session, data, active_seconds=None):
    """A single-task session (MTurk) submits its task; the session is then complete.
    Field errors (``ValidationError``) leave the session as it was."""
    assignment = Assignment.objects.filter(provider_work__session=session).order_by("-assigned_at").first()
    if assignment is None:
        raise NotSetUp("This session has no task; open the HIT again.")
    with transaction.atomic():
        assignment = hits.submit_assignment(
            assignment_id=assignment.pk, worker=session.worker.user, data=data, active_seconds=active_seconds
        )
        _end(session, state=Session.COMPLETED)
    return assignment


# --- Publishing -----------------------------------------------------------------------------


@transaction.atomic
def publish(*, batch, site_url):
    """Asks the provider to list ``batch`` (MTurk: as HITs pointing at this site); the
    calls go out once this commits. Publishing again adds only the HITs still missing."""
    if not selectors.provider_of(batch):
        raise NotSetUp(f"The batch “{batch.name}” is not set up for a recruitment provider (kind settings: provider).")
    adapter, settings = selectors.settings_for(batch=batch, provider=selectors.provider_of(batch))
    if batch.state != Batch.State.OPEN:
        raise BatchNotOpen(f"Open the batch “{batch.name}” before publishing it.")
    Batch.objects.select_for_update().filter(pk=batch.pk).first()  # one publish of a batch at a time
    asked = ProviderCall.objects.filter(provider=adapter.name, batch=batch, purpose=adapter.publish_purpose).count()
    calls = adapter.publish_calls(
        batch=batch,
        settings=settings,
        task_url=f"{site_url.rstrip('/')}/providers/mturk/{batch.pk}/",
        tasks=batch.tasks.count(),
        published=asked,
    )
    return [_queue(adapter.name, spec, batch=batch) for spec in calls]


# --- Settling decisions on the provider -------------------------------------------------------


def settle_decision(*, assignment, state):
    """Called in the transaction of a Trailmark decision. A provider session is settled
    once: rejected at its first rejected task, approved when all its submitted tasks are
    approved. Sessions that did not complete (returned, screened out) are not settled."""
    work = SessionAssignment.objects.filter(assignment=assignment).first()
    if work is None:
        return []
    session = ProviderSession.objects.select_for_update().select_related("worker", "batch").get(pk=work.session_id)
    if session.decision or session.state != Session.COMPLETED:
        return []
    approved = state == Assignment.State.APPROVED
    if approved:
        states = set(
            Assignment.objects.filter(provider_work__session=session, state__in=selectors.DONE_STATES).values_list(
                "state", flat=True
            )
        )
        if states != {Assignment.State.APPROVED}:
            return []
    adapter, settings = selectors.settings_for(batch=session.batch, provider=session.provider)
    session.decision = ProviderSession.Decision.APPROVED if approved else ProviderSession.Decision.REJECTED
    session.save(update_fields=["decision"])
    calls = adapter.decision_calls(session=session, settings=settings, approved=approved, feedback=assignment.feedback)
    return [_queue(adapter.name, spec, session=session) for spec in calls]


def settle_bonus(*, assignment, amount, reason):
    """Called in the transaction of a Trailmark bonus: the provider pays it too."""
    work = SessionAssignment.objects.filter(assignment=assignment).select_related("session__worker").first()
    if work is None:
        return []
    session = work.session
    adapter, settings = selectors.settings_for(batch=assignment.batch, provider=session.provider)
    number = ProviderCall.objects.filter(session=session, purpose="bonus").count() + 1
    calls = adapter.bonus_calls(
        session=session, settings=settings, assignment=assignment, amount=amount, reason=reason, number=number
    )
    return [_queue(adapter.name, spec, session=session) for spec in calls]


def _queue(provider, spec, *, session=None, batch=None, follows=None):
    call = ProviderCall.objects.create(
        provider=provider,
        purpose=spec.purpose,
        method=spec.method,
        path=spec.path,
        request_body=spec.body,
        session=session,
        batch=batch or (session.batch if session else None),
        follows=follows,
    )
    enqueue("providers.send_call", call.pk)
    return call


def send_call(*, call_id):
    """Makes one recorded call, once: a call already sent (or being sent) is left alone,
    so the job is safe to run twice. Records the answer; a good answer may lead to
    follow-up calls (paying a bonus that was set up), queued the same way."""
    claimed = ProviderCall.objects.filter(pk=call_id, state=ProviderCall.State.PENDING).update(
        state=ProviderCall.State.SENDING, attempts=F("attempts") + 1
    )
    if not claimed:
        return None
    call = ProviderCall.objects.get(pk=call_id)
    adapter = registry.get(call.provider)
    started = time.monotonic()
    try:
        answer = adapter.send(call)
    except ProviderUnreachable as error:
        answer, call.error = None, str(error)[:EXCERPT_CHARS]
    call.milliseconds = int((time.monotonic() - started) * 1000)
    call.sent_at = timezone.now()
    if answer is not None:
        call.status, call.response_excerpt = answer.status, answer.text[:EXCERPT_CHARS]
        call.error = "" if answer.ok else f"The provider answered {answer.status}."
    call.state = ProviderCall.State.DONE if answer is not None and answer.ok else ProviderCall.State.FAILED
    with transaction.atomic():
        call.save()
        if call.state == ProviderCall.State.DONE:
            for spec in adapter.after(call=call, answer=answer):
                _queue(call.provider, spec, session=call.session, batch=call.batch, follows=call)
    return call


@transaction.atomic
def retry_call(*, call):
    """Sends a failed call again (after fixing what made it fail)."""
    if ProviderCall.objects.filter(pk=call.pk, state=ProviderCall.State.FAILED).update(
        state=ProviderCall.State.PENDING
    ):
        enqueue("providers.send_call", call.pk)
        return True
    return False
