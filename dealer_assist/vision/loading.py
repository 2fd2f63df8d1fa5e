"""Loading a photo safely: the size is read from the header before anything is decoded.

Refused with an :class:`ImageError` (a clear message, never a crash): an empty file, a file
that is not a JPEG or PNG, a truncated one, one whose header is corrupt, one with more
pixels than :data:`MAX_PIXELS` (so a 20000x20000 image is never decoded: memory stays
bounded), one too small or too thin to be a photo of cards (:data:`MIN_SIDE`,
:data:`MAX_ASPECT`), and a photo with no colour (black and white, :data:`COLOURLESS`):
hearts and diamonds are told from spades and clubs by their colour first, and such a photo
read spades for hearts with nothing flagged.

A phone holds the camera's frame as the sensor saw it and says in the photo's EXIF how to
turn it upright (a photo taken in portrait is stored landscape, "rotate 90"). OpenCV's
decoder turns it, as every browser does when it shows the photo, so the size read from the
header is the size once turned: card corners and seat zones are in the pixels the dealer and
the admin see.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path

import cv2
import numpy as np

#: Largest photo accepted: 48 megapixels (a 12 MP camera frame has room to spare).
MAX_PIXELS = 48_000_000
#: Largest file accepted, in bytes.
MAX_BYTES = 64 * 1024 * 1024
#: Shortest side accepted, in pixels: a card's index is not read in fewer (whole tables in
#: a 1080p photo show cards 40-75 pixels high).
MIN_SIDE = 40
#: A photo's long side at most this many times its short side (a phone's panorama of a
#: table is about 4): the reader's working copy of a thinner image has no rows left.
MAX_ASPECT = 10
#: A photo whose colour channels lie within this many levels of each other at all but
#: 0.1% of its pixels has no colour. A black-and-white JPEG decodes with its channels
#: equal (0 apart); on generated tables (a light grey felt, a near-white table, warm dim
#: light and a hard shadow among them) 0.1% of the pixels lie 83-132 levels apart or more.
COLOURLESS = 4

_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


#: ISO media "brands" of HEIF photos (iPhones save HEIC) and AVIF images.
_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1",
                b"avif"}


class ImageError(ValueError):
    """The input is not a photo the reader will decode."""


def exif_orientation(tiff: bytes) -> int:
    r"""The EXIF orientation (1-8, 1 upright) in a TIFF-structured EXIF block; 1 when it has
    none or it cannot be read (then the decoder turns nothing either).

    >>> exif_orientation(b"MM\x00\x2a\x00\x00\x00\x08\x00\x01"
    ...                  b"\x01\x12\x00\x03\x00\x00\x00\x01\x00\x06\x00\x00")
    6
    >>> exif_orientation(b"not exif")
    1
    """
    order = {b"II": "<", b"MM": ">"}.get(tiff[:2])
    if order is None or len(tiff) < 8:
        return 1
    magic, ifd = struct.unpack(order + "HI", tiff[2:8])
    if magic != 42 or ifd + 2 > len(tiff):
        return 1
    (count,) = struct.unpack(order + "H", tiff[ifd : ifd + 2])
    for k in range(count):
        at = ifd + 2 + 12 * k
        if at + 10 > len(tiff):
            break
        tag, kind = struct.unpack(order + "HH", tiff[at : at + 4])
        if tag == 0x0112 and kind == 3:  # Orientation, a SHORT
            (value,) = struct.unpack(order + "H", tiff[at + 8 : at + 10])
            return value if 1 <= value <= 8 else 1
    return 1


def _turned(w: int, h: int, orientation: int) -> tuple[int, int]:
    # orientations 5-8 turn the frame a quarter: width and height swap
    return (h, w) if orientation >= 5 else (w, h)


def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a JPEG's frame header, without decoding it, once turned upright
    as its EXIF orientation says."""
    i = 2
    n = len(data)
    orientation = 1
    while i + 4 <= n:
        if data[i] != 0xFF:
            raise ImageError("corrupt JPEG: bad marker before the frame header")
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker == 0xE1 and data[i + 4 : i + 10] == b"Exif\x00\x00" and orientation == 1:
            orientation = exif_orientation(data[i + 10 : i + 2 + length])
        if marker in _SOF:
            if i + 9 > n:
                break
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return _turned(w, h, orientation)
        if marker == 0xDA or length < 2:
            break
        i += 2 + length
    raise ImageError("corrupt or truncated JPEG: no frame header with the image size")


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's header, once turned upright as its eXIf chunk says."""
    if len(data) < 24 or data[12:16] != b"IHDR":
        raise ImageError("corrupt or truncated PNG: no IHDR header")
    w, h = struct.unpack(">II", data[16:24])
    i = 8
    while i + 8 <= len(data):  # the chunks' headers only: nothing is decompressed
        (length,) = struct.unpack(">I", data[i : i + 4])
        chunk = data[i + 4 : i + 8]
        if chunk == b"eXIf":
            return _turned(w, h, exif_orientation(data[i + 8 : i + 8 + length]))
        if chunk == b"IEND":
            break
        i += 12 + length
    return w, h


def image_size(data: bytes) -> tuple[str, int, int]:
    """(kind, width, height) from the header; raises ImageError for anything else."""
    if not data:
        raise ImageError("the file is empty")
    if data[:3] == b"\xff\xd8\xff":
        w, h = jpeg_size(data)
        return "jpeg", w, h
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        w, h = png_size(data)
        return "png", w, h
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        raise ImageError("a HEIC/HEIF photo (an iPhone's own format): send it as JPEG (on "
                         "the iPhone: Settings > Camera > Formats > Most Compatible)")
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        raise ImageError("a WebP image: send the photo as JPEG or PNG")
    raise ImageError("not a JPEG or PNG image")


def check_shape(kind: str, w: int, h: int) -> None:
    """Refuse an image of ``w`` x ``h`` pixels (from its header) too small or too thin to be
    a photo of cards (``MIN_SIDE``, ``MAX_ASPECT``).

    >>> check_shape("png", 1, 1)
    Traceback (most recent call last):
    ...
    dealer_assist.vision.loading.ImageError: the image is 1x1 pixels: too small to show a \
card (at least 40 pixels a side)
    >>> check_shape("jpeg", 19000, 500)
    Traceback (most recent call last):
    ...
    dealer_assist.vision.loading.ImageError: the image is 19000x500 pixels, its long side 38 \
times its short side: not a photo of a table (at most 10)
    >>> check_shape("jpeg", 1920, 1080)
    """
    if w <= 0 or h <= 0:
        raise ImageError(f"the {kind.upper()} header gives an empty image ({w}x{h})")
    if min(w, h) < MIN_SIDE:
        raise ImageError(f"the image is {w}x{h} pixels: too small to show a card (at least "
                         f"{MIN_SIDE} pixels a side)")
    if max(w, h) > MAX_ASPECT * min(w, h):
        raise ImageError(f"the image is {w}x{h} pixels, its long side {max(w, h) // min(w, h)} "
                         f"times its short side: not a photo of a table (at most {MAX_ASPECT})")


#: How many of a photo's pixels, evenly spread, its colour is judged on (``colourless``):
#: every pixel of a 12 MP photo took 71 ms, every third of a 1080p one 13 ms.
COLOUR_SAMPLE = 40_000


def colourless(img: np.ndarray) -> bool:
    """Whether a BGR photo has no colour (``COLOURLESS``), judged on about
    ``COLOUR_SAMPLE`` of its pixels.

    >>> grey = np.full((60, 80, 3), 128, np.uint8)
    >>> colourless(grey), colourless(grey + np.array([0, 0, 40], np.uint8))
    (True, False)
    """
    step = max(1, math.isqrt(img.shape[0] * img.shape[1] // COLOUR_SAMPLE))
    sample = img[::step, ::step]
    spread = sample.max(axis=2) - sample.min(axis=2)
    return bool(np.count_nonzero(spread > COLOURLESS) <= 0.001 * spread.size)


def decode(data: bytes, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Decode photo bytes to a BGR array, after the checks above."""
    if len(data) > MAX_BYTES:
        raise ImageError(f"the file is {len(data) / 1e6:.0f} MB; the limit is "
                         f"{MAX_BYTES / 1e6:.0f} MB")
    kind, w, h = image_size(data)
    check_shape(kind, w, h)
    if w * h > max_pixels:
        raise ImageError(f"the image is {w}x{h} ({w * h / 1e6:.0f} megapixels); the limit is "
                         f"{max_pixels / 1e6:.0f} megapixels")
    if kind == "jpeg" and not data.rstrip(b"\x00\r\n ").endswith(b"\xff\xd9"):
        raise ImageError("truncated JPEG: the file ends before the end-of-image marker")
    if kind == "png" and b"IEND" not in data[-16:]:
        raise ImageError("truncated PNG: the file ends before the IEND chunk")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None or img.shape[0] != h or img.shape[1] != w:
        raise ImageError(f"could not decode the {kind.upper()} (corrupt data)")
    if colourless(img):
        raise ImageError("the photo has no colour (black and white): hearts and diamonds "
                         "cannot be told from spades and clubs; take it in colour")
    return np.asarray(img)


def load(path: str | Path, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    p = Path(path)
    if not p.is_file():
        raise ImageError(f"{p}: no such file")
    size = p.stat().st_size
    if size > MAX_BYTES:
        raise ImageError(f"{p}: the file is {size / 1e6:.0f} MB; the limit is "
                         f"{MAX_BYTES / 1e6:.0f} MB")
    try:
        return decode(p.read_bytes(), max_pixels)
    except ImageError as e:
        raise ImageError(f"{p}: {e}") from None
