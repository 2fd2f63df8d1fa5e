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
from tests.phone_photos import portrait_phone_jpeg, with_orientation

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"


def _png_header(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr
    chunk += struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


def _jpeg(w: int = 64, h: int = 48) -> bytes:
    ok, enc = cv2.imencode(".jpg", np.full((h, w, 3), (40, 110, 30), np.uint8))  # felt green
    assert ok
    return enc.tobytes()


def _encoded(ext: str, pixels: np.ndarray) -> bytes:
    ok, enc = cv2.imencode(ext, pixels)
    assert ok
    return enc.tobytes()


def _black_and_white() -> bytes:
    """A table photo taken in black and white (a phone's mono filter), as a JPEG."""
    table = cv2.imread(str(SAMPLES / "scene_2.jpg"), cv2.IMREAD_COLOR)
    return _encoded(".jpg", cv2.cvtColor(table, cv2.COLOR_BGR2GRAY))


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
        # an iPhone's own format, and WebP: said so, with what to send instead
        (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", "HEIC/HEIF photo"),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "a WebP image: send the photo as JPEG"),
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
        # a 1x1 PNG and a 19000x5 strip crashed the reader; a black-and-white photo read
        # hearts as spades, sure
        (_encoded(".png", np.full((1, 1, 3), (40, 110, 30), np.uint8)), "1x1 pixels: too small"),
        (_encoded(".png", np.full((5, 19000, 3), (40, 110, 30), np.uint8)), "too small"),
        (_encoded(".png", np.full((400, 4100, 3), (40, 110, 30), np.uint8)),
         "not a photo of a table"),
        (_black_and_white(), "no colour (black and white)"),
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


@pytest.mark.parametrize("kind", ["jpeg", "png"])
@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_size_is_the_upright_size(kind: str, orientation: int) -> None:
    # the size from the header is the size the decoder (and a browser) shows it at, so a
    # portrait phone photo is not refused as corrupt and zones drawn on it stay in place
    data = with_orientation(np.full((60, 80, 3), (40, 110, 30), np.uint8), orientation, kind)
    shown = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR).shape
    _, w, h = image_size(data)
    assert (h, w) == shown[:2] == ((80, 60) if orientation >= 5 else (60, 80))
    assert decode(data).shape == shown


def test_portrait_phone_photo_reads_as_shown(tmp_path: Path) -> None:
    """A phone stores a photo as its sensor saw it, turned a quarter, with "rotate 90" in
    its EXIF: the scan reads it upright, the cards where the dealer sees them."""
    import json

    upright = cv2.imread(str(SAMPLES / "scene_2.jpg"))
    phone = tmp_path / "phone.jpg"
    phone.write_bytes(portrait_phone_jpeg(upright, quality=75))
    plain = tmp_path / "plain.jpg"
    plain.write_bytes(with_orientation(upright, 1))
    reads = []
    for path in (phone, plain):
        result = CliRunner().invoke(main, ["scan", str(path), "--json"])
        assert result.exit_code == 0, result.output
        reads.append(json.loads(result.output))
    truth = json.loads((SAMPLES / "scene_2.json").read_text())["cards"]
    assert len(reads[0]["cards"]) >= 20
    for a, b in zip(sorted(reads[0]["cards"], key=lambda c: c["card"]),
                    sorted(reads[1]["cards"], key=lambda c: c["card"]), strict=True):
        assert a["card"] == b["card"]
        # JPEG blocks fall otherwise on the turned frame: the same card, within a few pixels
        assert np.linalg.norm(np.mean(a["corners"], 0) - np.mean(b["corners"], 0)) < 12
    right = {t["card"] for t in truth} & {c["card"] for c in reads[0]["cards"]}
    assert len(right) >= 20
