"""Bad input is refused with a clear message before anything large is decoded."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from dealer_assist.cli import main
from dealer_assist.vision.loading import MAX_PIXELS, ImageError, decode, image_size, load


def _png_header(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr
    chunk += struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


def _jpeg(w: int = 64, h: int = 48) -> bytes:
    ok, enc = cv2.imencode(".jpg", np.full((h, w, 3), 200, np.uint8))
    assert ok
    return enc.tobytes()


def test_good_jpeg_decodes() -> None:
    img = decode(_jpeg())
    assert img.shape == (48, 64, 3)
    assert image_size(_jpeg(300, 200)) == ("jpeg", 300, 200)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"hello, this is not a photo at all", "not a JPEG or PNG"),
        (b"%PDF-1.7\n...", "not a JPEG or PNG"),
    ],
)
def test_not_an_image(data: bytes, message: str) -> None:
    with pytest.raises(ImageError, match=message):
        decode(data)


def test_truncated_jpeg() -> None:
    data = _jpeg(640, 480)
    with pytest.raises(ImageError, match="truncated"):
        decode(data[: len(data) // 2])
    with pytest.raises(ImageError, match=r"truncated|corrupt"):
        decode(data[:30])


def test_huge_png_refused_from_its_header() -> None:
    # a 20000x20000 header with no pixel data: refused without decoding anything
    with pytest.raises(ImageError, match="20000x20000"):
        decode(_png_header(20000, 20000) + b"\x00" * 100)


def test_huge_jpeg_refused_from_its_header() -> None:
    data = bytearray(_jpeg(64, 48))
    i = data.find(b"\xff\xc0")
    struct.pack_into(">HH", data, i + 5, 20000, 20000)
    with pytest.raises(ImageError, match="megapixels"):
        decode(bytes(data))
    assert MAX_PIXELS < 20000 * 20000


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="no such file"):
        load(tmp_path / "nope.jpg")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"GIF89a not supported", "not a JPEG or PNG"),
        (None, "truncated"),
        (_png_header(20000, 20000), "megapixels"),
    ],
)
def test_cli_bad_input_exit_2(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "photo.jpg"
    path.write_bytes(_jpeg(320, 240)[:500] if content is None else content)
    result = CliRunner().invoke(main, ["scan", str(path), "--json"])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_cli_bad_zones(tmp_path: Path) -> None:
    photo = tmp_path / "p.jpg"
    photo.write_bytes(_jpeg())
    zones = tmp_path / "z.json"
    zones.write_text('{"9": [[0, 0], [1, 0], [1, 1]]}')
    result = CliRunner().invoke(main, ["scan", str(photo), "--zones", str(zones)])
    assert result.exit_code == 2
    assert "not a seat" in result.output
