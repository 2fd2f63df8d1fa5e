"""The admin draws a table's seat zones on a photo of its empty layout
(``/admin/tables/<name>/zones``), on the real hand log: the zones and the photo's SHA-256 go
on the table's record and audit chain, the photo is kept (and never pruned), scans there
seat hands by the zones (at any resolution of the same frame), bad zones are a clear 400
with nothing written."""

from __future__ import annotations

import hashlib
import io
import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask

from dealer_assist.vision.reader import in_doubt
from dealer_assist.vision.synth import another_take, compose

from .conftest import Auth, Floor
from .test_scan import SCENE, kept, scan

pytest.importorskip("PIL")  # the procedural deck is drawn with Pillow
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from vision_decks import procedural_deck

PAGE = "/admin/tables/TCP-1/zones"
DECKS = {"proc:920024": procedural_deck(920024)}
#: a table dealt on a printed layout, and its empty layout photographed from the same place
TABLE = compose(DECKS, 9200248, seats=7, layout=True)
EMPTY = another_take(compose(DECKS, 9200248, seats=7, layout=True, empty=True).image, 1)
TRUTH = TABLE.truth()
#: the same table, the camera moved (a tablet held again from about the same place)
MOVED = compose(DECKS, 9200248, seats=7, layout=True, view=1)


def seated(result: dict) -> dict[str, set[str]]:
    """The cards at each seat of a scan result (or of the truth), by seat name."""
    out: dict[str, set[str]] = {}
    for c in result["cards"]:
        if c["seat"] is not None:
            out.setdefault(str(c["seat"]), set()).add(c["card"])
    return out


def post_zones(auth: Auth, zones: Any, photo: bytes | None = None, **headers: str) -> Any:
    data: dict[str, Any] = {"csrf_token": auth.token,
                            "zones": zones if isinstance(zones, str) else json.dumps(zones)}
    if photo is not None:
        data["photo"] = (io.BytesIO(photo), "layout.jpg", "image/jpeg")
    return auth.client.post(PAGE, data=data, content_type="multipart/form-data",
                            headers=headers)


def table_record(floor: Floor) -> tuple[Any, list[dict[str, Any]]]:
    """TCP-1's seat zones and the payloads of its table.changed events."""
    import sqlalchemy as sa

    from dealer_assist import services
    from dealer_assist.store import db
    from dealer_assist.store import models as m

    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as session:
            table = services.get_table(session, "TCP-1")
            events = session.scalars(sa.select(m.AuditEvent.payload).where(
                m.AuditEvent.table_id == table.id, m.AuditEvent.action == "table.changed")
                .order_by(m.AuditEvent.id))
            return table.seat_zones, [json.loads(p) for p in events]
    finally:
        engine.dispose()


def seated_right(result: dict[str, Any]) -> tuple[int, int]:
    """Of the cards read right and seated, how many sit at their true seat."""
    truth = {c["card"]: str(c["seat"]) for c in TRUTH["cards"]}
    right = [c for c in result["cards"] if c["card"] in truth and c["seat"] is not None]
    return sum(str(c["seat"]) == truth[c["card"]] for c in right), len(right)


def test_the_admin_draws_seat_zones_and_scans_seat_hands_by_them(
        store_app: Flask, store_auth: Auth, floor: Floor) -> None:
    from dealer_assist.services.photos import prune_unlogged
    from dealer_assist.services.scan import PhotoStore
    from dealer_assist.store import db
    from dealer_assist.web.backend import get_backend

    get_backend(store_app).table_cache_seconds = 0  # type: ignore[attr-defined]
    client = store_auth.client
    photo = EMPTY
    sha = hashlib.sha256(photo).hexdigest()
    store_auth.as_role("supervisor")
    assert client.get(PAGE).status_code == 403
    assert post_zones(store_auth, TRUTH["zones"], photo).status_code == 403
    store_auth.as_role("admin")
    page = client.get(PAGE)
    assert page.status_code == 200 and "No seat zones yet" in page.text
    # refused, nothing written: no photo to draw on, a seat the table lacks, a point off
    # the photo, not JSON
    no_photo = post_zones(store_auth, TRUTH["zones"])
    assert no_photo.status_code == 400 and "has no reference photo yet" in no_photo.text
    bad_seat = post_zones(store_auth, {**TRUTH["zones"], "8": TRUTH["zones"]["1"]}, photo)
    assert bad_seat.status_code == 400, bad_seat.text[:300]
    assert "zone &#34;8&#34;: the table has seats 1-7 and the dealer" in bad_seat.text
    off = post_zones(store_auth, {"3": [[10, 10], [2500, 10], [10, 500]]}, photo,
                     Accept="application/json")
    assert off.status_code == 400 and off.json["error"]["message"] == (
        "seat 3's zone: point 2 (2500, 10) lies off the 1920x1080 photo")
    assert post_zones(store_auth, "{seat 1", photo).status_code == 400
    # a photo with cards on the table is no photo of the empty layout
    dealt = post_zones(store_auth, TRUTH["zones"], SCENE.read_bytes())
    assert dealt.status_code == 400 and "the photo of the empty layout shows cards" in dealt.text
    assert table_record(floor) == (None, []) and kept(store_app) == []
    # without zones, the seats follow the table's arc: the chip tray's stripes and a chip,
    # read as cards too small to be a hand's, are flagged and take no seat
    before = scan(client, floor, TABLE.jpeg).json
    assert seated(before) == seated(TRUTH)
    assert all(h["hand"] in in_doubt(before)[1] for h in before["hands"] if h["seat"] is None)
    assert before["layout_sha256"] is None

    saved = post_zones(store_auth, TRUTH["zones"], photo)
    assert saved.status_code == 302, saved.text[:300]
    page = client.get(PAGE).text
    assert "Seat zones of table TCP-1 saved: seats 1, 2, 3, 4, 5, 6, 7 and the dealer" in page
    assert f"drawn on reference photo <span class=\"mono\" title=\"SHA-256 {sha}\">" in page
    record, events = table_record(floor)
    assert record["photo_sha256"] == sha and record["size"] == [1920, 1080]
    assert set(record["zones"]) == set(TRUTH["zones"])
    assert events[-1]["seat_zones"] == record  # on the table's audit chain
    assert client.get(f"{PAGE}/photo").data == photo
    assert f"{sha}.jpg" in [p.name for p in kept(store_app)]

    # scans seat each hand by its zone, at the photo's resolution and at half of it, and
    # compare with the empty layout: its print is not taken for cards
    full = scan(client, floor, TABLE.jpeg).json
    assert full["layout_sha256"] == sha
    assert not any("arc" in n["reason"] for n in full["needs_confirmation"]), full
    right, read = seated_right(full)
    assert read >= 18 and right == read
    small = cv2.resize(cv2.imdecode(np.frombuffer(TABLE.jpeg, np.uint8), cv2.IMREAD_COLOR),
                       (960, 540), interpolation=cv2.INTER_AREA)
    half = scan(client, floor, cv2.imencode(".jpg", small)[1].tobytes()).json
    right, read = seated_right(half)
    assert read >= 10 and right == read
    # the tablet held from another place: the layout's print tells where the zones lie
    moved = scan(client, floor, MOVED.jpeg).json
    right, read = seated_right(moved)
    assert read >= 18 and right == read
    assert not any("arc" in n["reason"] for n in moved["needs_confirmation"]), moved
    # a photo that does not match the layout is not seated by its zones, and says so
    tall = cv2.imencode(".jpg", cv2.resize(small, (540, 960)))[1].tobytes()
    notes = [n["reason"] for n in scan(client, floor, tall).json["needs_confirmation"]]
    assert ("this photo could not be matched to the table's empty layout (the camera "
            "moved?): seats follow the arc of the table") in notes

    # redrawn on the photo on record (none sent): seat 7's zone erased
    fewer = {k: v for k, v in TRUTH["zones"].items() if k != "7"}
    assert post_zones(store_auth, fewer).status_code == 302
    record, events = table_record(floor)
    assert record["photo_sha256"] == sha and set(record["zones"]) == set(fewer)
    assert len(events) == 2

    # the reference photo is named by the record: never pruned as an unlogged scan
    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as session:
            later = datetime.now(UTC) + timedelta(days=30)
            gone = prune_unlogged(session, PhotoStore(Path(store_app.instance_path) / "photos"),
                                  timedelta(hours=1), now=later)
    finally:
        engine.dispose()
    assert sha not in gone and f"{sha}.jpg" in [p.name for p in kept(store_app)]

    cleared = store_auth.post_form(f"{PAGE}/clear")
    assert cleared.status_code == 302
    assert "taken off" in client.get(PAGE).text
    assert table_record(floor)[0] == {}
    after = scan(client, floor, TABLE.jpeg).json
    assert seated(after) == seated(TRUTH) and after["layout_sha256"] is None
    assert client.get(f"{PAGE}/photo").status_code == 404


def test_zones_drawn_on_a_portrait_phone_photo(store_app: Flask, store_auth: Auth,
                                               floor: Floor) -> None:
    """The admin's photo of the empty layout from a phone, stored turned with "rotate 90" in
    its EXIF: the page shows it upright and the zones are drawn in those pixels, so they are
    checked against the upright size and scans are seated by them."""
    from dealer_assist.web.backend import get_backend
    from tests.phone_photos import portrait_phone_jpeg

    get_backend(store_app).table_cache_seconds = 0  # type: ignore[attr-defined]
    upright = cv2.imdecode(np.frombuffer(EMPTY, np.uint8), cv2.IMREAD_COLOR)
    store_auth.as_role("admin")
    saved = post_zones(store_auth, TRUTH["zones"], portrait_phone_jpeg(upright))
    assert saved.status_code == 302, saved.text[:300]
    record, _ = table_record(floor)
    assert record["size"] == [1920, 1080]
    right, read = seated_right(scan(store_auth.client, floor, TABLE.jpeg).json)
    assert read >= 18 and right == read
