"""What an upload becomes: which files are accepted, what is stripped, what is stored once."""

import hashlib
import io

import imagehash
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError
from PIL import ExifTags, Image, ImageFile

from assets import selectors, services
from assets.errors import ImageRefused
from assets.models import Asset, AssetUpload

from . import samples
from .conftest import stored_files

pytestmark = pytest.mark.django_db


def _store(data, user, name="screen.png", content_type="image/png"):
    return services.store_image(file=samples.upload(data, name, content_type), uploaded_by=user)


def _stored_image(media, asset):
    data = (media / asset.storage_key).read_bytes()
    return data, Image.open(io.BytesIO(data))


def _webp_bitstream(data):
    """The fourcc of a WebP's image bitstream: b"VP8L" (lossless) or b"VP8 " (lossy)."""
    return next(kind for kind in (b"VP8L", b"VP8 ") if kind in data)


@pytest.mark.parametrize(
    "pillow_format, options, stored_format, extension",
    [
        ("PNG", {}, "png", "png"),
        ("JPEG", {"quality": 90}, "jpeg", "jpg"),
        ("WEBP", {"quality": 80}, "webp", "webp"),
    ],
)
def test_png_jpeg_and_webp_are_stored_with_their_facts(rater, media, pillow_format, options, stored_format, extension):
    data = samples.encode(samples.screenshot((640, 400)), pillow_format, **options)
    asset, created = _store(data, rater)

    assert created
    stored, image = _stored_image(media, asset)
    sha = hashlib.sha256(stored).hexdigest()
    assert (asset.format, asset.width, asset.height, image.format) == (stored_format, 640, 400, pillow_format)
    assert (asset.byte_size, asset.sha256) == (len(stored), sha)
    assert asset.storage_key == f"assets/{sha[:2]}/{sha[2:4]}/{sha}.{extension}"
    assert asset.thumbnail_key == f"thumbs/{sha[:2]}/{sha[2:4]}/{sha}.webp"
    assert stored_files(media) == sorted([asset.storage_key, asset.thumbnail_key])
    thumbnail = Image.open(media / asset.thumbnail_key)
    assert (thumbnail.format, thumbnail.size) == ("WEBP", (320, 200))
    assert asset.review_state == Asset.ReviewState.PENDING_REVIEW
    assert list(asset.uploaders.all()) == [rater]


def test_png_is_stored_losslessly(rater, media):
    source = samples.screenshot(mode="RGBA")
    asset, _ = _store(samples.encode(source, "PNG"), rater)
    _, image = _stored_image(media, asset)
    assert image.mode == "RGBA" and image.tobytes() == source.tobytes()


def test_webp_stays_lossless_when_it_was_and_lossy_when_it_was(rater, media):
    source = samples.screenshot()
    lossless, _ = _store(samples.encode(source, "WEBP", lossless=True), rater)
    lossy, _ = _store(samples.encode(source, "WEBP", quality=70), rater)

    lossless_bytes, lossless_image = _stored_image(media, lossless)
    assert _webp_bitstream(lossless_bytes) == b"VP8L"
    assert lossless_image.convert("RGB").tobytes() == source.tobytes()
    assert _webp_bitstream(_stored_image(media, lossy)[0]) == b"VP8 "


def test_jpeg_loses_its_exif_gps_xmp_and_comment_and_is_turned_upright(rater, media):
    data = samples.jpeg_with_gps_and_orientation()
    original = Image.open(io.BytesIO(data)).getexif()
    assert original.get_ifd(ExifTags.IFD.GPSInfo) and b"TrailmarkCam" in data  # the test's premise
    assert b"GPSLatitude" in data and b"Jane's kitchen" in data

    asset, _ = _store(data, rater, name="photo.jpg", content_type="image/jpeg")

    stored, image = _stored_image(media, asset)
    assert not image.getexif() and "exif" not in image.info
    for marker in (b"Exif", b"TrailmarkCam", b"xmpmeta", b"GPSLatitude", b"Jane's kitchen"):
        assert marker not in stored
    # EXIF orientation 6 ("rotate 90° clockwise to view") is applied to the pixels: the
    # blue header bar along the top of the 300×200 source is now down the right side.
    assert (asset.width, asset.height) == (200, 300)
    assert image.getpixel((195, 150))[2] > 120 and image.getpixel((3, 150)) == (255, 255, 255)


def test_png_text_chunks_are_dropped_and_pixels_kept(rater, media):
    data = samples.png_with_text_chunks()
    asset, _ = _store(data, rater)

    stored, image = _stored_image(media, asset)
    for marker in (b"tEXt", b"iTXt", b"zTXt", b"Jane Rater", b"Example Street"):
        assert marker not in stored
    assert image.tobytes() == Image.open(io.BytesIO(data)).tobytes()


def test_images_with_the_same_pixels_but_other_metadata_are_one_asset(rater):
    picture = samples.screenshot()
    with_text, created = _store(samples.png_with_text_chunks(picture), rater)
    without_text, created_again = _store(samples.encode(picture, "PNG"), rater)
    assert created and not created_again and with_text == without_text


def test_perceptual_hash_finds_the_same_picture_in_another_format(rater):
    picture = samples.screenshot((640, 400))
    as_png, _ = _store(samples.encode(picture, "PNG"), rater)
    as_jpeg, _ = _store(samples.encode(picture, "JPEG", quality=60), rater)
    other = Image.effect_mandelbrot((640, 400), (-2, -1.2, 1, 1.2), 100).convert("RGB")
    different, _ = _store(samples.encode(other, "PNG"), rater)

    assert as_png.sha256 != as_jpeg.sha256
    distance = imagehash.hex_to_hash(as_png.phash) - imagehash.hex_to_hash(as_jpeg.phash)
    assert distance <= 8
    assert imagehash.hex_to_hash(as_png.phash) - imagehash.hex_to_hash(different.phash) > 16


def test_same_bytes_twice_are_one_blob_and_one_row(rater, other_rater, media):
    data = samples.png_bytes()
    first, created = _store(data, rater)
    again, created_again = _store(data, rater)
    by_other, created_by_other = _store(data, other_rater, name="another-name.png")

    assert (created, created_again, created_by_other) == (True, False, False)
    assert first == again == by_other and Asset.objects.count() == 1
    assert stored_files(media) == sorted([first.storage_key, first.thumbnail_key])
    assert sorted(AssetUpload.objects.values_list("uploaded_by__username", flat=True)) == sorted(
        [rater.username, other_rater.username]
    )


def test_a_leftover_file_under_the_key_is_replaced(rater, media):
    """A file left under an asset's key by an attempt whose transaction failed is
    overwritten by the next upload that creates the row, not trusted."""
    data = samples.png_bytes()
    asset, _ = _store(data, rater)
    services.delete_asset_bytes(asset=asset)
    Asset.objects.all().delete()
    (media / asset.storage_key).parent.mkdir(parents=True, exist_ok=True)
    (media / asset.storage_key).write_bytes(b"half a file")

    again, created = _store(data, rater)
    assert created and again.storage_key == asset.storage_key
    assert hashlib.sha256((media / again.storage_key).read_bytes()).hexdigest() == again.sha256
    assert stored_files(media) == sorted([again.storage_key, again.thumbnail_key])


REFUSALS = [
    pytest.param(lambda: b"", "empty_file", "empty", id="zero-bytes"),
    pytest.param(lambda: b"just some notes\n" * 40, "not_an_image", "PNG, JPEG or WebP", id="text-named-png"),
    pytest.param(lambda: samples.png_bytes()[:4000], "truncated_image", "truncated", id="truncated-png"),
    pytest.param(
        lambda: samples.encode(samples.screenshot(), "JPEG")[:3000], "truncated_image", "truncated", id="truncated-jpeg"
    ),
    pytest.param(samples.svg_bytes, "unsupported_format", "SVG", id="svg"),
    pytest.param(lambda: samples.encode(samples.screenshot(), "GIF"), "unsupported_format", "GIF", id="gif-named-png"),
    pytest.param(lambda: samples.animated("PNG"), "animated_image", "3 frames", id="animated-png"),
    pytest.param(lambda: samples.animated("WEBP"), "animated_image", "3 frames", id="animated-webp"),
    pytest.param(samples.huge_png, "too_many_pixels", "50,000,000 pixels", id="30000x30000-png"),
]


@pytest.mark.parametrize("make, code, says", REFUSALS)
def test_bad_files_are_refused_with_a_clear_reason_and_nothing_stored(rater, media, make, code, says):
    with pytest.raises(ImageRefused) as refusal:
        _store(make(), rater)
    assert (refusal.value.code, refusal.value.status) == (code, 400)
    assert says in refusal.value.message
    assert Asset.objects.count() == 0 and AssetUpload.objects.count() == 0
    assert stored_files(media) == []


def test_files_over_the_byte_limit_are_refused_before_decoding(rater, media, settings):
    settings.ASSET_MAX_BYTES = 1000
    with pytest.raises(ImageRefused) as refusal:
        _store(samples.png_bytes(), rater)
    assert refusal.value.code == "file_too_large" and "1000 bytes" in refusal.value.message
    assert Asset.objects.count() == 0 and stored_files(media) == []


def test_pixel_limit_is_checked_from_the_header_before_decoding(rater, media, settings):
    settings.ASSET_MAX_PIXELS = 100_000
    cut_off = samples.encode(samples.screenshot((640, 400)), "PNG")[:1000]
    with pytest.raises(ImageRefused) as refusal:
        _store(cut_off, rater)
    # "too many pixels", not "truncated": the refusal came before any pixel was read.
    assert refusal.value.code == "too_many_pixels" and "640×400 = 256,000 pixels" in refusal.value.message
    _store(samples.encode(samples.screenshot((400, 250)), "PNG"), rater)  # 100,000 exactly is allowed


def test_a_huge_png_is_refused_from_its_header_alone(rater):
    """The 30000×30000 PNG is valid; decoding it would take 900 MB and seconds. With a
    cut-off body it still gets "too many pixels", not "truncated": nothing was decoded."""
    header_only = samples.huge_png()[:200]
    with pytest.raises(ImageRefused) as refusal:
        _store(header_only, rater)
    assert refusal.value.code == "too_many_pixels"


def test_uploads_fail_loudly_if_pillow_is_told_to_load_truncated_images(rater, media, monkeypatch):
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    with pytest.raises(ImproperlyConfigured):
        _store(samples.png_bytes()[:4000], rater)
    assert Asset.objects.count() == 0 and stored_files(media) == []


def test_delete_asset_bytes_removes_file_and_thumbnail(rater, media):
    asset, _ = _store(samples.png_bytes(), rater)
    kept, _ = _store(samples.png_bytes(), rater)
    services.delete_asset_bytes(asset=asset)
    assert stored_files(media) == sorted([kept.storage_key, kept.thumbnail_key])
    assert Asset.objects.filter(pk=asset.pk).exists()


def test_only_cleared_assets_are_cleared(rater):
    states = {}
    for state in Asset.ReviewState.values:
        asset, _ = _store(samples.png_bytes(), rater)
        Asset.objects.filter(pk=asset.pk).update(review_state=state)
        states[state] = asset.pk
    assert list(selectors.cleared_assets().values_list("pk", flat=True)) == [states["cleared"]]


def test_the_database_refuses_an_unknown_review_state(rater):
    asset, _ = _store(samples.png_bytes(), rater)
    with pytest.raises(IntegrityError):
        Asset.objects.filter(pk=asset.pk).update(review_state="looks_fine")
