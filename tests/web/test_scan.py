"""The camera scan over HTTP on the real hand log (SQLite, and PostgreSQL when set):
``POST /api/v1/tables/{table}/scan`` (token) and ``POST /dealer/{table}/scan`` (session +
CSRF). A sample photo reads exactly as ``dealer-assist scan --json`` reads it, plus its
SHA-256; every bad upload is a 4xx in the API's error shape, nothing kept, memory bounded;
a round logged with the photo's hash has source "scan", keeps its photo and verifies."""

from __future__ import annotations

import hashlib
import io
import json
import resource
import struct
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from .conftest import ROUND, Auth, Floor

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"
SCENE = SAMPLES / "scene_1.jpg"
TRUTH = json.loads((SAMPLES / "scene_1.json").read_text())


def call(client: FlaskClient, method: str, path: str, role: str | None, floor: Floor,
         **kwargs: Any) -> Any:
    headers = dict(kwargs.pop("headers", {}))
    if role is not None:
        headers["Authorization"] = f"Bearer {floor.tokens[role]}"
    return client.open(f"/api/v1{path}", method=method, headers=headers, **kwargs)


def scan(client: FlaskClient, floor: Floor, data: bytes, role: str = "dealer",
         table: str = "TCP-1") -> Any:
    return call(client, "POST", f"/tables/{table}/scan", role, floor, data=data,
                headers={"Content-Type": "image/jpeg"})


def assert_error(response: Any, status: int, code: str, field: str | None = None) -> str:
    assert response.status_code == status, (response.status_code, response.text[:300])
    body = response.json["error"]
    assert set(body) == {"code", "message", "field"}, body
    assert body["code"] == code and body["field"] == field, body
    assert body["message"].strip() and "Traceback" not in body["message"]
    return str(body["message"])


def kept(app: Flask) -> list[Path]:
    return sorted(p for p in (Path(app.instance_path) / "photos").rglob("*") if p.is_file())


def set_zones(floor: Floor, zones: dict[str, Any] | None, table: str = "TCP-1") -> None:
    from dealer_assist import services
    from dealer_assist.store import db

    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as session:
            services.update_table(session, table, actor="ada", seat_zones=zones)
    finally:
        engine.dispose()


def record_deck(floor: Floor, path: Path, table: str = "TCP-1") -> None:
    """Put the deck file at ``path`` on record for ``table`` (as `vision enroll-table` and
    `vision deck install` do)."""
    from dealer_assist.services.table_decks import set_table_deck
    from dealer_assist.store import db

    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as session:
            set_table_deck(session, table, hashlib.sha256(path.read_bytes()).hexdigest())
    finally:
        engine.dispose()


@pytest.fixture
def zoned(floor: Floor) -> Floor:
    """TCP-1 with the seat zones drawn for the sample photo (as an admin would)."""
    set_zones(floor, TRUTH["zones"])
    return floor


def cli_scan(image: Path, zones: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    from dealer_assist.cli import main

    zones_file = tmp_path / "zones.json"
    zones_file.write_text(json.dumps(zones))
    result = CliRunner().invoke(main, ["scan", str(image), "--zones", str(zones_file),
                                       "--json"])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.output)
    return out


def check_honest(result: dict[str, Any], truth: dict[str, Any]) -> None:
    """What the reader promises, whatever it reads: a card read at or over the threshold
    in a hand that is not flagged is the true card of that seat; every card under the
    threshold is flagged for the dealer's confirmation."""
    true_cards = {(str(c["seat"]), c["card"]) for c in truth["cards"]}
    items = result["needs_confirmation"]
    flagged_hands = {i["hand"] for i in items if i.get("hand") is not None}
    flagged_cards = {(i["hand"], i["card"]) for i in items if i.get("card")}
    for card in result["cards"]:
        if card["confidence"] < result["threshold"]:
            assert (card["hand"], card["card"]) in flagged_cards, card
        elif card["hand"] not in flagged_hands:
            assert (str(card["seat"]), card["card"]) in true_cards, card


# ---------------------------------------------------------------- a good photo

def test_scan_reads_the_photo_as_the_command_line_does(store_app: Flask,
                                                       store_client: FlaskClient,
                                                       zoned: Floor, tmp_path: Path) -> None:
    data = SCENE.read_bytes()
    response = scan(store_client, zoned, data)
    assert response.status_code == 200, response.text[:500]
    body = response.json
    assert body["photo_sha256"] == hashlib.sha256(data).hexdigest()
    assert body["table"] == "TCP-1"
    assert body["image"] == {"width": 1920, "height": 1080}
    cli = cli_scan(SCENE, TRUTH["zones"], tmp_path)
    for key in ("cards", "hands", "needs_confirmation"):
        assert body[key] == cli[key], key
    for card in body["cards"]:
        assert set(card) >= {"card", "confidence", "corners", "hand", "seat"}
        assert len(card["corners"]) == 4
        assert card["seat"] in {None, "dealer", *range(1, 8)}
    check_honest(body, TRUTH)
    assert kept(store_app) == [store_app.instance_path / Path("photos") / body["photo_sha256"][:2]
                               / f"{body['photo_sha256']}.jpg"]


def test_a_phone_photo_stored_turned_reads_upright(store_client: FlaskClient,
                                                   zoned: Floor) -> None:
    # a phone stores the sensor's frame and an EXIF "rotate 90": read as shown, in the
    # pixels the seat zones were drawn in (it was refused as corrupt before)
    import cv2

    from tests.phone_photos import portrait_phone_jpeg

    response = scan(store_client, zoned, portrait_phone_jpeg(cv2.imread(str(SCENE))))
    assert response.status_code == 200, response.text[:500]
    body = response.json
    assert body["image"] == {"width": 1920, "height": 1080}
    assert len(body["cards"]) == len(TRUTH["cards"])
    assert {str(c["seat"]) for c in body["cards"]} == {str(c["seat"]) for c in TRUTH["cards"]}
    check_honest(body, TRUTH)


def test_scan_as_multipart_field_photo(store_client: FlaskClient, floor: Floor) -> None:
    data = (SAMPLES / "scene_4.jpg").read_bytes()
    response = call(store_client, "POST", "/tables/TCP-1/scan", "supervisor", floor,
                    data={"photo": (io.BytesIO(data), "t.jpg")})
    assert response.status_code == 200, response.text[:500]
    assert response.json["photo_sha256"] == hashlib.sha256(data).hexdigest()
    missing = call(store_client, "POST", "/tables/TCP-1/scan", "dealer", floor,
                   data={"picture": (io.BytesIO(data), "t.jpg")})
    assert_error(missing, 400, "bad_request", "photo")


def test_scan_unknown_table(store_client: FlaskClient, floor: Floor) -> None:
    response = scan(store_client, floor, SCENE.read_bytes(), table="NOPE")
    assert_error(response, 404, "not_found")


def test_broken_seat_zones_fall_back_to_the_arc(store_client: FlaskClient,
                                                floor: Floor) -> None:
    set_zones(floor, {"1": [[0, 0], [1, "x"]]})
    response = scan(store_client, floor, SCENE.read_bytes())
    assert response.status_code == 200
    reasons = [i["reason"] for i in response.json["needs_confirmation"]]
    assert any("seat zone" in r and "arc" in r for r in reasons), reasons


# ---------------------------------------------------------------- bad input

def _png(width: int, height: int, body: bytes = b"") -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", body) + chunk(b"IEND", b""))


def png_bomb(width: int, height: int) -> bytes:
    """A few kB of PNG that inflates to width x height x 3 bytes."""
    squeeze = zlib.compressobj(9)
    row = b"\x00" * (1 + width * 3)
    return _png(width, height, b"".join(squeeze.compress(row) for _ in range(height))
                + squeeze.flush())


def black_and_white(photo: Path) -> bytes:
    """The photo as taken in black and white (a phone's mono filter), a JPEG."""
    grey = cv2.cvtColor(cv2.imread(str(photo), cv2.IMREAD_COLOR), cv2.COLOR_BGR2GRAY)
    return cv2.imencode(".jpg", grey)[1].tobytes()


def jpeg_claiming(width: int, height: int) -> bytes:
    """The sample JPEG with its frame header claiming another size."""
    data = bytearray(SCENE.read_bytes())
    i = 2
    while i < len(data):
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xC2:
            data[i + 5:i + 9] = struct.pack(">HH", height, width)
            return bytes(data)
        i += 2 + length
    raise AssertionError("no frame header")


BAD = {
    "empty": (lambda: b"", 422, "invalid_image", "empty"),
    "not-an-image": (lambda: b"%PDF-1.4 hello" + bytes(range(256)) * 8, 422, "invalid_image",
                     "not a JPEG or PNG"),
    "random-bytes": (lambda: bytes((i * 7919) % 251 for i in range(5000)), 422,
                     "invalid_image", "not a JPEG or PNG"),
    "truncated-jpeg": (lambda: SCENE.read_bytes()[:60_000], 422, "invalid_image", "truncated"),
    "jpeg-header-only": (lambda: SCENE.read_bytes()[:700], 422, "invalid_image", "JPEG"),
    "png-without-header": (lambda: b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, 422, "invalid_image",
                           "PNG"),
    "20000x20000": (lambda: _png(20_000, 20_000, zlib.compress(b"\x00" * 1000)), 413,
                    "too_large", "20000x20000"),
    "jpeg-claiming-20000x20000": (lambda: jpeg_claiming(20_000, 20_000), 413, "too_large",
                                  "20000x20000"),
    "png-bomb-28MP": (lambda: png_bomb(7_000, 4_000), 413, "too_large", "megapixels"),
    "jpeg-claiming-0x0": (lambda: jpeg_claiming(0, 0), 422, "invalid_image", "empty image"),
    "png-1x1": (lambda: _png(1, 1, zlib.compress(b"\x00" + b"\x28\x6e\x1e")), 422,
                "invalid_image", "too small to show a card"),
    "black-and-white": (lambda: black_and_white(SCENE), 422, "invalid_image", "no colour"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_upload_is_a_clear_4xx(store_app: Flask, store_client: FlaskClient, floor: Floor,
                                   case: str) -> None:
    make, status, code, words = BAD[case]
    payload = make()
    assert len(payload) < 2_000_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    message = assert_error(scan(store_client, floor, payload), status, code, "photo")
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert words in message, message
    assert grown_mb < 100, f"peak memory grew {grown_mb:.0f} MB"
    assert kept(store_app) == []


def test_over_the_byte_limit_is_refused_before_it_is_read(store_client: FlaskClient,
                                                          floor: Floor) -> None:
    big = b"\xff\xd8\xff" + b"\x00" * (17 * 1024 * 1024)
    assert "16 MB" in assert_error(scan(store_client, floor, big), 413, "too_large", "photo")
    boundary, body = encode_multipart({"photo": FileStorage(io.BytesIO(big), "big.jpg")})
    multipart = call(store_client, "POST", "/tables/TCP-1/scan", "dealer", floor, data=body,
                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert multipart.status_code == 413, multipart.text[:300]
    assert multipart.json["error"]["code"] == "too_large"


def test_byte_and_pixel_limits_are_settings(floor: Floor, tmp_path: Path) -> None:
    from dealer_assist.web import create_app
    from dealer_assist.web.backend import get_backend

    app = create_app({"TESTING": True, "DATABASE_URL": floor.url, "SCAN_MAX_BYTES": 100_000,
                      "SCAN_MAX_PIXELS": 1_000_000}, instance_path=tmp_path)
    try:
        client = app.test_client()
        message = assert_error(scan(client, floor, SCENE.read_bytes()), 413, "too_large",
                               "photo")
        assert "limit" in message
        small = SAMPLES / "scene_4.jpg"   # 70 kB, but 2 megapixels
        message = assert_error(scan(client, floor, small.read_bytes()), 413, "too_large",
                               "photo")
        assert "1920x1080" in message
    finally:
        get_backend(app).close()


QUIET = settings(max_examples=40, deadline=None, database=None,
                 suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Flask, str, Path]]:
    """One app on one floor for every example."""
    from dealer_assist.web import create_app
    from dealer_assist.web.backend import get_backend

    from .conftest import build_floor

    folder = tmp_path_factory.mktemp("scan-fuzz")
    floor = build_floor(folder)
    app = create_app({"TESTING": True, "DATABASE_URL": floor.url}, instance_path=folder)
    yield app, floor.tokens["dealer"], folder / "photos"
    get_backend(app).close()


def _mutated(path: Path, flips: list[tuple[int, int]], cut: int) -> bytes:
    data = bytearray(path.read_bytes())
    for at, value in flips:
        data[at % len(data)] = value
    return bytes(data[: max(1, len(data) - cut)])


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.one_of(
    st.binary(max_size=3000),
    st.builds(_mutated, st.sampled_from([SAMPLES / "scene_4.jpg", SAMPLES / "scene_2.jpg"]),
              st.lists(st.tuples(st.integers(0, 100_000), st.integers(0, 255)), max_size=6),
              st.one_of(st.just(0), st.integers(0, 100_000)))))
def test_hostile_uploads_never_5xx(fuzz_app: tuple[Flask, str, Path], data: bytes) -> None:
    """Random bytes, and sample photos with flipped bytes, cut short or not: a scan result
    or a 4xx in the error shape, never a 5xx; a refused photo is not kept."""
    app, token, photos = fuzz_app
    response = app.test_client().post("/api/v1/tables/TCP-1/scan", data=data, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "image/jpeg"})
    assert response.status_code in (200, 413, 422), response.text[:300]
    sha = hashlib.sha256(data).hexdigest()
    if response.status_code == 200:
        assert response.json["photo_sha256"] == sha
    else:
        error = response.json["error"]
        assert error["field"] == "photo" and error["message"].strip()
        assert not list(photos.rglob(f"{sha}.*"))


def test_a_busy_scanner_answers_503_in_time(floor: Floor, tmp_path: Path) -> None:
    """One photo is read at a time per process: a scan that waits past the limit gets a
    503 with a message, not a pile of decoded photos."""
    from dealer_assist.services import scan as scan_service
    from dealer_assist.web import create_app
    from dealer_assist.web.backend import get_backend

    app = create_app({"TESTING": True, "DATABASE_URL": floor.url, "SCAN_WAIT_SECONDS": 0.2},
                     instance_path=tmp_path)
    try:
        with scan_service._lock:
            started = time.monotonic()
            response = scan(app.test_client(), floor, SCENE.read_bytes())
            assert time.monotonic() - started < 5
        message = assert_error(response, 503, "scanner_unavailable", None)
        assert "busy" in message
        assert kept(app) == []
        assert scan(app.test_client(), floor, SCENE.read_bytes()).status_code == 200
    finally:
        get_backend(app).close()


# ---------------------------------------------------------------- roles and sessions

@pytest.mark.parametrize("role,status", [("dealer", 200), ("supervisor", 200),
                                         ("auditor", 403), ("admin", 403), (None, 401)])
def test_scan_by_role(store_client: FlaskClient, floor: Floor, role: str | None,
                      status: int) -> None:
    response = scan(store_client, floor, (SAMPLES / "scene_4.jpg").read_bytes(), role)
    assert response.status_code == status, response.text[:300]
    if status == 403:
        assert "needs the role" in response.json["error"]["message"]


def test_scan_from_the_dealer_screen_needs_csrf(store_app: Flask, store_auth: Auth,
                                                floor: Floor) -> None:
    data = (SAMPLES / "scene_4.jpg").read_bytes()
    store_auth.as_role("dealer")
    client = store_auth.client
    refused = client.post("/dealer/TCP-1/scan", data=data,
                          headers={"Content-Type": "image/jpeg", "Accept": "application/json"})
    assert_error(refused, 400, "csrf_failed")
    assert kept(store_app) == []
    done = client.post("/dealer/TCP-1/scan", data=data,
                       headers={"Content-Type": "image/jpeg", "X-CSRFToken": store_auth.token})
    assert done.status_code == 200, done.text[:300]
    assert done.json["photo_sha256"] == hashlib.sha256(data).hexdigest()
    bad = client.post("/dealer/TCP-1/scan", data=b"nope",
                      headers={"Content-Type": "image/jpeg", "X-CSRFToken": store_auth.token,
                               "Accept": "application/json"})
    assert_error(bad, 422, "invalid_image", "photo")
    # The dealer may scan, but not look through the kept photos (supervisors review them).
    assert client.get(f"/dealer/photos/{done.json['photo_sha256']}").status_code == 403


def test_auditor_session_cannot_scan(store_auth: Auth) -> None:
    store_auth.as_role("auditor")
    response = store_auth.client.post(
        "/dealer/TCP-1/scan", data=b"x",
        headers={"Content-Type": "image/jpeg", "X-CSRFToken": store_auth.token,
                 "Accept": "application/json"})
    assert response.status_code == 403


# ---------------------------------------------------------------- logging a scanned round

def test_scanned_round_keeps_its_photo(store_client: FlaskClient, floor: Floor) -> None:
    from dealer_assist import services
    from dealer_assist.store import db

    assert call(store_client, "POST", "/tables/TCP-1/shifts", "supervisor",
                floor).status_code == 201
    data = SCENE.read_bytes()
    sha = scan(store_client, floor, data).json["photo_sha256"]
    body = {**ROUND, "photo_sha256": sha}
    headers = {"Idempotency-Key": "scan-round-0001"}
    logged = call(store_client, "POST", "/tables/TCP-1/rounds", "dealer", floor, json=body,
                  headers=headers)
    assert logged.status_code == 201, logged.text[:300]
    again = call(store_client, "POST", "/tables/TCP-1/rounds", "dealer", floor, json=body,
                 headers=headers)
    assert again.status_code == 200 and again.json["replayed"]
    record = call(store_client, "GET", f"/rounds/{logged.json['round_id']}", "auditor",
                  floor).json
    assert record["source"] == "scan" and record["photo_sha256"] == sha
    # The photo itself, as uploaded, for whoever reviews the round.
    photo = call(store_client, "GET", f"/photos/{sha}", "auditor", floor)
    assert photo.status_code == 200 and photo.mimetype == "image/jpeg"
    assert hashlib.sha256(photo.data).hexdigest() == sha
    assert call(store_client, "GET", f"/photos/{sha}", "dealer", floor).status_code == 403
    assert_error(call(store_client, "GET", "/photos/" + "0" * 64, "auditor", floor), 404,
                 "not_found")
    # A round typed by hand stays manual; the chain verifies with the scanned round in it.
    manual = call(store_client, "POST", "/tables/TCP-1/rounds", "dealer", floor, json=ROUND)
    assert call(store_client, "GET", f"/rounds/{manual.json['round_id']}", "auditor",
                floor).json["source"] == "manual"
    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as session:
            assert services.verify_log(session).ok
    finally:
        engine.dispose()


def test_logging_with_a_photo_never_scanned_is_refused(store_client: FlaskClient,
                                                       floor: Floor) -> None:
    assert call(store_client, "POST", "/tables/TCP-1/shifts", "supervisor",
                floor).status_code == 201
    unknown = call(store_client, "POST", "/tables/TCP-1/rounds", "dealer", floor,
                   json={**ROUND, "photo_sha256": "ab" * 32})
    assert "scan the photo first" in assert_error(unknown, 422, "unknown_photo",
                                                  "photo_sha256")
    for bad in ("xyz", 12, "AB" * 32):
        response = call(store_client, "POST", "/tables/TCP-1/rounds", "dealer", floor,
                        json={**ROUND, "photo_sha256": bad})
        assert_error(response, 400, "bad_request", "photo_sha256")
    listed = call(store_client, "GET", "/rounds?table=TCP-1", "auditor", floor).json
    assert listed["count"] == 0


def test_dealer_screen_logs_a_scanned_round(store_auth: Auth, floor: Floor) -> None:
    store_auth.as_role("supervisor")
    client = store_auth.client
    assert store_auth.post_form("/dealer/TCP-1/shift/open").status_code == 302
    data = (SAMPLES / "scene_4.jpg").read_bytes()
    sha = client.post("/dealer/TCP-1/scan", data=data,
                      headers={"Content-Type": "image/jpeg",
                               "X-CSRFToken": store_auth.token}).json["photo_sha256"]
    logged = store_auth.post_json("/dealer/TCP-1/rounds", {**ROUND, "photo_sha256": sha},
                                  **{"Idempotency-Key": "screen-scan-01"})
    assert logged.status_code == 201, logged.text[:300]
    page = client.get(f"/review/rounds/{logged.json['round_id']}")
    assert page.status_code == 200
    assert sha in page.text and f"/dealer/photos/{sha}" in page.text
    photo = client.get(f"/dealer/photos/{sha}")
    assert photo.status_code == 200 and photo.data == data


def test_photos_check_and_prune(store_client: FlaskClient, store_app: Flask,
                                floor: Floor) -> None:
    """``photos check`` finds every logged round's photo kept and intact, and says which is
    missing or altered; ``photos prune`` deletes only old photos no logged round names."""
    import os

    from dealer_assist.cli import main

    assert call(store_client, "POST", "/tables/TCP-1/shifts", "supervisor",
                floor).status_code == 201
    logged_sha = scan(store_client, floor, SCENE.read_bytes()).json["photo_sha256"]
    retake_sha = scan(store_client, floor, (SAMPLES / "scene_4.jpg").read_bytes()).json[
        "photo_sha256"]
    assert call(store_client, "POST", "/tables/TCP-1/rounds", "dealer", floor,
                json={**ROUND, "photo_sha256": logged_sha}).status_code == 201
    folder = Path(store_app.instance_path) / "photos"
    where = ["--photos", str(folder), "--database-url", floor.url]

    def run(*args: str) -> Any:
        return CliRunner().invoke(main, ["photos", *args, *where])

    checked = run("check")
    assert checked.exit_code == 0, checked.output
    assert checked.output.startswith(
        "OK: 1 photo of logged rounds and 0 of empty layouts seat zones were drawn on, "
        "0 missing, 0 altered; 1 kept photo belongs to no logged round")
    assert "deleted 0 " in run("prune", "--older-than", "1").output  # both just taken
    week_ago = time.time() - 8 * 24 * 3600
    for path in kept(store_app):
        os.utime(path, (week_ago, week_ago))
    dry = run("prune", "--dry-run")
    assert dry.exit_code == 0 and "would delete 1 " in dry.output
    assert len(kept(store_app)) == 2
    pruned = run("prune")
    assert pruned.exit_code == 0 and "deleted 1 " in pruned.output, pruned.output
    assert [p.stem for p in kept(store_app)] == [logged_sha]  # the logged round's stays
    refused = run("prune", "--older-than", "0.5")
    assert refused.exit_code == 2 and "at least an hour" in refused.output
    assert not list(folder.rglob(f"{retake_sha}.*"))
    # An altered, then a missing, photo of a logged round fails the check and says which.
    photo = kept(store_app)[0]
    photo.write_bytes(photo.read_bytes() + b"\0")
    altered = run("check")
    assert altered.exit_code == 1 and f"altered: {logged_sha}" in altered.output
    photo.unlink()
    missing = run("check")
    assert missing.exit_code == 1 and f"missing: {logged_sha}" in missing.output


def test_photos_commands_find_the_folder_the_server_uses(floor: Floor, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``--photos``, the folder is the instance config.py's PHOTO_DIR, as served."""
    from dealer_assist.cli import main
    from dealer_assist.services.scan import PhotoStore, check_photo

    instance, kept_at = tmp_path / "instance", tmp_path / "elsewhere"
    instance.mkdir()
    (instance / "config.py").write_text(f"PHOTO_DIR = {str(kept_at)!r}\n")
    PhotoStore(kept_at).put(check_photo(SCENE.read_bytes()))
    monkeypatch.setenv("DEALER_ASSIST_INSTANCE", str(instance))
    checked = CliRunner().invoke(main, ["photos", "check", "--database-url", floor.url])
    assert checked.exit_code == 0, checked.output
    assert "1 kept photo belongs to no logged round" in checked.output


def test_a_table_reads_with_its_enrolled_deck(store_app: Flask, store_client: FlaskClient,
                                              zoned: Floor, tmp_path: Path) -> None:
    """The table's deck on record, in the instance's decks/ (as `vision enroll-table` leaves
    it), is read with and named by its SHA-256. A deck file not on record, or not the one
    on record, or fitted on another card model, is not used, and the dealer is told why;
    other tables read without it."""
    from dealer_assist.services.scan import deck_file
    from dealer_assist.vision import enroll
    from dealer_assist.vision.loading import load
    from dealer_assist.vision.reader import Reader
    from dealer_assist.web.backend import get_backend

    get_backend(store_app).table_cache_seconds = 0  # type: ignore[attr-defined]

    def notes(res: dict[str, Any]) -> list[str]:
        return [n["reason"] for n in res["needs_confirmation"] if n["card"] is None]

    data = SCENE.read_bytes()
    plain = scan(store_client, zoned, data).json
    assert plain["deck_sha256"] is None
    reader = Reader()
    deck = enroll.enroll(reader, [(load(SCENE), TRUTH)])
    path = deck_file(Path(store_app.instance_path) / "decks", "TCP-1")
    path.parent.mkdir()
    assert enroll.save(deck, path) == path
    copied_in = scan(store_client, zoned, data).json  # a file not on record
    assert copied_in["deck_sha256"] is None and copied_in["cards"] == plain["cards"]
    assert any("the deck file TCP-1.npz is not on record for this table" in n
               for n in notes(copied_in)), notes(copied_in)
    record_deck(zoned, path)
    read = scan(store_client, zoned, data)
    assert read.status_code == 200, read.text[:300]
    assert read.json["deck_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert not any("deck" in n for n in notes(read.json))
    # read with the deck, as the command line reads it with --deck
    from dealer_assist.cli import main

    cli = CliRunner().invoke(main, ["scan", str(SCENE), "--json", "--zones",
                                    str(SAMPLES / "scene_1.json"), "--deck", str(path)])
    assert cli.exit_code == 0, cli.output
    assert read.json["cards"] == json.loads(cli.output)["cards"]
    check_honest(read.json, TRUTH)
    enroll.save({**deck, "look1_model": np.array("0" * 64)}, path)
    swapped = scan(store_client, zoned, data).json  # the file changed, the record did not
    assert swapped["deck_sha256"] is None and swapped["cards"] == plain["cards"]
    assert any("the deck file TCP-1.npz is not the table's deck on record" in n
               for n in notes(swapped)), notes(swapped)
    record_deck(zoned, path)
    stale = scan(store_client, zoned, data)
    assert stale.status_code == 200 and stale.json["deck_sha256"] is None
    assert stale.json["cards"] == plain["cards"]
    assert any("enrolled deck TCP-1.npz was not used" in n and "enroll the table's deck again"
               in n for n in notes(stale.json)), notes(stale.json)
    path.write_bytes(b"not a deck")
    record_deck(zoned, path)
    broken = scan(store_client, zoned, data)
    assert broken.status_code == 200 and broken.json["deck_sha256"] is None
    assert any("TCP-1.npz: not an enrolled deck" in n for n in notes(broken.json))
    assert str(store_app.instance_path) not in broken.text  # no server path for the dealer
    path.unlink()
    gone = scan(store_client, zoned, data).json
    assert any("the table's enrolled deck TCP-1.npz" in n and "is not on the server" in n
               for n in notes(gone)), notes(gone)


def confirmed_round(truth: dict[str, Any], photo_sha256: str) -> dict[str, Any]:
    """The round a dealer logs after confirming a scan of the sample photo ``truth``
    describes: its cards at each seat, with the photo's hash."""
    seats: dict[Any, list[str]] = {}
    for c in truth["cards"]:
        seats.setdefault(c["seat"], []).append(c["card"])
    return {"dealer": seats.pop("dealer"), "photo_sha256": photo_sha256,
            "seats": [{"seat": s, "cards": cards, "ante": 500, "play": True}
                      for s, cards in sorted(seats.items())]}


def test_the_admin_teaches_a_table_its_deck_from_its_scans(store_app: Flask, store_auth: Auth,
                                                           zoned: Floor) -> None:
    """On the tables page the admin has the reader learn a table's deck from its logged
    scanned rounds (their kept photos, labelled with the cards the dealer confirmed): the
    deck goes on record and every scan there reads with it; Remove stops that. Nothing to
    learn from is a clear 400, nothing recorded; only the admin may."""
    from dealer_assist.services.scan import deck_file
    from dealer_assist.web.backend import get_backend

    get_backend(store_app).table_cache_seconds = 0  # type: ignore[attr-defined]
    client = store_auth.client
    path = deck_file(Path(store_app.instance_path) / "decks", "TCP-1")
    store_auth.as_role("supervisor")
    assert store_auth.post_form("/admin/tables/TCP-1/deck").status_code == 403
    store_auth.as_role("admin")
    nothing = store_auth.post_form("/admin/tables/TCP-1/deck", {"last": "20"})
    assert nothing.status_code == 400, nothing.text[:300]
    assert "no logged scanned round to learn from" in nothing.text and not path.exists()
    assert store_auth.post_form("/admin/tables/TCP-1/deck", {"last": "0"}).status_code == 400
    # a scanned round, logged with the cards the dealer confirmed at each seat
    assert call(client, "POST", "/tables/TCP-1/shifts", "supervisor", zoned).status_code == 201
    sha = scan(client, zoned, SCENE.read_bytes()).json["photo_sha256"]
    logged = call(client, "POST", "/tables/TCP-1/rounds", "dealer", zoned,
                  json=confirmed_round(TRUTH, sha))
    assert logged.status_code == 201, logged.text[:300]

    learnt = store_auth.post_form("/admin/tables/TCP-1/deck", {"last": "20"})
    assert learnt.status_code == 302, learnt.text[:300]
    page = client.get("/admin/tables").text
    assert "Learnt table TCP-1&#39;s deck from 1 scanned round " in page, page[:2000]
    on_file = hashlib.sha256(path.read_bytes()).hexdigest()
    assert f">{on_file[:12]}<" in page
    read = scan(client, zoned, SCENE.read_bytes()).json
    assert read["deck_sha256"] == on_file
    check_honest(read, TRUTH)

    removed = store_auth.post_form("/admin/tables/TCP-1/deck/remove")
    assert removed.status_code == 302 and not path.exists()
    assert scan(client, zoned, SCENE.read_bytes()).json["deck_sha256"] is None
    again = store_auth.post_form("/admin/tables/TCP-1/deck/remove")
    assert again.status_code == 409 and "has no enrolled deck on record" in again.text
