"""The pre-screen job on any stored image: retried with backoff when a failure may pass,
bounded, never silent, and safe to run twice."""

import io
import logging

import pytesseract
import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError
from PIL import Image, ImageDraw, ImageFont

from assets import services as assets
from assets.tests.samples import png_bytes
from moderation import tasks
from moderation.models import ReviewItem
from moderation.services import enqueue
from moderation.tasks import MAX_RETRIES, TransientFailure, prescreen_asset

pytestmark = pytest.mark.django_db

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _asset(user, data=None):
    upload = SimpleUploadedFile("s.png", data or png_bytes(size=(320, 200), seed=77), content_type="image/png")
    asset, _ = assets.store_image(file=upload, uploaded_by=user)
    enqueue(asset=asset)
    return asset


class FlakyStorage:
    """The default storage, failing its first ``failures`` opens as a network would."""

    def __init__(self, failures):
        self.failures, self.opens = failures, 0

    def open(self, name, mode="rb"):
        self.opens += 1
        if self.opens <= self.failures:
            raise ConnectionResetError("connection reset by peer")
        return default_storage.open(name, mode)


@pytest.fixture
def retries(monkeypatch):
    """The countdown of every retry the task asks for. ``apply()`` runs the retries at
    once instead of waiting them out, and (as a worker would) records a final failure
    instead of raising it."""
    monkeypatch.setitem(prescreen_asset.app.conf, "task_eager_propagates", False)
    countdowns, retry = [], prescreen_asset.retry

    def spy(*args, **kwargs):
        countdowns.append(kwargs.get("countdown"))
        return retry(*args, **kwargs)

    monkeypatch.setattr(prescreen_asset, "retry", spy)
    return countdowns


def test_a_storage_hiccup_is_retried_with_backoff_until_it_passes(rater, monkeypatch, retries):
    asset = _asset(rater)
    storage = FlakyStorage(failures=2)
    monkeypatch.setattr(tasks, "default_storage", storage)

    result = prescreen_asset.apply(args=[asset.pk, "https://shop.example/"])

    assert result.successful() and storage.opens == 3
    assert len(retries) == 2 and all(countdown is not None and countdown >= 0 for countdown in retries)
    assert ReviewItem.objects.get(asset=asset).prescreened_at is not None


def test_retries_are_bounded_and_the_last_failure_is_raised(rater, monkeypatch, retries, caplog):
    asset = _asset(rater)
    storage = FlakyStorage(failures=100)
    monkeypatch.setattr(tasks, "default_storage", storage)

    with caplog.at_level(logging.WARNING, logger="moderation.tasks"):
        result = prescreen_asset.apply(args=[asset.pk, ""])

    assert result.failed() and isinstance(result.result, TransientFailure)
    assert storage.opens == MAX_RETRIES + 1 and len(retries) == MAX_RETRIES + 1
    assert "connection reset" in caplog.text
    assert ReviewItem.objects.get(asset=asset).prescreened_at is None  # still waiting, for the sweep


def test_backoff_grows_and_is_capped():
    assert prescreen_asset.autoretry_for == (TransientFailure,)
    assert prescreen_asset.retry_backoff and prescreen_asset.retry_jitter
    assert prescreen_asset.max_retries == MAX_RETRIES and prescreen_asset.retry_backoff_max <= 600


def test_a_database_outage_while_recording_is_retried(rater, monkeypatch, retries):
    asset = _asset(rater)
    record, calls = tasks.services.record_prescreen, []

    def flaky_record(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return record(**kwargs)

    monkeypatch.setattr(tasks.services, "record_prescreen", flaky_record)
    assert prescreen_asset.apply(args=[asset.pk, ""]).successful()
    assert len(calls) == 2 and len(retries) == 1


def test_without_a_broker_a_failure_is_logged_and_the_upload_is_not_failed(rater, monkeypatch, settings, caplog):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    asset = _asset(rater)
    storage = FlakyStorage(failures=1)
    monkeypatch.setattr(tasks, "default_storage", storage)
    with caplog.at_level(logging.WARNING, logger="moderation.tasks"):
        assert prescreen_asset(asset.pk, "") is None
    assert storage.opens == 1 and "not retried without a broker" in caplog.text


def test_tesseract_refusing_an_image_is_an_error_not_a_retry(rater, monkeypatch, retries, caplog):
    asset = _asset(rater)

    def refuse(*args, **kwargs):
        raise pytesseract.TesseractError(1, "Image too large: (200, 33000) Error during processing.")

    monkeypatch.setattr(pytesseract, "image_to_data", refuse)
    with caplog.at_level(logging.ERROR, logger="moderation.tasks"):
        assert prescreen_asset.apply(args=[asset.pk, ""]).result is None
    assert retries == [] and "Tesseract refused" in caplog.text


def test_tesseract_killed_is_retried(rater, monkeypatch, retries):
    asset = _asset(rater)
    image_to_data, calls = pytesseract.image_to_data, []

    def killed_once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise pytesseract.TesseractError(-9, "")
        return image_to_data(*args, **kwargs)

    monkeypatch.setattr(pytesseract, "image_to_data", killed_once)
    assert prescreen_asset.apply(args=[asset.pk, ""]).successful()
    assert len(retries) == 1 and ReviewItem.objects.get(asset=asset).prescreened_at is not None


def test_purged_bytes_end_the_job_quietly(rater, retries):
    asset = _asset(rater)
    assets.delete_asset_bytes(asset=asset)
    assert prescreen_asset.apply(args=[asset.pk, ""]).result is None
    assert retries == [] and ReviewItem.objects.get(asset=asset).prescreened_at is None


def test_running_twice_gives_one_item_with_the_same_findings(rater):
    asset = _asset(rater)
    first = prescreen_asset(asset.pk, "https://mail.google.com/mail/u/0/")
    item = ReviewItem.objects.get(asset=asset)
    second = prescreen_asset(asset.pk, "https://mail.google.com/mail/u/0/")
    again = ReviewItem.objects.get(asset=asset)
    assert first == second and ReviewItem.objects.filter(asset=asset).count() == 1
    assert (again.findings, again.queue, again.risk) == (item.findings, item.queue, item.risk)


def test_a_stored_page_taller_than_tesseract_takes_is_prescreened(rater, settings):
    """Stored before the shape limits (raised here to let it in), a 300×36000 page: one
    image Tesseract would refuse whole. The email at its foot is found, boxed where it is."""
    settings.ASSET_MAX_SIDE, settings.ASSET_MAX_ASPECT = 40000, 200
    image = Image.new("L", (300, 36000), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 20)
    draw.text((10, 35900), "ann@example.com", font=font, fill=0)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    asset = _asset(rater, buffer.getvalue())

    summary = prescreen_asset(asset.pk, "")

    assert summary["findings"] >= 1
    (email,) = [f for f in ReviewItem.objects.get(asset=asset).findings if f["kind"] == "email"]
    x, y, width, height = email["box"]
    assert x < 40 and 35880 < y < 35920 and width > 100
