"""The admin draws a table's seat zones in Chromium at tablet size: takes the photo of the
empty layout, picks each seat and taps the corners of its zone, saves; the zones are on
record and the table's scans seat every hand by them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import LiveServer, shot, sign_in

pytest.importorskip("PIL")  # the procedural deck is drawn with Pillow
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from vision_decks import procedural_deck


def tap_at(page: Any, point: list[float], size: tuple[int, int]) -> None:
    """Tap the photo where ``point`` (in the photo's pixels) shows."""
    overlay = page.locator("[data-testid=zones-overlay]")
    box = overlay.bounding_box()
    x = min(max(point[0], 2.0), size[0] - 2.0)
    y = min(max(point[1], 2.0), size[1] - 2.0)
    overlay.click(position={"x": x * box["width"] / size[0], "y": y * box["height"] / size[1]})


def test_the_admin_draws_the_seat_zones_on_the_empty_layout(
        page: Any, live_server: LiveServer, tmp_path: Path) -> None:
    from dealer_assist.vision.synth import compose

    decks = {"proc:920024": procedural_deck(920024)}
    table = compose(decks, 9200248, seats=7, layout=True)
    empty = compose(decks, 9200248, seats=7, layout=True, empty=True)
    layout = tmp_path / "empty-layout.jpg"
    layout.write_bytes(empty.jpeg)
    size = (1920, 1080)

    sign_in(page, live_server, "ada")
    page.goto(f"{live_server.url}/admin/tables")
    expect(page.locator("[data-testid=zones-TCP-1]")).to_have_text("Draw")
    shot(page, "zones-00-tables")
    page.click("[data-testid=zones-TCP-1]")
    expect(page.locator("[data-testid=zones-on-record]")).to_contain_text("No seat zones yet")
    page.set_input_files("[data-testid=zones-file]", str(layout))
    # the browser reads and decodes the photo first: on a loaded machine (CI's other
    # worker reading photos) that once took over the default 5 seconds, and on 2026-12-08
    # over 15 (7 alone)
    expect(page.locator("[data-testid=zones-status]")).to_have_text(
        "Seat 1: 0 points (click its corners on the photo)", timeout=40_000)
    # a zone of two points is refused before anything is sent
    page.click("[data-testid=zone-pick-3]")
    tap_at(page, [100, 100], size)
    tap_at(page, [300, 100], size)
    page.click("[data-testid=zones-save]")
    expect(page.locator("[data-testid=zones-error]")).to_have_text(
        "Seat 3 has 2 points: click at least 3 corners, or erase it")
    page.click("[data-testid=zones-erase]")

    for key, polygon in table.zones.items():
        page.click(f"[data-testid=zone-pick-{key}]")
        for point in polygon:
            tap_at(page, point, size)
    expect(page.locator("[data-testid=zones-status]")).to_have_text("Dealer: 4 points")
    shot(page, "zones-01-drawn")
    page.click("[data-testid=zones-save]")
    expect(page.locator(".flashes")).to_contain_text(
        "Seat zones of table TCP-1 saved: seats 1, 2, 3, 4, 5, 6, 7 and the dealer")
    expect(page.locator("[data-testid=zones-overlay] g.zone")).to_have_count(8)
    shot(page, "zones-02-saved")

    # the dealer's scan at the table seats each hand by the zones drawn
    client = live_server.app.test_client()
    scanned = client.post("/api/v1/tables/TCP-1/scan", data=table.jpeg, headers={
        "Authorization": f"Bearer {live_server.floor.tokens['dealer']}",
        "Content-Type": "image/jpeg"})
    assert scanned.status_code == 200, scanned.text
    result = scanned.json
    seats = {c.card: str(c.seat) for c in table.cards}
    seated = [c for c in result["cards"] if c["seat"] is not None]
    placed = [(str(c["seat"]), seats[c["card"]]) for c in seated if c["card"] in seats]
    assert len(placed) >= 18 and all(a == b for a, b in placed), placed
    # what lies outside every zone (chips and the tray read as cards) is unseated and goes
    # to the dealer as such; no seat is guessed along the arc
    outside = {n["hand"] for n in result["needs_confirmation"]
               if n["reason"] == "hand is outside every seat zone"}
    assert outside == {c["hand"] for c in result["cards"] if c["seat"] is None}
    assert not any("arc" in n["reason"] for n in result["needs_confirmation"])
