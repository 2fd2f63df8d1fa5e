"""``dealer-assist vision enroll-table``: a table's deck learnt from its own logged scans."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from dealer_assist import services
from dealer_assist.cli import main
from dealer_assist.services.deck_photos import confirmed_scans
from dealer_assist.services.scan import PhotoStore, check_photo
from dealer_assist.vision import enroll
from dealer_assist.vision.faces import CARD_DECK_ROOT, HELD_OUT_DECKS, load_deck
from dealer_assist.vision.synth import Scene, compose

from .conftest import Floor


def _round(scene: Scene) -> dict[str, Any]:
    """The round a dealer logs after confirming the scan: the cards at each seat."""
    seats: dict[Any, list[str]] = {}
    for c in scene.cards:
        seats.setdefault(c.seat, []).append(c.card)
    return {"dealer": seats.pop("dealer"),
            "seats": [{"seat": s, "cards": cards, "ante": 500, "play": True}
                      for s, cards in sorted(seats.items())]}


@pytest.fixture
def scans(floor: Floor, tmp_path: Path) -> tuple[list[Scene], PhotoStore]:
    """Table T2 with four scanned rounds logged; the second is voided afterwards, the
    third's photo is lost. (No seat zones: each generated photo has its own layout, so the
    reader seats the hands along the arc, as it does at a table with none drawn.)"""
    if shutil.which("rsvg-convert") is None or not CARD_DECK_ROOT.is_dir():
        pytest.skip("needs Debian librsvg2-bin and kdegames-card-data-kf5 (scripts/bootstrap)")
    decks = {HELD_OUT_DECKS[2]: load_deck(HELD_OUT_DECKS[2])}
    scenes = [compose(decks, 771_000 + i, seats=7) for i in range(4)]
    store = PhotoStore(tmp_path / "photos")
    with floor.session() as session:
        services.create_table(session, "T2", 7)
        services.open_shift(session, table="T2", user="sue", opening_inventory={500: 100})
        logged = []
        for scene in scenes:
            sha = store.put(check_photo(scene.jpeg))
            logged.append(services.log_round(session, table="T2", round_json=_round(scene),
                                             user="dan", source="scan", photo_sha256=sha))
        services.void_round(session, logged[1].round_id, user="sue", reason="wrong table")
    lost = store.find(check_photo(scenes[2].jpeg).sha256)
    assert lost is not None
    lost[0].unlink()
    return scenes, store


def test_standing_scans_with_their_photos_are_listed(floor: Floor,
                                                      scans: tuple[list[Scene], PhotoStore]
                                                      ) -> None:
    scenes, store = scans
    with floor.session() as session:
        found = confirmed_scans(session, store, "T2")
    assert [s.serial for s in found.scans] == [4, 1]  # newest first; 2 voided
    assert found.missing_photos == [3]
    assert found.zones is None
    first = found.scans[1]
    assert first.cards["dealer"] == _round(scenes[0])["dealer"]
    assert first.cards["3"] == _round(scenes[0])["seats"][2]["cards"]
    with floor.session() as session:
        assert [s.serial for s in confirmed_scans(session, store, "T2", last=1).scans] == [4]
        with pytest.raises(services.NotFound, match="no table named 'T9'"):
            confirmed_scans(session, store, "T9")
        # the table's seat zones, once drawn, seat the hands as a scan there does
        services.update_table(session, "T2", seat_zones=scenes[0].zones)
        zones = confirmed_scans(session, store, "T2").zones
        assert zones is not None and set(zones) == set(scenes[0].zones)


def test_enroll_table_from_its_logged_scans(floor: Floor, tmp_path: Path,
                                            scans: tuple[list[Scene], PhotoStore]) -> None:
    """The deck is learnt from the standing rounds' photos and confirmed cards, and a scan
    with it uses it; what was left out is said."""
    _, store = scans
    out = tmp_path / "t2.npz"
    args = ["--photos", str(store.root), "--database-url", floor.url]
    res = CliRunner().invoke(main, ["vision", "enroll-table", str(out), "--table", "T2", *args])
    assert res.exit_code == 0, res.output
    assert "from 2 scanned rounds" in res.output, res.output
    assert "1 scanned round left out, their photos no longer kept (serials 3)" in res.output
    labelled, confirmed = (int(v) for v in
                           res.output.split("(")[1].split(" confirmed")[0].split(" of their "))
    assert confirmed == 48 and 40 <= labelled <= 48, res.output
    deck = enroll.load(out)
    assert {"rw", "look0_rw", "look1_rw"} <= set(deck)
    assert np.abs(deck["look0_rw"]).max() > 0  # fitted, not left at zero
    # no scanned round at T1; an unknown table
    res = CliRunner().invoke(main, ["vision", "enroll-table", str(out), "--table", "T1", *args])
    assert res.exit_code == 2 and "no logged scanned round to learn from" in res.output
    res = CliRunner().invoke(main, ["vision", "enroll-table", str(out), "--table", "T9", *args])
    assert res.exit_code == 2 and "no table named 'T9'" in res.output
    assert "Traceback" not in res.output


def test_without_out_the_deck_goes_where_the_server_reads_it(
        floor: Floor, tmp_path: Path, scans: tuple[list[Scene], PhotoStore],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`vision enroll-table --table T2` alone leaves the deck in the instance's decks/, and
    `scan --table T2` then reads with it as with `--deck`."""
    scenes, store = scans
    instance = tmp_path / "instance"
    monkeypatch.setenv("DEALER_ASSIST_INSTANCE", str(instance))
    db = ["--database-url", floor.url]
    res = CliRunner().invoke(main, ["vision", "enroll-table", "--table", "T2", "--last", "1",
                                    "--photos", str(store.root), *db])
    assert res.exit_code == 0, res.output
    deck = instance / "decks" / "T2.npz"
    assert f"into {deck}" in res.output and deck.is_file()
    photo = tmp_path / "p.jpg"
    photo.write_bytes(scenes[3].jpeg)
    by_table = CliRunner().invoke(main, ["scan", str(photo), "--json", "--table", "T2", *db])
    by_file = CliRunner().invoke(main, ["scan", str(photo), "--json", "--table", "T2", *db,
                                        "--deck", str(deck)])
    plain = CliRunner().invoke(main, ["scan", str(photo), "--json", "--table", "T1", *db])
    assert by_table.exit_code == by_file.exit_code == plain.exit_code == 0, by_table.output
    assert by_table.output == by_file.output
    cards = [c["confidence"] for c in json.loads(by_table.output)["cards"]]
    assert cards != [c["confidence"] for c in json.loads(plain.output)["cards"]]


def test_a_tables_deck_is_on_record(floor: Floor, tmp_path: Path,
                                    scans: tuple[list[Scene], PhotoStore],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Enrolling into the server's place puts the deck on record: the table names its
    SHA-256 and the table's chain has a deck.enrolled event saying who and from which
    rounds. A deck file put there by hand is not read with until `vision deck install`
    records it; `vision deck remove` records the removal and takes the file away. The log
    still verifies."""
    import hashlib

    import sqlalchemy as sa

    from dealer_assist.store.models import AuditEvent, table_chain

    scenes, store = scans
    instance = tmp_path / "instance"
    monkeypatch.setenv("DEALER_ASSIST_INSTANCE", str(instance))
    db = ["--database-url", floor.url]
    res = CliRunner().invoke(main, ["vision", "enroll-table", "--table", "T2",
                                    "--photos", str(store.root), *db])
    assert res.exit_code == 0, res.output
    deck = instance / "decks" / "T2.npz"
    enrolled = hashlib.sha256(deck.read_bytes()).hexdigest()

    def record() -> tuple[str | None, list[tuple[str, str, dict[str, Any]]]]:
        with floor.session() as session:
            table = services.get_table(session, "T2")
            events = session.execute(
                sa.select(AuditEvent.action, AuditEvent.actor, AuditEvent.payload)
                .where(AuditEvent.chain == table_chain(table.id),
                       AuditEvent.action.like("deck.%")).order_by(AuditEvent.seq)).all()
            return table.deck_sha256, [(a, who, json.loads(p)) for a, who, p in events]

    on_record, events = record()
    assert on_record == enrolled
    [(action, actor, payload)] = events
    assert action == "deck.enrolled" and actor.startswith("system:")
    assert payload["deck_sha256"] == enrolled and payload["replaces"] is None
    assert payload["source"] == "scans" and payload["rounds"] == [1, 4]
    assert payload["cards_confirmed"] == 48

    photo = tmp_path / "p.jpg"
    photo.write_bytes(scenes[3].jpeg)

    def scan() -> dict[str, Any]:
        out = CliRunner().invoke(main, ["scan", str(photo), "--json", "--table", "T2", *db])
        assert out.exit_code == 0, out.output
        result: dict[str, Any] = json.loads(out.output)
        return result

    with_deck = scan()
    listed = CliRunner().invoke(main, ["vision", "deck", "list", *db])
    assert listed.exit_code == 0, listed.output
    row = next(line for line in listed.output.splitlines() if " T2 " in line)
    assert enrolled[:12] in row and "2 scanned rounds" in row and "read with" in row, row
    assert "system:" in row
    # another deck copied over the table's by hand is not read with
    other = tmp_path / "other.npz"
    res = CliRunner().invoke(main, ["vision", "enroll-table", str(other), "--table", "T2",
                                    "--last", "1", "--photos", str(store.root), *db])
    assert res.exit_code == 0, res.output
    shutil.copyfile(other, deck)
    copied = scan()
    listed = CliRunner().invoke(main, ["vision", "deck", "list", "--table", "T2", *db])
    assert "differs (" in listed.output, listed.output
    assert any("the deck file T2.npz is not the table's deck on record" in n["reason"]
               for n in copied["needs_confirmation"]), copied["needs_confirmation"]
    plain = CliRunner().invoke(main, ["scan", str(photo), "--json", *db])
    assert copied["cards"] == json.loads(plain.output)["cards"]
    assert record()[0] == enrolled  # writing OUT records nothing
    # until it is installed
    res = CliRunner().invoke(main, ["vision", "deck", "install", str(other), "--table", "T2",
                                    *db])
    assert res.exit_code == 0, res.output
    installed = hashlib.sha256(other.read_bytes()).hexdigest()
    assert record()[0] == installed and deck.read_bytes() == other.read_bytes()
    assert record()[1][-1][2] | {"deck_sha256": None} == {
        "source": "file", "file": "other.npz", "deck_sha256": None, "replaces": enrolled}
    now = scan()
    assert not any("deck" in n["reason"] for n in now["needs_confirmation"] if not n["card"])
    assert now["cards"] != with_deck["cards"] or now != copied
    # not a deck, or one for another card model: refused, nothing recorded
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK not really")
    res = CliRunner().invoke(main, ["vision", "deck", "install", str(bad), "--table", "T2", *db])
    assert res.exit_code == 2 and "not an enrolled deck" in res.output, res.output
    stale = {**enroll.load(other), "model": np.array("0" * 64)}
    enroll.save(stale, bad)
    res = CliRunner().invoke(main, ["vision", "deck", "install", str(bad), "--table", "T2", *db])
    assert res.exit_code == 2 and "another card model" in res.output, res.output
    res = CliRunner().invoke(main, ["vision", "deck", "install", str(other), "--table", "T9",
                                    *db])
    assert res.exit_code == 2 and "no table named 'T9'" in res.output, res.output
    assert record()[0] == installed and len(record()[1]) == 2
    # removed: on record, the file gone, and removing again is refused
    res = CliRunner().invoke(main, ["vision", "deck", "remove", "--table", "T2", *db])
    assert res.exit_code == 0 and not deck.exists(), res.output
    on_record, events = record()
    assert on_record is None and events[-1][0] == "deck.removed"
    assert events[-1][2] == {"deck_sha256": None, "replaces": installed}
    res = CliRunner().invoke(main, ["vision", "deck", "remove", "--table", "T2", *db])
    assert res.exit_code == 2 and "has no enrolled deck on record" in res.output, res.output
    listed = CliRunner().invoke(main, ["vision", "deck", "list", "--table", "T2", *db])
    row = next(line for line in listed.output.splitlines() if " T2 " in line)
    assert " none " in row and installed[:12] not in row, row
    assert not any("deck" in n["reason"] for n in scan()["needs_confirmation"] if not n["card"])
    with floor.session() as session:
        assert services.verify_log(session).ok
