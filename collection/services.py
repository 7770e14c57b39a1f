"""Every write of capture work: screens (the one place a screenshot becomes a ``Screen``),
and recorded traces as the extension uploads them, step by step, safe to retry."""

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.utils import timezone

from assets import services as assets
from config.errors import NotFound
from corpus import services as corpus
from corpus.models import Category, Screen, Trace, TraceStep
from generation import pagetext
from hits import registry
from hits import services as work
from hits.models import Batch
from moderation import services as moderation
from moderation import textscreen

from .catalogue import site_for
from .errors import MissingSteps, NotATraceBatch, NotYourScreen, NotYourTrace, ScreenInUse, TraceFinished


@transaction.atomic
def capture_screen(*, file, author, url="", title="", assignment=None, viewport_width=None, viewport_height=None):
    """Stores the image through the assets pipeline (checked, stripped, stored once) and
    records the page it shows. Raises the assets pipeline's errors for bad files."""
    asset, _created = assets.store_image(file=file, uploaded_by=author, source_url=url)
    site = site_for(url=url) if url else None
    return Screen.objects.create(
        asset=asset,
        author=author,
        assignment=assignment,
        url=url,
        title=title,
        site=site,
        category=site.category if site else None,
        viewport_width=viewport_width,
        viewport_height=viewport_height,
    )


@transaction.atomic
def remove_screen(*, screen, author):
    """A rater removes a screen they captured, as long as no question or recorded trace
    uses it yet."""
    if screen.author_id != author.pk:
        raise NotYourScreen("This screen belongs to another rater.")
    # Locked first: a question or trace step taking the screen up meanwhile waits for us,
    # or has committed and is seen by the checks below.
    screen = Screen.objects.select_for_update().get(pk=screen.pk)
    if screen.evidence.exists():
        raise ScreenInUse("This screen is part of a submitted question and cannot be removed.")
    if screen.trace_steps.exists():
        raise ScreenInUse("This screen is a step of a recorded trace and cannot be removed on its own.")
    asset = screen.asset
    screen.delete()
    if not Screen.objects.filter(asset=asset).exists():
        # Nothing shows these bytes any more: they go from storage too.
        moderation.withdraw(asset=asset, by=author)


def describe_screen(*, screen, url, title, site, category, assignment):
    """What the rater said about a screen they captured for a question: its page, site
    and category, and the assignment it was captured for. Runs in the submission's
    transaction."""
    screen.url, screen.title, screen.site, screen.category, screen.assignment = url, title, site, category, assignment
    screen.save(update_fields=["url", "title", "site", "category", "assignment"])
    return screen


# --- Recorded traces -------------------------------------------------------------------


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
                full_page=step.get("full_page", False),
            )
            if step.get("html"):
                key = f"traces/{trace.pk}/{stored.client_id}.html"
                stored.html_key = default_storage.save(key, ContentFile(step["html"].encode()))
                stored.save(update_fields=["html_key"])
            _screen_step_texts(stored, html=step.get("html") or "")
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


# Keys of a target or clickable that hold text a visitor reads, and the one that is an address.
STEP_TEXT_KEYS = ("text", "label", "alt")
# Findings in a whole page's HTML are capped: the reviewer needs the first few, not a list.
MAX_HTML_FINDINGS = 20


def _screen_step_texts(step, *, html=""):
    """Personal data in the texts stored with a step (title, address, target, clickables,
    the page's HTML) goes to its screenshot's review item, each with the field it is in."""
    name = f"step {step.position}"
    texts, urls = [(f"{name} title", step.title)], [(f"{name} URL", step.url)]
    parts = [(f"{name} target", step.target or {})]
    parts += [(f"{name} clickable {number}", c) for number, c in enumerate(step.clickables or [], 1)]
    for label, part in parts:
        if isinstance(part, dict):
            texts += [(f"{label} {key}", part[key]) for key in STEP_TEXT_KEYS if isinstance(part.get(key), str)]
            if isinstance(part.get("href"), str):
                urls.append((f"{label} link", part["href"]))
    findings = moderation.screen_texts(texts=texts, urls=urls)
    if html:
        page = moderation.screen_texts(texts=[(f"{name} page HTML", pagetext.from_html(html, url=step.url).text)])
        findings += textscreen.personal(page)[:MAX_HTML_FINDINGS]
    moderation.record_text_findings(
        asset=step.screen.asset, record={"type": "trace_step", "id": step.pk}, findings=findings
    )


def mask_step_texts(*, asset, findings, **_signal):
    """A reviewer masked personal data found in steps' texts: every occurrence of each
    found text goes from the step's title, address, target, clickables and stored HTML."""
    by_step = {}
    for finding in findings:
        if finding.get("record", {}).get("type") == "trace_step":
            by_step.setdefault(finding["record"]["id"], []).append(finding)
    for step in TraceStep.objects.filter(pk__in=by_step).select_for_update():
        found = by_step[step.pk]
        step.title = textscreen.mask(step.title, found)
        step.url = textscreen.mask_url(step.url, found)
        step.target = _masked_part(step.target, found)
        step.clickables = [_masked_part(clickable, found) for clickable in step.clickables or []]
        if step.html_key and default_storage.exists(step.html_key):
            with default_storage.open(step.html_key, "rb") as handle:
                html = handle.read().decode("utf-8", "replace")
            masked = textscreen.mask(html, found)
            if masked != html:
                default_storage.delete(step.html_key)
                step.html_key = default_storage.save(step.html_key, ContentFile(masked.encode()))
        step.save(update_fields=["title", "url", "target", "clickables", "html_key"])


def _masked_part(part, findings):
    if not isinstance(part, dict):
        return part
    masked = {key: textscreen.mask(value, findings) if key in STEP_TEXT_KEYS and isinstance(value, str) else value
              for key, value in part.items()}  # fmt: skip
    if isinstance(part.get("href"), str):
        masked["href"] = textscreen.mask_url(part["href"], findings)
    return masked


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
    corpus.regraph_sites_of_trace(trace=trace)
    if trace.batch is not None:
        anyone = trace.batch.kind_settings.get("questions_by") == "anyone"
        work.add_tasks(batch=trace.batch, payloads=[{"trace": trace.pk}], reserved_for=None if anyone else author)
    return trace
