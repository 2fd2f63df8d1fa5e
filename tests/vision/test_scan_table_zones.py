"""`dealer-assist scan IMAGE --table NAME` seats hands by the table's zones from the hand log."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import cv2
from click.testing import CliRunner

from dealer_assist import services
from dealer_assist.cli import main
from dealer_assist.store import db
from dealer_assist.vision.reader import Reader

from .conftest import SAMPLES

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))


def test_scan_uses_the_tables_zones_from_the_hand_log(tmp_path: Path) -> None:
    url = db.default_sqlite_url(tmp_path / "instance")
    engine = db.make_engine(url)
    db.upgrade(engine)
    truth = json.loads((SAMPLES / "scene_2.json").read_text())
    with db.session_factory(engine)() as session:
        services.create_table(session, "T1", 7)
        services.update_table(session, "T1", seat_zones=truth["zones"])
        services.create_table(session, "T2", 7)
    engine.dispose()
    image = str(SAMPLES / "scene_2.jpg")
    runner = CliRunner()
    by_file = runner.invoke(main, ["scan", image, "--json", "--zones",
                                   str(SAMPLES / "scene_2.json")])
    by_table = runner.invoke(main, ["scan", image, "--json", "--table", "T1",
                                    "--database-url", url])
    assert by_table.exit_code == 0, by_table.output
    assert json.loads(by_table.output) == json.loads(by_file.output)

    no_zones = runner.invoke(main, ["scan", image, "--json", "--table", "T2",
                                    "--database-url", url])
    assert no_zones.exit_code == 0, no_zones.output
    notes = [n["reason"] for n in json.loads(no_zones.output)["needs_confirmation"]]
    assert "table 'T2' has no seat zones drawn; seats follow the arc" in notes

    unknown = runner.invoke(main, ["scan", image, "--table", "T9", "--database-url", url])
    assert unknown.exit_code == 2
    assert "T9" in unknown.output


def test_the_admin_draws_a_tables_zones_from_the_command_line(tmp_path: Path) -> None:
    """`table zones NAME --photo EMPTY --zones FILE` records the zones on the photo of the
    empty layout (kept with the scans' photos); `scan --table` seats by them and compares
    with that photo (the layout's print is not read as cards), also at half the
    resolution; bad zones and a photo with cards on it exit 2 with nothing recorded;
    `--clear` takes the zones off."""
    from vision_decks import procedural_deck

    from dealer_assist.vision.synth import another_take, compose

    url = db.default_sqlite_url(tmp_path / "instance")
    engine = db.make_engine(url)
    db.upgrade(engine)
    with db.session_factory(engine)() as session:
        services.create_table(session, "T1", 6)
    engine.dispose()
    photos = tmp_path / "photos"
    decks = {"proc:920023": procedural_deck(920023)}
    table = compose(decks, 9200239, seats=6, layout=True)
    image, empty = tmp_path / "table.jpg", tmp_path / "empty.jpg"
    image.write_bytes(table.jpeg)
    empty.write_bytes(another_take(compose(decks, 9200239, seats=6, layout=True,
                                           empty=True).image, 5))
    truth_file = tmp_path / "truth.json"
    truth_file.write_text(json.dumps(table.truth()))
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(str(image)), (960, 540),
                                       interpolation=cv2.INTER_AREA))
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(main, [*args, "--database-url", url])

    # a 6-seat table has no seat 7; a photo with cards is no empty layout: refused,
    # nothing recorded, no photo kept
    refused = run("table", "zones", "T1", "--photo", str(empty), "--zones", str(truth_file),
                  "--photos", str(photos))
    assert refused.exit_code == 2
    assert 'zone "7": the table has seats 1-6 and the dealer' in refused.output
    six = tmp_path / "six.json"
    six.write_text(json.dumps({k: v for k, v in table.zones.items() if k != "7"}))
    dealt = run("table", "zones", "T1", "--photo", str(image), "--zones", str(six),
                "--photos", str(photos))
    assert dealt.exit_code == 2 and "the photo of the empty layout shows cards" in dealt.output
    assert run("table", "zones", "T1").output.strip() == "null" and not photos.exists()

    drawn = run("table", "zones", "T1", "--photo", str(empty), "--zones", str(six),
                "--photos", str(photos))
    assert drawn.exit_code == 0, drawn.output
    assert "seat zones of seats 1, 2, 3, 4, 5, 6 and the dealer on reference photo" in drawn.output
    shown = json.loads(run("table", "zones", "T1").output)
    assert shown["size"] == [1920, 1080] and len(list(photos.rglob("*.jpg"))) == 1

    # the server's photo folder is the instance's: `scan --table` finds the photo there
    by_file = json.loads(runner.invoke(main, ["scan", str(image), "--json", "--zones",
                                              str(six), "--empty", str(empty)]).output)
    alone = json.loads(runner.invoke(main, ["scan", str(image), "--json", "--zones",
                                            str(six)]).output)
    seats = {c.card: str(c.seat) for c in table.cards}

    def seated(result: dict[str, Any]) -> list[tuple[str, str]]:
        """Where the cards read surely sit, and their true seats."""
        return [(str(c["seat"]), seats[c["card"]]) for c in result["cards"]
                if c["card"] in seats and c["seat"] is not None and c["confidence"] >= 0.95]

    def right(result: dict[str, Any]) -> int:
        """Cards read as a true card, in its seat."""
        return sum(str(c["seat"]) == seats.get(c["card"]) for c in result["cards"])

    assert right(by_file) >= right(alone) + 5
    assert all(a == b for a, b in seated(by_file))
    env = {"DEALER_ASSIST_INSTANCE": str(tmp_path / "server")}
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "config.py").write_text(f"PHOTO_DIR = {str(photos)!r}\n")
    by_table = runner.invoke(main, ["scan", str(image), "--json", "--table", "T1",
                                    "--database-url", url], env=env)
    assert by_table.exit_code == 0, by_table.output
    assert json.loads(by_table.output)["cards"] == by_file["cards"]
    half = json.loads(runner.invoke(main, ["scan", str(small), "--json", "--table", "T1",
                                           "--database-url", url], env=env).output)
    assert right(half) >= right(alone) + 5 and all(a == b for a, b in seated(half))
    # the photo not kept where the server keeps them: read without it, and said so
    elsewhere = runner.invoke(main, ["scan", str(image), "--json", "--table", "T1",
                                     "--database-url", url],
                              env={"DEALER_ASSIST_INSTANCE": str(tmp_path / "nowhere")})
    notes = [n["reason"] for n in json.loads(elsewhere.output)["needs_confirmation"]]
    assert any("is not kept here: the layout's print may be read as cards" in n for n in notes)

    assert run("table", "zones", "T1", "--clear").output.strip() == "table T1: seat zones taken off"
    assert run("table", "zones", "T1").output.strip() == "null"


def test_hands_outside_every_zone_go_to_the_dealer(reader: Reader) -> None:
    """With the zones of two seats missing (a zone not drawn, a hand pushed off its box),
    those hands come back unseated and flagged, and every other hand keeps its seat."""
    truth = json.loads((SAMPLES / "scene_2.json").read_text())
    zones = {k: v for k, v in truth["zones"].items() if k not in {"2", "6"}}
    image = cv2.imread(str(SAMPLES / "scene_2.jpg"))
    result = reader.read(image, zones)
    unseated = [h["hand"] for h in result["hands"] if h["seat"] is None]
    assert len(unseated) == 2
    flagged = [n["hand"] for n in result["needs_confirmation"]
               if n["reason"] == "hand is outside every seat zone"]
    assert sorted(flagged) == sorted(unseated)
    seats = {c["seat"] for c in truth["cards"]} - {2, 6}
    assert {h["seat"] for h in result["hands"]} - {None} == seats


def test_zones_and_the_reader_agree_on_what_is_the_same_frame() -> None:
    """Zones are scaled to a photo of the same shape as the one they were drawn on by the
    service (without the photo) and by the reader (with it): one tolerance."""
    from dealer_assist.services.scan import SHAPE_TOLERANCE
    from dealer_assist.vision.geometry import SAME_SHAPE

    assert SHAPE_TOLERANCE == SAME_SHAPE
