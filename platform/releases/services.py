"""Writes of releases: defining one, starting (or restarting) its build, checking a rebuild."""

import re
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config.errors import DomainError
from corpus.models import QAPair
from outbox import services as outbox
from webhooks import services as webhooks

from .models import FAMILIES, Release

VERSION = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


class ReleaseError(DomainError):
    pass


class BuildRunning(DomainError):
    status = 409
    code = "build_running"


def parse_version(text):
    """``"1.2.3"`` as ``(1, 2, 3)``; a 400 naming the expected form otherwise."""
    match = VERSION.match((text or "").strip())
    if not match:
        raise ReleaseError(f"“{text}” is not a version: use major.minor.patch, e.g. 1.0.0.", code="bad_version")
    return tuple(int(part) for part in match.groups())


def latest_version(name):
    release = Release.objects.filter(name=name).order_by("-major", "-minor", "-patch").first()
    return release.version_key if release else None


def check_definition(*, name, version, families, qa_states, train_percent, val_percent, parent):
    """Refuses a definition that cannot build, with a message saying what to change."""
    latest = latest_version(name)
    if latest is not None and version <= latest:
        shown = ".".join(map(str, latest))
        raise ReleaseError(f"{name} is already at {shown}: the new version must be higher.", code="version_not_higher")
    if not families or set(families) - set(FAMILIES):
        raise ReleaseError(f"Choose one or more families of {', '.join(FAMILIES)}.", code="bad_families")
    if not qa_states or set(qa_states) - set(QAPair.State.values):
        raise ReleaseError(f"Choose one or more QA states of {', '.join(QAPair.State.values)}.", code="bad_states")
    if train_percent + val_percent > 100 or train_percent <= 0:
        raise ReleaseError(
            "Train and val shares must leave room for test (train > 0, train + val ≤ 100).", code="bad_split"
        )
    if parent is not None and not parent.is_published:
        raise ReleaseError("The parent must be a published release.", code="parent_not_published")


@transaction.atomic
def create_release(*, name, version, families, qa_states=("accepted",), split_strategy="adversarial", seed=0,
                   train_percent=80, val_percent=10, parent=None, notes="", created_by=None,
                   test_answers_public=False, webvln_setting="seen"):  # fmt: skip
    """A new release definition (a draft: nothing is built until ``start_build``). Without
    a parent, the latest published version of the same name is the parent."""
    version = parse_version(version) if isinstance(version, str) else tuple(version)
    if parent is None:
        parent = (
            Release.objects.filter(name=name, state=Release.State.PUBLISHED)
            .order_by("-major", "-minor", "-patch")
            .first()
        )
    families, qa_states = sorted(set(families)), sorted(set(qa_states))
    check_definition(name=name, version=version, families=families, qa_states=qa_states,
                     train_percent=train_percent, val_percent=val_percent, parent=parent)  # fmt: skip
    major, minor, patch = version
    return Release.objects.create(
        name=name, major=major, minor=minor, patch=patch, families=families, qa_states=qa_states,
        split_strategy=split_strategy, seed=seed, train_percent=train_percent, val_percent=val_percent,
        parent=parent, notes=notes, created_by=created_by, test_answers_public=test_answers_public,
        webvln_setting=webvln_setting,
    )  # fmt: skip


def _stale(release):
    limit = timezone.now() - timedelta(seconds=settings.RELEASE_STALE_SECONDS)
    return release.heartbeat_at is None or release.heartbeat_at < limit


def start_build(*, release):
    """Queues a build of ``release``: a draft, a failed build, or a build whose worker
    stopped reporting (killed) for ``RELEASE_STALE_SECONDS``. The build runs on a worker;
    poll the release for its state and progress."""
    from . import tasks

    with transaction.atomic():
        release = Release.objects.select_for_update().get(pk=release.pk)
        if release.state == Release.State.PUBLISHED:
            raise BuildRunning(f"{release} is published; define a new version to change it.", code="published")
        if release.state in (Release.State.QUEUED, Release.State.BUILDING) and not _stale(release):
            raise BuildRunning(f"{release} is already building; wait for it or for it to stop reporting.")
        release.attempt += 1
        release.state = Release.State.QUEUED
        release.stage, release.progress_done, release.progress_total = "queued", 0, 0
        release.heartbeat_at = timezone.now()
        release.message = ""
        release.save()
        attempt = release.attempt
        outbox.enqueue(tasks.build_release, release.pk, attempt, queue=settings.RELEASE_QUEUE)
    release.refresh_from_db()  # without a broker the build has run by now: say how it ended
    return release


EMPTY_ADVICE = "Include other families or QA states, or wait until more QA pairs are accepted."


class EmptyRelease(DomainError):
    code = "empty_release"


def check_not_empty(*, release):
    """Refuses to build a draft (or failed) release that would publish no QA pair."""
    from .preview import is_empty

    if release.state in (Release.State.DRAFT, Release.State.FAILED) and is_empty(release=release):
        raise EmptyRelease(f"{release} would hold no QA pairs: there is nothing to build. {EMPTY_ADVICE}")


def build_started_message(release):
    """What to tell the admin who started a build, from the release as it is now: a build
    run at once (no worker) may already have published or failed."""
    release.refresh_from_db()
    if release.is_published:
        return f"{release} is built and published."
    if release.state == Release.State.FAILED:
        return f"The build of {release} failed: {release.message}"
    if release.state == Release.State.BUILDING:
        return f"{release} is building."
    return f"The build of {release} is queued."


def request_rebuild_check(*, release):
    """Rebuilds a published release from its snapshot on a worker and compares checksums."""
    from . import tasks

    if not release.is_published:
        raise ReleaseError("Only a published release can be rebuilt and compared.", code="not_published")
    outbox.enqueue(tasks.check_rebuild, release.pk, queue=settings.RELEASE_QUEUE)


# --- Evaluations ---------------------------------------------------------------------------


class NotEvaluable(DomainError):
    status = 409
    code = "not_evaluable"


def submit_evaluation(*, release, family, split, predictions, name, public=False, user):
    """Checks ``predictions`` (bytes) against the release's gold at once — a file that
    cannot be scored is refused with every problem listed, and nothing is stored — then
    stores it and queues the scoring job. Returns the ``Evaluation``."""
    import hashlib

    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from . import evaluation, tasks
    from .models import Evaluation

    if not release.is_published:
        raise NotEvaluable(f"{release} is not published yet.")
    if family not in release.families or not release.counts.get("splits", {}).get(split, {}).get(family):
        raise NotEvaluable(f"{release} has no {family} items in its {split} split.")
    gold = evaluation.load_gold(release=release, family=family, split=split)
    evaluation.read_predictions(family=family, raw=predictions, gold=gold)
    digest = hashlib.sha256(predictions).hexdigest()
    with transaction.atomic():
        run = Evaluation.objects.create(
            release=release, family=family, split=split, name=name.strip() or "Unnamed run", public=public,
            submitted_by=user, predictions_sha256=digest, predictions_key="",
        )  # fmt: skip
        key = default_storage.save(f"evaluations/{release.pk}/{run.pk}/predictions.json", ContentFile(predictions))
        Evaluation.objects.filter(pk=run.pk).update(predictions_key=key)
        run.predictions_key = key
        outbox.enqueue(tasks.run_evaluation, run.pk, queue=settings.RELEASE_QUEUE)
    return run


def run_evaluation(*, evaluation_id):
    """Scores a queued evaluation and stores its report; safe to run twice."""
    from django.core.files.storage import default_storage

    from . import evaluation
    from .models import Evaluation

    claimed = Evaluation.objects.filter(pk=evaluation_id, state__in=["queued", "running"]).update(state="running")
    if not claimed:
        return None
    run = Evaluation.objects.select_related("release").get(pk=evaluation_id)
    try:
        with default_storage.open(run.predictions_key, "rb") as handle:
            raw = handle.read()
        report = evaluation.score(release=run.release, family=run.family, split=run.split, raw=raw)
    except Exception as error:
        message = f"{type(error).__name__}: {error}"[:2000]
        with transaction.atomic():
            Evaluation.objects.filter(pk=run.pk).update(
                state=Evaluation.State.FAILED, message=message, finished_at=timezone.now()
            )
            webhooks.emit("evaluation.finished", _evaluation_event(run, state="failed", message=message))
        raise
    with transaction.atomic():
        Evaluation.objects.filter(pk=run.pk).update(
            state=Evaluation.State.DONE, metrics=report["metrics"], per_category=report["per_category"],
            missing=report["missing"], count=report["count"], message="", finished_at=timezone.now(),
        )  # fmt: skip
        webhooks.emit("evaluation.finished", _evaluation_event(run, state="done", metrics=report["metrics"]))
    return report["metrics"]


def _evaluation_event(run, **fields):
    return {
        "evaluation": run.pk, "release": run.release_id, "release_name": run.release.name,
        "version": run.release.version, "family": run.family, "split": run.split, "name": run.name, **fields,
    }  # fmt: skip
