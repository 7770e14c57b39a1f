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


def huge_png(width=30000, height=30000):
    """A valid 1-bit PNG of ``width``×``height`` pixels, all black, written by hand in a
    few hundred kilobytes: Pillow would need 900 MB to make (or decode) it."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    compressor = zlib.compressobj(9)
    row = b"\x00" * (1 + (width + 7) // 8)  # filter byte, then the packed bits
    pixels = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit greyscale
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
