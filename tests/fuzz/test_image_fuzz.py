"""Photo loading (what a scan upload goes through) under hostile bytes: random data, valid
JPEG/PNG with flipped bytes, cut short, or a header that lies about the size. Only a clear
ImageError or an image within the pixel limit; memory stays bounded. (The HTTP scan endpoint
decodes through ``vision.loading.decode`` too, after its own tighter limits:
tests/web/test_scan.py.)"""

from __future__ import annotations

import resource
import struct
import zlib

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer_assist.vision.loading import MAX_PIXELS, ImageError, decode

QUIET = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                 max_examples=200)


def _encode(ext: str) -> bytes:
    rng = np.random.default_rng(7)
    img = rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)
    ok, buf = cv2.imencode(ext, img)
    assert ok
    return bytes(buf)


JPEG, PNG = _encode(".jpg"), _encode(".png")


def clean(data: bytes) -> None:
    try:
        img = decode(data)
    except ImageError as exc:
        assert str(exc).strip()
        return
    assert img.ndim == 3 and img.shape[0] * img.shape[1] <= MAX_PIXELS


@QUIET
@given(st.binary(max_size=2000))
def test_random_bytes(data: bytes) -> None:
    clean(data)


@QUIET
@given(st.sampled_from([JPEG, PNG]), st.lists(st.tuples(st.integers(0, 10_000),
                                                         st.integers(0, 255)), max_size=8),
       st.integers(0, 100_000))
def test_mutated_and_truncated(base: bytes, flips: list[tuple[int, int]], cut: int) -> None:
    data = bytearray(base)
    for at, value in flips:
        data[at % len(data)] = value
    clean(bytes(data[: max(1, len(data) - cut % len(data))]))


def png_bomb(width: int, height: int) -> bytes:
    """A tiny PNG that inflates to width x height x 3 bytes of zeros."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    raw = zlib.compressobj(9)
    row = b"\x00" + b"\x00" * (width * 3)
    body = b"".join(raw.compress(row) for _ in range(height)) + raw.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                             0, 0, 0))
            + chunk(b"IDAT", body) + chunk(b"IEND", b""))


def lying_jpeg(width: int, height: int) -> bytes:
    """The valid JPEG with its frame header claiming another size."""
    data = bytearray(JPEG)
    i = 2
    while i < len(data):
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2: i + 4])[0]
        if marker in (0xC0, 0xC2):
            data[i + 5: i + 9] = struct.pack(">HH", height, width)
            return bytes(data)
        i += 2 + length
    raise AssertionError("no frame header")


@pytest.mark.parametrize("data", [
    pytest.param(lambda: png_bomb(8_000, 7_000), id="png-bomb-56MP"),
    pytest.param(lambda: lying_jpeg(65_000, 65_000), id="jpeg-claims-4GP"),
    pytest.param(lambda: lying_jpeg(6_000, 6_000), id="jpeg-claims-36MP-with-48x64-data"),
    pytest.param(lambda: PNG[:33] + PNG[33:][::-1], id="png-reversed-body"),
    pytest.param(lambda: b"\xff\xd8\xff" + b"\xff\xd9", id="jpeg-markers-only"),
])
def test_bombs_and_liars_stay_bounded(data: object) -> None:
    payload = data()  # type: ignore[operator]
    assert len(payload) < 5_000_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    clean(payload)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    # Bounded by the largest image allowed (48 MP x 3 bytes = 144 MB) plus the decoder's own
    # buffers, whatever the file claims. Measured: a 1.6 kB JPEG claiming 36 MP peaks at about
    # 200 MB (it is decoded, as gray): per request, so a worker's 8 threads could take 1.6 GB.
    assert grown_mb < 2 * MAX_PIXELS * 3 / 1e6 + 50, f"peak memory grew {grown_mb:.0f} MB"
