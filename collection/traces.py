"""Recorded traces: the ingestion the extension calls, step by step, safe to retry."""

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.utils import timezone

from config.errors import DomainError, NotFound
from corpus.models import Category, Trace, TraceStep
from hits import registry
from hits import services as work
from hits.models import Batch

from .catalogue import site_for
from .models import BlockedSite
from .services import capture_screen


class NotYourTrace(DomainError):
    status = 403
    code = "not_your_trace"


class TraceFinished(DomainError):
    status = 409
    code = "trace_finished"


class MissingSteps(DomainError):
    status = 409
    code = "missing_steps"


class NotATraceBatch(DomainError):
    status = 400
    code = "invalid"


def block_list():
    """What the extension must never capture."""
    blocks = BlockedSite.objects.all()
    return {
        "hosts": sorted({b.host for b in blocks if b.host}),
        "patterns": sorted({b.path_contains for b in blocks if b.path_contains}),
    }


@transaction.atomic
def start_trace(*, author, client_id, category, batch_id=None, started_at=None, user_agent=""):
    """Returns ``(trace, created)``; the same ``client_id`` again returns the same trace."""
    existing = Trace.objects.filter(client_id=client_id).first()
    if existing is not None:
        if existing.author_id != author.pk:
            raise NotYourTrace("This trace belongs to another rater.")
        return existing, False
    batch = None
    if batch_id is not None:
        trace_kinds = [kind.name for kind in registry.all_kinds() if kind.takes_traces]
        batch = Batch.objects.filter(pk=batch_id, kind__in=trace_kinds).first()
        if batch is None:
            raise NotATraceBatch(f"There is no trace QA batch {batch_id}.")
    trace = Trace.objects.create(
        client_id=client_id,
        author=author,
        category=Category.objects.get(slug=category) if isinstance(category, str) else category,
        batch=batch,
        started_at=started_at,
        user_agent=user_agent[:400],
    )
    return trace, True


def _own_open_trace(trace_id, author, *, lock=False):
    traces = Trace.objects.select_for_update() if lock else Trace.objects
    trace = traces.filter(pk=trace_id).first()
    if trace is None:
        raise NotFound(f"There is no trace {trace_id}.")
    if trace.author_id != author.pk:
        raise NotYourTrace("This trace belongs to another rater.")
    return trace


def add_step(*, trace_id, author, screenshot, step):
    """Stores one step with its screenshot (through the assets pipeline: checked,
    stripped, stored once, pending review). Returns ``(step, created)``; a step whose
    ``client_id`` the trace already has is returned as stored, and nothing is added."""
    trace = _own_open_trace(trace_id, author)
    existing = TraceStep.objects.filter(trace=trace, client_id=step["client_id"]).select_related("screen").first()
    if existing is not None:
        return existing, False
    if trace.state == Trace.State.FINISHED:
        raise TraceFinished("This trace is finished; start a new one to record more.")
    try:
        with transaction.atomic():
            screen = capture_screen(
                file=screenshot,
                author=author,
                url=step["url"],
                title=step.get("title", ""),
                viewport_width=step["viewport"]["width"],
                viewport_height=step["viewport"]["height"],
            )
            action = step["action"]
            stored = TraceStep.objects.create(
                trace=trace,
                client_id=step["client_id"],
                position=step["position"],
                screen=screen,
                url=step["url"],
                title=step.get("title", ""),
                captured_at=step["captured_at"],
                viewport_width=step["viewport"]["width"],
                viewport_height=step["viewport"]["height"],
                device_pixel_ratio=step.get("device_pixel_ratio", 1),
                scroll_x=step.get("scroll", {}).get("x", 0),
                scroll_y=step.get("scroll", {}).get("y", 0),
                action=action["type"],
                target=action.get("target"),
                clickables=step.get("clickables", []),
            )
            if step.get("html"):
                key = f"traces/{trace.pk}/{stored.client_id}.html"
                stored.html_key = default_storage.save(key, ContentFile(step["html"].encode()))
                stored.save(update_fields=["html_key"])
            if screen.site is None:
                # A trace wanders off the catalogue; the category is still the trace's.
                site = site_for(url=step["url"], category=trace.category)
                screen.category = trace.category
                screen.site = site
                screen.save(update_fields=["category", "site"])
    except IntegrityError:
        # The same step sent twice at once: the first one stored it.
        return TraceStep.objects.get(trace=trace, client_id=step["client_id"]), False
    return stored, True


@transaction.atomic
def finish_trace(*, trace_id, author, step_count):
    """Closes the upload once all ``step_count`` steps are stored, and gives the trace's
    batch a task to write questions on it (for the recorder, unless the batch says anyone)."""
    trace = _own_open_trace(trace_id, author, lock=True)
    if trace.state == Trace.State.FINISHED:
        return trace
    stored = trace.steps.count()
    if stored != step_count:
        raise MissingSteps(f"{stored} of {step_count} steps are stored; upload the rest, then finish.")
    if stored == 0:
        raise MissingSteps("A trace needs at least one step.")
    trace.state, trace.finished_at = Trace.State.FINISHED, timezone.now()
    trace.save(update_fields=["state", "finished_at"])
    if trace.batch is not None:
        anyone = trace.batch.kind_settings.get("questions_by") == "anyone"
        work.add_tasks(batch=trace.batch, payloads=[{"trace": trace.pk}], reserved_for=None if anyone else author)
    return trace
