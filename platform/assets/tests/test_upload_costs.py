"""What an upload costs: hostile headers refused before a pixel is decoded, a file sent
again answered without decoding, decodes bounded per process, request bodies capped
before they are read, and repeated requests answered once."""

import threading
import time
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.core.files.uploadhandler import MemoryFileUploadHandler
from django.test import Client
from django.utils import timezone
from PIL import Image, ImageFile

from assets import images, services
from assets.errors import DecodersBusy, ImageRefused
from assets.models import Asset, AssetUpload, IdempotencyKey, UploadDigest
from tests.api import api_error

from . import samples
from .bodies import post_unread
from .conftest import stored_files

pytestmark = pytest.mark.django_db

MB = 1024 * 1024


class Decoded(AssertionError):
    """Raised by the patched decoders: the test's premise is that nothing is decoded."""


@pytest.fixture
def no_decoding(monkeypatch):
    """Any attempt to decode pixels fails the test (PNG, JPEG and WebP load through these)."""

    def refuse(image, *args, **kwargs):
        raise Decoded(f"{image.format} {image.size} was decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", refuse)
    monkeypatch.setattr(Image.Image, "load", refuse)


def _store(data, user):
    return services.store_image(file=samples.upload(data), uploaded_by=user)


def _refusal(data, user):
    with pytest.raises(ImageRefused) as refusal:
        _store(data, user)
    assert Asset.objects.count() == 0 and AssetUpload.objects.count() == 0
    return refusal.value


# --- Refused from the header --------------------------------------------------------


def test_a_95_kb_strip_of_49_million_pixels_is_refused_before_decoding(rater, media, no_decoding):
    data = samples.strip_png()
    assert len(data) < 100_000  # the premise: tiny on the wire, 49 megapixels declared
    refusal = _refusal(data, rater)
    assert (refusal.code, refusal.status) == ("side_too_long", 400)
    assert "1×49,000,000 pixels" in refusal.message and "32,000 pixels" in refusal.message
    assert stored_files(media) == []


def test_a_7000x7100_rgba_png_is_refused_before_decoding(rater, media, no_decoding):
    data = samples.rgba_square_png()
    assert len(data) < 1 * MB and 7000 * 7100 < 50_000_000  # under the byte and pixel limits
    refusal = _refusal(data, rater)
    assert refusal.code == "decoded_too_large"
    assert "7,000×7,100 pixels in RGBA" in refusal.message and "160.0 MB" in refusal.message
    assert stored_files(media) == []


@pytest.mark.parametrize(
    "size, code, says",
    [
        ((32001, 2000), "side_too_long", "no side may be longer than 32,000 pixels"),
        ((100, 4001), "aspect_too_extreme", "at most 40 times the other"),
        ((4001, 100), "aspect_too_extreme", "at most 40 times the other"),
    ],
    ids=["side", "tall-strip", "wide-strip"],
)
def test_shapes_that_cannot_be_a_screen_or_photo_are_refused_from_the_header(rater, no_decoding, size, code, says):
    # Only the header and the start of the pixels: "truncated" would mean it was decoded.
    data = samples.handmade_png(*size, bit_depth=1, colour_type=0)[:200]
    refusal = _refusal(data, rater)
    assert refusal.code == code and says in refusal.message


def test_the_decode_limit_counts_the_bytes_of_the_mode_pillow_decodes_to(rater, settings, no_decoding):
    settings.ASSET_MAX_DECODE_BYTES = 4 * 1000 * 1000
    grey = samples.handmade_png(2000, 1990, colour_type=0)  # 1 byte a pixel: 3.98 MB
    rgb = samples.handmade_png(1000, 1001, colour_type=2)  # kept in 4 bytes a pixel: 4.004 MB
    with pytest.raises(Decoded):
        _store(grey, rater)  # passed every header check, so it went on to be decoded
    assert _refusal(rgb, rater).code == "decoded_too_large"


def test_a_1280x30000_full_page_screenshot_is_accepted(rater, media):
    asset, created = _store(samples.full_page_png(), rater)
    assert created and (asset.width, asset.height, asset.format) == (1280, 30000, "png")
    assert stored_files(media) == sorted([asset.storage_key, asset.thumbnail_key])
    thumbnail = Image.open(media / asset.thumbnail_key)
    assert thumbnail.size == (320, 7500)


# --- The same file again --------------------------------------------------------------


def test_an_identical_reupload_is_answered_without_decoding(rater, other_rater, media, monkeypatch):
    data = samples.png_bytes()
    first, created = _store(data, rater)
    assert created

    def refuse(*args, **kwargs):
        raise Decoded("the file was opened as an image")

    for where, name in ((Image, "open"), (Image.Image, "load"), (ImageFile.ImageFile, "load")):
        monkeypatch.setattr(where, name, refuse)
    again, created_again = _store(data, other_rater)
    assert again == first and not created_again
    # The uploader still gets their row, which lets them see it.
    assert set(AssetUpload.objects.values_list("uploaded_by", flat=True)) == {rater.pk, other_rater.pk}
    assert UploadDigest.objects.get().asset == first
    assert stored_files(media) == sorted([first.storage_key, first.thumbnail_key])


def test_files_differing_only_in_metadata_are_one_asset_with_a_digest_each(rater, monkeypatch):
    picture = samples.screenshot()
    with_text, without_text = samples.png_with_text_chunks(picture), samples.encode(picture, "PNG")
    first, _ = _store(with_text, rater)
    second, created = _store(without_text, rater)
    assert second == first and not created
    assert UploadDigest.objects.filter(asset=first).count() == 2

    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda image: pytest.fail("decoded again"))
    assert _store(without_text, rater) == (first, False)


def test_a_refused_file_leaves_no_digest(rater):
    _refusal(samples.png_bytes()[:4000], rater)
    assert not UploadDigest.objects.exists()


# --- Decode slots ---------------------------------------------------------------------


@contextmanager
def slots_held(count):
    """Takes ``count`` decode slots in other threads for the duration of the block."""
    taken, release = threading.Barrier(count + 1), threading.Event()

    def hold():
        with images.decode_slot():
            taken.wait(timeout=10)
            release.wait(timeout=30)

    holders = [threading.Thread(target=hold) for _ in range(count)]
    for holder in holders:
        holder.start()
    taken.wait(timeout=10)
    try:
        yield
    finally:
        release.set()
        for holder in holders:
            holder.join(timeout=10)


def test_a_busy_decoder_answers_503_with_retry_after_and_stores_nothing(rater, api_for, media, settings):
    settings.ASSET_DECODE_SLOTS, settings.ASSET_DECODE_WAIT_SECONDS = 2, 0.3
    data = samples.png_bytes()
    client = api_for(rater)
    with slots_held(2):
        began = time.monotonic()
        response = client.post("/api/v1/assets/", {"file": samples.upload(data)}, format="multipart")
        waited = time.monotonic() - began
    error = api_error(response, 503, "busy")
    assert response["Retry-After"] == "1" and "send the same file again" in error["message"]
    assert 0.3 <= waited < 5
    assert Asset.objects.count() == 0 and stored_files(media) == []

    retried = client.post("/api/v1/assets/", {"file": samples.upload(data)}, format="multipart")
    assert retried.status_code == 201, retried.content


def test_an_upload_waits_for_a_slot_that_frees_in_time(settings):
    settings.ASSET_DECODE_SLOTS, settings.ASSET_DECODE_WAIT_SECONDS = 1, 10
    results = []
    waiting = threading.Thread(target=lambda: results.append(_try_store_cleaned()))
    with slots_held(1):
        waiting.start()
        time.sleep(0.3)
        assert waiting.is_alive() and results == []  # still waiting for the held slot
    waiting.join(timeout=10)
    assert results == ["decoded"]


def _try_store_cleaned():
    with images.cleaned(samples.upload(samples.png_bytes())):
        return "decoded"


def test_header_refusals_need_no_slot(rater, settings, no_decoding):
    settings.ASSET_DECODE_SLOTS, settings.ASSET_DECODE_WAIT_SECONDS = 1, 5
    with slots_held(1):
        began = time.monotonic()
        assert _refusal(samples.strip_png(), rater).code == "side_too_long"
        assert time.monotonic() - began < 2


def test_no_more_images_are_decoded_at_once_than_there_are_slots(settings, monkeypatch):
    settings.ASSET_DECODE_SLOTS, settings.ASSET_DECODE_WAIT_SECONDS = 2, 30
    load, lock, state = ImageFile.ImageFile.load, threading.Lock(), {"now": 0, "peak": 0}

    def slow_load(image):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        try:
            time.sleep(0.15)
            return load(image)
        finally:
            with lock:
                state["now"] -= 1

    monkeypatch.setattr(ImageFile.ImageFile, "load", slow_load)
    start, done = threading.Barrier(5), []

    def decode(seed):
        start.wait()
        with images.cleaned(samples.upload(samples.png_bytes(seed=seed))) as image:
            done.append(image.sha256)

    threads = [threading.Thread(target=decode, args=(seed,)) for seed in range(1000, 1005)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(set(done)) == 5 and state["peak"] == 2


def test_decoders_busy_is_a_domain_error_to_retry(settings):
    settings.ASSET_DECODE_SLOTS, settings.ASSET_DECODE_WAIT_SECONDS = 1, 2.5
    with slots_held(1), pytest.raises(DecodersBusy) as busy, images.decode_slot():
        pass
    assert (busy.value.status, busy.value.code, busy.value.retry_after) == (503, "busy", 3)


# --- Request bodies -------------------------------------------------------------------


def test_a_body_over_the_cap_is_refused_413_before_it_is_read(rater, api_for, media, settings):
    settings.ASSET_MAX_BYTES = 1 * MB
    error = api_error(post_unread(api_for(rater), "/api/v1/assets/", str(2 * MB)), 413, "file_too_large")
    assert "2.0 MB" in error["message"] and "1.0 MB" in error["message"]
    assert Asset.objects.count() == 0 and stored_files(media) == []


def test_the_cap_leaves_room_for_the_form_fields(rater, api_for, settings):
    data = samples.png_bytes()
    settings.ASSET_MAX_BYTES = len(data)  # the body is the file plus its boundaries and headers
    response = api_for(rater).post("/api/v1/assets/", {"file": samples.upload(data)}, format="multipart")
    assert response.status_code == 201, response.content


def test_a_logged_in_page_gets_413_before_its_csrf_check_reads_the_body(rater, settings):
    settings.ASSET_MAX_BYTES = 1 * MB
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(rater)
    api_error(post_unread(browser, "/api/v1/assets/", str(50 * MB)), 413, "file_too_large")


@pytest.mark.parametrize("content_length", ["", "lots", "-1"], ids=["missing", "not-a-number", "negative"])
def test_an_upload_without_a_usable_length_is_refused_unread(rater, api_for, content_length):
    error = api_error(post_unread(api_for(rater), "/api/v1/assets/", content_length), 411, "length_required")
    assert "Content-Length" in error["message"]


def test_a_file_over_the_limit_inside_a_body_under_the_cap_stops_the_parser(
    rater, api_for, media, settings, monkeypatch
):
    data = samples.png_bytes(size=(640, 400))
    settings.ASSET_MAX_BYTES = len(data) - 2000
    passed_on = []
    receive = MemoryFileUploadHandler.receive_data_chunk
    monkeypatch.setattr(
        MemoryFileUploadHandler,
        "receive_data_chunk",
        lambda handler, raw, start: passed_on.append(len(raw)) or receive(handler, raw, start),
    )
    response = api_for(rater).post("/api/v1/assets/", {"file": samples.upload(data)}, format="multipart")
    error = api_error(response, 400, "file_too_large")
    assert "larger than" in error["message"]
    assert sum(passed_on) <= settings.ASSET_MAX_BYTES
    assert Asset.objects.count() == 0 and stored_files(media) == []


# --- Idempotency keys -----------------------------------------------------------------


def _upload(client, data, key=None, **extra):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post("/api/v1/assets/", {"file": samples.upload(data)}, format="multipart", **headers, **extra)


def test_the_same_key_again_answers_with_the_first_asset_without_reading_the_file(rater, api_for):
    client = api_for(rater)
    first = _upload(client, samples.png_bytes(), key="upload-1")
    assert first.status_code == 201
    replay = post_unread(client, "/api/v1/assets/", "1000", HTTP_IDEMPOTENCY_KEY="upload-1")
    assert replay.status_code == 200 and replay.json() == first.json()
    assert IdempotencyKey.objects.get().object_id == first.json()["id"]


def test_a_key_in_the_form_works_like_the_header(rater, api_for):
    client = api_for(rater)
    data = {"file": samples.upload(samples.png_bytes()), "idempotency_key": "form-key"}
    first = client.post("/api/v1/assets/", data, format="multipart")
    other = {"file": samples.upload(samples.png_bytes()), "idempotency_key": "form-key"}
    again = client.post("/api/v1/assets/", other, format="multipart")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"] and Asset.objects.count() == 1


def test_a_refused_upload_does_not_use_up_its_key(rater, api_for):
    client = api_for(rater)
    api_error(_upload(client, b"not a picture", key="k"), 400, "not_an_image")
    assert not IdempotencyKey.objects.exists()
    assert _upload(client, samples.png_bytes(), key="k").status_code == 201


def test_a_key_is_forgotten_after_24_hours(rater, api_for):
    client = api_for(rater)
    first = _upload(client, samples.png_bytes(), key="old-key").json()
    IdempotencyKey.objects.update(created_at=timezone.now() - timedelta(hours=24, minutes=1))
    later = _upload(client, samples.png_bytes(), key="old-key")
    assert later.status_code == 201 and later.json()["id"] != first["id"]
    assert IdempotencyKey.objects.get().object_id == later.json()["id"]


@pytest.mark.parametrize("key", ["x" * 256, "tab\there", "ünïcode"], ids=["too-long", "control", "non-ascii"])
def test_a_malformed_key_is_refused(rater, api_for, key):
    api_error(_upload(api_for(rater), samples.png_bytes(), key=key), 400, "invalid_idempotency_key")
    assert not Asset.objects.exists()
