"""Turning an uploaded file into a clean image, or a clear refusal.

An upload is accepted when Pillow decodes it, completely, as a PNG, JPEG or WebP: the
file name and the declared content type play no part. The checks run cheapest first
so that a hostile file costs little: the byte size before anything is read, then the
header (format, dimensions, frame count) before any pixel is decoded, then Pillow's
``verify()`` (chunk checksums), and last the full decode.

The header says what cannot be a web screenshot or a photo, and what would cost too
much to decode, before a pixel is decoded (``Image.open`` is lazy: size and mode are
known before ``load()``): a side longer than ``ASSET_MAX_SIDE``, a shape narrower than
``ASSET_MAX_ASPECT`` to 1, more than ``ASSET_MAX_PIXELS`` pixels, or more than
``ASSET_MAX_DECODE_BYTES`` of decoded pixels. A 95 KB PNG can declare a strip of 49
million pixels or a 7000×7100 RGBA square; neither is ever inflated.

Decoding then waits for one of the process's ``ASSET_DECODE_SLOTS`` (``decode_slot``):
a burst of large uploads cannot hold more decoded images in memory at once than that,
and an upload that waits more than ``ASSET_DECODE_WAIT_SECONDS`` is told to retry.

A PNG is cleaned by copying its chunks except the metadata ones: the compressed pixels
are kept byte for byte, which is lossless and many times faster than encoding them again
(screenshots are mostly PNG). Other images, and PNGs that carry an EXIF rotation, are
re-encoded into a new file of the same format, which carries none of the original's metadata (EXIF with its GPS position, XMP, PNG text chunks,
comments); only what changes how the pixels look is kept: PNG transparency and the
ICC colour profile. EXIF orientation is applied to the pixels first, since the tag
that carried it is dropped. The encodings:

- PNG: lossless, as any PNG re-encode is (Pillow reads 16-bit colour as 8-bit).
- JPEG: quality 92. A second JPEG generation loses a little; the metadata must go.
- WebP: lossless when the source was lossless (a ``VP8L`` bitstream), else quality 90.

Memory stays at one decoded copy of the image (plus the small thumbnail): the upload is
read from Django's temporary file, the clean file is written to another temporary file
and hashed from there. The exception is an image with an EXIF rotation (a phone photo),
which needs a second copy for a moment while it is turned.
"""

import hashlib
import io
import math
import struct
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass

import imagehash
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.template.defaultfilters import filesizeformat
from PIL import Image, ImageFile, ImageOps

from .errors import (
    AnimatedImage,
    AspectTooExtreme,
    DecodedTooLarge,
    DecodersBusy,
    EmptyFile,
    FileTooLarge,
    NotAnImage,
    SideTooLong,
    TooManyPixels,
    TruncatedImage,
    UnsupportedFormat,
)
from .models import Asset

# Pillow's format names: the only decoders an upload is ever handed to.
ACCEPTED = {"PNG": Asset.Format.PNG, "JPEG": Asset.Format.JPEG, "WEBP": Asset.Format.WEBP}
JPEG_QUALITY = 92
WEBP_QUALITY = 90
THUMBNAIL_MAX_WIDTH = 320
# WebP's own limit; only a page hundreds of screens long reaches it.
THUMBNAIL_MAX_HEIGHT = 16383
THUMBNAIL_QUALITY = 80

# Signatures of the formats people try instead, to say what was sent. The decision is
# Pillow's alone; these only pick the message once it has refused.
_OURS = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")
_OTHERS = {
    b"GIF87a": "GIF",
    b"GIF89a": "GIF",
    b"BM": "BMP",
    b"II*\x00": "TIFF",
    b"MM\x00*": "TIFF",
    b"%PDF": "PDF",
    b"\x00\x00\x01\x00": "ICO",
}


@dataclass
class CleanImage:
    """An accepted upload, re-encoded: ``file`` is an open temporary file of ``byte_size``
    bytes, positioned at the start; ``thumbnail`` the WebP thumbnail's bytes."""

    format: str
    width: int
    height: int
    byte_size: int
    sha256: str
    phash: str
    file: object
    thumbnail: bytes


@contextmanager
def cleaned(upload):
    """Checks ``upload`` (a Django ``File``) and yields its ``CleanImage``; raises an
    ``ImageRefused`` subclass for anything that is not an acceptable image, and
    ``DecodersBusy`` when no decode slot came free in time. The temporary file is removed
    on leaving the block."""
    if ImageFile.LOAD_TRUNCATED_IMAGES:
        # With it on, Pillow fills missing data with grey and calls the image whole.
        raise ImproperlyConfigured("PIL.ImageFile.LOAD_TRUNCATED_IMAGES is on; truncated uploads would be accepted.")
    check_size(upload.size)
    with _refusing_bad_files(upload), _open(upload) as probe:
        _check_header(probe)
        probe.verify()
    with tempfile.TemporaryFile(dir=settings.FILE_UPLOAD_TEMP_DIR) as out:
        with decode_slot():
            with _refusing_bad_files(upload):
                image = _open(upload)
                image.load()
            result = _re_encode(image, upload, out)
            del image  # the decoded pixels are not needed while the caller stores the file
        out.seek(0)
        yield result


def upload_sha256(upload):
    """The SHA-256 of ``upload`` exactly as it was sent, in hex: one pass over the bytes,
    nothing decoded."""
    digest = hashlib.sha256()
    upload.seek(0)
    while chunk := upload.read(1024 * 1024):
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


_slots_lock = threading.Lock()
_slots = {}


def _decode_slots():
    count = settings.ASSET_DECODE_SLOTS
    with _slots_lock:
        if count not in _slots:
            _slots[count] = threading.BoundedSemaphore(count)
        return _slots[count]


@contextmanager
def decode_slot():
    """Holds one of this process's ``ASSET_DECODE_SLOTS`` for the block: decoded images
    are the memory an upload costs, and this bounds how many exist at once. Waits up to
    ``ASSET_DECODE_WAIT_SECONDS`` for one, then raises ``DecodersBusy``."""
    slots = _decode_slots()
    wait = settings.ASSET_DECODE_WAIT_SECONDS
    if not slots.acquire(timeout=wait):
        retry_after = max(1, math.ceil(wait))
        raise DecodersBusy(
            f"The server is busy decoding other images and could not start on yours within {wait:g} seconds. "
            f"Nothing was stored: send the same file again in {retry_after} seconds.",
            retry_after=retry_after,
        )
    try:
        yield
    finally:
        slots.release()


def describe_size(size):
    """e.g. "20.0 MB", with a plain space (Django's filter puts a no-break space)."""
    return filesizeformat(size).replace("\xa0", " ")


def check_size(size):
    """Refuses an empty file, or one over ``ASSET_MAX_BYTES``, from its size alone."""
    if not size:
        raise EmptyFile("The file is empty (0 bytes). Choose the image file again and re-upload it.")
    if size > settings.ASSET_MAX_BYTES:
        raise FileTooLarge(
            f"The file is {describe_size(size)}; the limit is {describe_size(settings.ASSET_MAX_BYTES)}. "
            "Upload a smaller image, e.g. a PNG or WebP of one screen."
        )


def _open(upload):
    upload.seek(0)
    return Image.open(upload, formats=list(ACCEPTED))


@contextmanager
def _refusing_bad_files(upload):
    """Turns Pillow's complaints about a file into the refusal the uploader reads."""
    try:
        yield
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        # Pillow's own limit, when it is below ours.
        raise TooManyPixels(_too_many_pixels_message()) from None
    except Image.UnidentifiedImageError:
        raise _unidentified(upload) from None
    except (OSError, SyntaxError, ValueError, EOFError, struct.error) as error:
        raise TruncatedImage(
            "The image is damaged or incomplete (truncated) and cannot be decoded "
            f"({error}). Export or save the image again and upload the complete file."
        ) from None


def decoded_bytes(width, height, mode):
    """The memory Pillow takes for the decoded pixels of a ``mode`` image: a byte a pixel
    for 1-bit and 8-bit grey, two for 16-bit grey, four for the rest (Pillow keeps RGB
    in four bytes too). Palette images count as RGBA, since the thumbnail and the
    pre-screen's OCR work on them in colour."""
    if mode in ("1", "L"):
        per_pixel = 1
    elif mode.startswith("I;16"):
        per_pixel = 2
    else:
        per_pixel = 4
    return width * height * per_pixel


def _check_header(probe):
    """Refuses from the header alone (no pixel decoded) what cannot be a screenshot or a
    photo, or would cost too much to decode."""
    width, height = probe.size
    longest, shortest = max(width, height), min(width, height)
    if longest > settings.ASSET_MAX_SIDE:
        raise SideTooLong(
            f"The image is {width:,}×{height:,} pixels; no side may be longer than "
            f"{settings.ASSET_MAX_SIDE:,} pixels. Upload a screenshot of a page or a photo, "
            "split into parts if the page is longer."
        )
    if shortest == 0 or longest / shortest > settings.ASSET_MAX_ASPECT:
        raise AspectTooExtreme(
            f"The image is {width:,}×{height:,} pixels, a strip rather than a screen or a photo; "
            f"one side may be at most {settings.ASSET_MAX_ASPECT:g} times the other. "
            "Upload a screenshot of the page, split into parts if it is very long."
        )
    if width * height > settings.ASSET_MAX_PIXELS:
        raise TooManyPixels(_too_many_pixels_message(width, height))
    needed = decoded_bytes(width, height, probe.mode)
    if needed > settings.ASSET_MAX_DECODE_BYTES:
        raise DecodedTooLarge(
            f"The image is {width:,}×{height:,} pixels in {probe.mode}, which takes {describe_size(needed)} "
            f"to decode; the limit is {describe_size(settings.ASSET_MAX_DECODE_BYTES)}. "
            "Upload a smaller image, e.g. one screen at its natural size."
        )
    if probe.format not in ACCEPTED:
        # e.g. a multi-picture JPEG (MPO) from a camera
        raise UnsupportedFormat(f"{probe.format} images are not accepted; upload a PNG, JPEG or WebP.")
    if getattr(probe, "n_frames", 1) > 1:
        raise AnimatedImage(
            f"The image is animated ({probe.n_frames} frames); upload a still PNG, JPEG or WebP of the screen."
        )


def _too_many_pixels_message(width=None, height=None):
    size = f"is {width}×{height} = {width * height:,} pixels" if width else "has too many pixels"
    return (
        f"The image {size}; the limit is {settings.ASSET_MAX_PIXELS:,} pixels in all. "
        "Upload a smaller image, e.g. one screen at its natural size."
    )


def _unidentified(upload):
    upload.seek(0)
    head = upload.read(1024)
    if head.startswith(_OURS) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP"):
        return TruncatedImage(
            "The file starts like a PNG, JPEG or WebP image but cannot be decoded: it is damaged or "
            "incomplete (truncated). Export or save the image again and upload the complete file."
        )
    name = next((name for signature, name in _OTHERS.items() if head.startswith(signature)), None)
    if name is None and b"<svg" in head.lower():
        name = "SVG"
    if name is None and head[4:12] in (b"ftypheic", b"ftypheix", b"ftypavif", b"ftypmif1"):
        name = "HEIC/AVIF"
    if name:
        return UnsupportedFormat(f"{name} images are not accepted; upload a PNG, JPEG or WebP.")
    return NotAnImage("The file is not an image that can be read; upload a PNG, JPEG or WebP.")


def _webp_is_lossless(upload):
    """True when the WebP's image bitstream is ``VP8L`` (lossless) rather than ``VP8 ``."""
    upload.seek(12)  # past "RIFF", the size and "WEBP"
    while header := upload.read(8):
        if len(header) < 8:
            break
        fourcc, size = struct.unpack("<4sI", header)
        if fourcc in (b"VP8L", b"VP8 "):
            return fourcc == b"VP8L"
        upload.seek(size + (size & 1), 1)
    return False


def _re_encode(image, upload, out):
    fmt = ACCEPTED[image.format]
    lossless_webp = fmt == Asset.Format.WEBP and _webp_is_lossless(upload)
    rotated = image.getexif().get(ORIENTATION, 1) != 1
    ImageOps.exif_transpose(image, in_place=True)
    thumbnail = _thumbnail(image)
    phash = str(imagehash.phash(thumbnail))  # it works on a 32×32 copy anyway
    thumbnail_bytes = _encode_thumbnail(thumbnail)

    kept = {key: image.info[key] for key in ("transparency", "icc_profile") if key in image.info}
    # Pillow's encoders fall back on ``info`` for XMP, comments and more: empty it.
    image.info = {}
    if fmt == Asset.Format.PNG and not rotated:
        _copy_png_without_metadata(upload, out)
    elif fmt == Asset.Format.PNG:
        image.save(out, "PNG", **kept)
    elif fmt == Asset.Format.JPEG:
        image.save(out, "JPEG", quality=JPEG_QUALITY, **kept)
    else:
        options = {"lossless": True} if lossless_webp else {"quality": WEBP_QUALITY}
        image.save(out, "WEBP", **options, **kept)

    out.seek(0)
    digest = hashlib.sha256()
    while chunk := out.read(1024 * 1024):
        digest.update(chunk)
    return CleanImage(
        format=fmt,
        width=image.width,
        height=image.height,
        byte_size=out.tell(),
        sha256=digest.hexdigest(),
        phash=phash,
        file=out,
        thumbnail=thumbnail_bytes,
    )


ORIENTATION = 0x0112
# What a PNG keeps: its critical chunks, and the ancillary ones that change how its
# pixels look. Text, EXIF, time stamps and anything unknown are dropped.
PNG_KEPT_CHUNKS = {b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT"}


def _copy_png_without_metadata(upload, out):
    """Writes the PNG's signature and kept chunks to ``out``. The upload has already
    been decoded in full and its checksums verified, so its chunk layout is sound."""
    upload.seek(0)
    out.write(upload.read(8))
    while header := upload.read(8):
        length, kind = struct.unpack(">I4s", header)
        body = upload.read(length + 4)  # the data and its CRC
        if kind in PNG_KEPT_CHUNKS:
            out.write(header)
            out.write(body)
        if kind == b"IEND":
            break


def _has_alpha(image):
    return image.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in image.info


def _thumbnail(image):
    """A copy at most ``THUMBNAIL_MAX_WIDTH`` wide, in RGB or RGBA; never a full-size copy."""
    scale = min(1, THUMBNAIL_MAX_WIDTH / image.width, THUMBNAIL_MAX_HEIGHT / image.height)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    target_mode = "RGBA" if _has_alpha(image) else "RGB"
    source = image
    if image.mode in ("1", "P", "PA"):
        # Palette pixels cannot be averaged: thin them out by nearest neighbour to a
        # few times the target first, so that only a small copy is expanded to colour.
        step = (min(image.width, size[0] * 4), min(image.height, size[1] * 4))
        source = image.resize(step, Image.Resampling.NEAREST).convert(target_mode)
    elif image.mode.startswith("I"):
        # 16-bit greys: shrink, then scale to 8 bits rather than clip everything to white.
        small = image.resize(size, Image.Resampling.BOX).convert("I")
        return small.point(lambda value: value * (1 / 256)).convert("RGB")
    # reducing_gap=1 averages whole blocks down to about the target first (Image.reduce),
    # so no intermediate larger than the thumbnail is made; a full-page capture would
    # otherwise pass through a 320-wide copy of its whole height.
    small = source.resize(size, Image.Resampling.LANCZOS, reducing_gap=1.0)
    return small if small.mode == target_mode else small.convert(target_mode)


def _encode_thumbnail(thumbnail):
    buffer = io.BytesIO()
    thumbnail.save(buffer, "WEBP", quality=THUMBNAIL_QUALITY)
    return buffer.getvalue()
