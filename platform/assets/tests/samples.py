"""Test images, made with Pillow on the spot (no files checked in, no network)."""

import io
import itertools
import random
import struct
import zlib

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import ExifTags, Image, PngImagePlugin

_seeds = itertools.count(1)


def screenshot(size=(320, 200), *, mode="RGB", seed=None):
    """A small 'page': white with a coloured header bar and a block of noise. The noise
    comes from ``seed``, by default a new one each call, so images differ unless asked
    for with the same seed."""
    seed = next(_seeds) if seed is None else seed
    image = Image.new(mode, size, "white")
    image.paste((40, 90, 160) if mode == "RGB" else (40, 90, 160, 255), (0, 0, size[0], size[1] // 5))
    noise_size = (size[0] // 2, size[1] // 4)
    noise = Image.frombytes("L", noise_size, random.Random(seed).randbytes(noise_size[0] * noise_size[1]))
    image.paste(noise.convert(mode), (size[0] // 4, size[1] // 2))
    return image


def encode(image, fmt, **options):
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def upload(data, name="screen.png", content_type="image/png"):
    return SimpleUploadedFile(name, data, content_type=content_type)


def png_bytes(**kwargs):
    return encode(screenshot(**kwargs), "PNG")


def jpeg_with_gps_and_orientation():
    """A 300×200 JPEG whose EXIF says: camera, GPS position, and 'rotate 90° to view';
    with an XMP packet and a comment too."""
    exif = Image.Exif()
    exif[ExifTags.Base.Make] = "TrailmarkCam"
    exif[ExifTags.Base.Orientation] = 6
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[ExifTags.GPS.GPSLatitudeRef] = "N"
    gps[ExifTags.GPS.GPSLatitude] = (52.0, 31.0, 12.0)
    gps[ExifTags.GPS.GPSLongitudeRef] = "E"
    gps[ExifTags.GPS.GPSLongitude] = (13.0, 24.0, 36.0)
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description exif:GPSLatitude="52,31.2N"/></x:xmpmeta>'
    return encode(screenshot((300, 200)), "JPEG", exif=exif, xmp=xmp, comment=b"Jane's kitchen", quality=95)


def png_with_text_chunks(picture=None):
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "Jane Rater")
    info.add_itxt("Comment", "taken at home, 12 Example Street")
    return encode(picture or screenshot(), "PNG", pnginfo=info)


def animated(fmt):
    frames = [screenshot((64, 48), seed=n) for n in range(3)]
    return encode(frames[0], fmt, save_all=True, append_images=frames[1:], duration=100)


def svg_bytes():
    return b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>\n'


def handmade_png(width, height, *, bit_depth=8, colour_type=2, row=None, rows=None, level=9):
    """A valid PNG written by hand, without Pillow ever holding its pixels, so that images
    far too large to decode cost a test little. Every row is ``row`` (the filter byte
    and the packed samples; all zeros by default) unless ``rows`` maps a row number to
    other bytes. ``colour_type`` is PNG's: 0 grey, 2 RGB, 6 RGBA."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour_type]
    row = row if row is not None else b"\x00" * (1 + (width * channels * bit_depth + 7) // 8)
    rows = rows or {}
    compressor = zlib.compressobj(level)
    parts, done, batch = [], 0, max(1, (4 << 20) // len(row))
    for special in sorted(rows) + [height]:
        while done < special:  # runs of plain rows, compressed a few MB at a time
            count = min(batch, special - done)
            parts.append(compressor.compress(row * count))
            done += count
        if special < height:
            parts.append(compressor.compress(rows[special]))
            done += 1
    parts.append(compressor.flush())
    header = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b"")


def huge_png(width=30000, height=30000):
    """A valid 1-bit PNG of ``width``×``height`` pixels, all black, in a few hundred
    kilobytes: Pillow would need 900 MB to make (or decode) it."""
    return handmade_png(width, height, bit_depth=1, colour_type=0)


def strip_png():
    """The worst case for a decoder: a 95 KB PNG of 1×49,000,000 pixels (under the
    50-megapixel limit), which inflates to 98 MB of rows."""
    return handmade_png(1, 49_000_000, bit_depth=8, colour_type=0)


def rgba_square_png():
    """A 7000×7100 RGBA PNG of a few hundred KB: 49.7 megapixels (under the pixel limit)
    that decode to 199 MB."""
    return handmade_png(7000, 7100, colour_type=6)


def full_page_png(width=1280, height=30000):
    """A full-page RGB screenshot, ``width``×``height``: white, with a blue header bar
    and a grey rule every 1000 rows."""
    white = b"\x00" + b"\xff" * (width * 3)
    bar = b"\x00" + bytes((40, 90, 160)) * width
    rule = b"\x00" + b"\x80" * (width * 3)
    rows = {y: bar for y in range(min(height, 80))}
    rows.update({y: rule for y in range(1000, height, 1000)})
    return handmade_png(width, height, row=white, rows=rows, level=6)
