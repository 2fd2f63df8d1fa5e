"""PDF reports read back: every money figure against totals computed from the rows."""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pypdf
import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from dealer_assist import reports
from dealer_assist.cli import main
from dealer_assist.domain.shift_math import format_money, format_percent, hold_percent

from .conftest import ARTIFACTS, Built, expected_totals

NAMES = {"ante_play": "Ante / Play + ante bonus", "pair_plus": "Pair Plus",
         "six_card": "Six Card Bonus", "prime": "Prime"}


def pdf_pages(path: Path) -> list[str]:
    return [" ".join(page.extract_text().split()) for page in pypdf.PdfReader(path).pages]


def words(*items: str) -> str:
    return " ".join(items)


def check_page_numbers(pages: list[str]) -> None:
    for i, text in enumerate(pages, 1):
        assert f"Page {i} of {len(pages)}" in text


def artefact(pdf: Path, name: str) -> None:
    """Pages as PNG at 60 dpi under test-artifacts/reports (to look at)."""
    if shutil.which("pdftoppm") is None:
        return
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    subprocess.run(["pdftoppm", "-r", "60", "-png", str(pdf), str(ARTIFACTS / name)],
                   check=True)


def bet_row(name: str, b: dict[str, int]) -> str:
    return words(name, f"{b['bets']:,}", format_money(b["handle"]), format_money(b["paid"]),
                 format_money(b["collected"]), format_money(b["win"]),
                 format_percent(hold_percent(b["win"], b["handle"])))


def test_shift_report_reconciles_to_the_cent(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "shift.pdf"
    with built.floor.session() as s:
        fig = reports.shift_report(s, built.shift_id, out, auditor="Alexandra Auditor")
    pages = pdf_pages(out)
    text = " ".join(pages)
    artefact(out, f"shift-{built.floor.engine.dialect.name}")
    check_page_numbers(pages)
    want = expected_totals(built.floor.engine, built.shift_id)

    # Every money figure of every bet line, and the total line, equals the rows' sums.
    for bet, b in want["bets"].items():
        assert bet_row(NAMES[bet], b) in text, bet
    assert bet_row("Total", want["total"]) in text
    assert fig.total.house_win == want["total"]["win"]
    assert fig.total.handle == want["total"]["handle"]

    # Voided, corrected (original) and misdeal rounds are out; the replacement counts once.
    c = want["counts"]
    assert (c["voided"], c["corrected"], c["misdeals"]) == (1, 1, 2)
    assert words("Rounds logged", "Settled (counted)", "Voided", "Corrected", "Misdeals",
                 "Corrections logged", "Seats played", f"{want['rounds']:,}",
                 f"{c['settled']:,}", "1", "1", "2", "1") in text
    with built.floor.engine.connect() as conn:
        excluded = conn.execute(sa.text(
            "SELECT COALESCE(SUM(total), 0) FROM rounds WHERE id IN (:a, :b)"),
            {"a": built.voided, "b": built.corrected}).scalar()
        replacement_total = conn.execute(sa.text(
            "SELECT total FROM rounds WHERE id = :r"), {"r": built.replacement}).scalar()
    assert fig.settled == c["settled"]
    assert fig.total.rounds == c["settled"]  # the replacement is among them, once
    assert excluded != 0 or replacement_total != 0
    assert "logged at the wrong table" in text and "seat 1 cards keyed wrong" in text
    assert "dealer flashed a card" in text and "card exposed during the deal" in text
    assert "Misdeal (declared)" in text and "Misdeal (at the table)" in text

    # The big round's payout is listed over the threshold with its amount.
    assert "Payouts over 5,000.00" in text
    assert format_money(528_500) in text

    # Inventory: opening, fills, credits, closing give the inventory win = logged win.
    assert words("= Inventory win", format_money(want["total"]["win"])) in text
    assert words("Difference (inventory − logged)", "0.00") in text
    assert "Reconciled: the inventory win equals the logged win to the cent." in text
    assert words("+ Credits (chips to the cage)", "50.00") in text
    assert words("− Fills (chips from the cage)", "-10,500.00") in text

    # Header: casino, table, time zone, rule set edges, dealers, supervisor.
    assert "Grand Test Casino" in text and "America/New_York" in text
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d E[SD]T to", text)
    assert "3.3730%" in text and "686689/20358520" in text and "2.3167%" in text
    assert "opened by sue; closed by sue" in text

    # The audit chain: the shift's last event hash, verified.
    with built.floor.engine.connect() as conn:
        last_hash = conn.execute(sa.text(
            "SELECT hash FROM audit_events WHERE shift_id = :s ORDER BY seq DESC LIMIT 1"),
            {"s": built.shift_id}).scalar()
    assert last_hash in text
    assert "Verified: every event of the table's chain links and hashes" in text

    # Signatures with printed names.
    assert "Alexandra Auditor" in text and "Initials are not accepted" in text


def test_empty_shift_prints_no_activity(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "empty.pdf"
    with built.floor.session() as s:
        fig = reports.shift_report(s, built.empty_shift_id, out)
    pages = pdf_pages(out)
    text = " ".join(pages)
    artefact(out, f"empty-{built.floor.engine.dialect.name}")
    check_page_numbers(pages)
    assert fig.no_activity
    assert "NO ACTIVITY" in text
    assert bet_row("Total", {"bets": 0, "handle": 0, "paid": 0, "collected": 0, "win": 0}) \
        .replace(format_percent(None), "—") in text
    assert "Reconciled" in text and "200,000.00" not in text  # 80 x 25.00 = 2,000.00
    assert words("Total", "80", "2,000.00") in text or "2,000.00" in text


def test_day_report_lists_every_table_and_totals(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "day.pdf"
    zone = ZoneInfo("America/New_York")
    with built.floor.session() as s:
        opened = s.execute(sa.text("SELECT opened_at FROM shifts WHERE id = :i"),
                           {"i": built.shift_id}).scalar()
        if isinstance(opened, str):
            opened = datetime.fromisoformat(opened)
        if opened.tzinfo is None:
            opened = opened.replace(tzinfo=UTC)
        day = opened.astimezone(zone).date()
        figures = reports.day_report(s, day, out, auditor="Alexandra Auditor")
    pages = pdf_pages(out)
    text = " ".join(pages)
    artefact(out, f"day-{built.floor.engine.dialect.name}")
    check_page_numbers(pages)
    want = expected_totals(built.floor.engine, built.shift_id)
    t = want["total"]
    assert [f.table for f in figures.shifts] == ["T1", "T2"]
    line = words(f"{want['counts']['settled']:,}", "1 / 1 / 2", format_money(t["handle"]),
                 format_money(t["paid"]), format_money(t["collected"]), format_money(t["win"]),
                 format_percent(hold_percent(t["win"], t["handle"])))
    assert line in text  # the T1 line
    assert words("Floor total", "", "").strip() in text
    assert "sue 0 no activity 0.00" in text
    for bet, b in want["bets"].items():
        assert bet_row(NAMES[bet], b) in text
    assert "Void of round" in text and "Correction of round" in text
    assert f"Payout {format_money(528_500)}" in text
    assert "Verified: every chain links and hashes" in text


def test_inventory_difference_is_flagged(floor: object, tmp_path: Path) -> None:
    from dealer_assist import services

    from .conftest import Floor
    assert isinstance(floor, Floor)
    s = floor.session()
    services.log_round(s, table="T1", user="dan", round_json={
        "dealer": ["QH", "8C", "3D"],
        "seats": [{"seat": 1, "cards": ["KS", "7H", "2C"], "ante": 1000, "play": True}]})
    # Players won 20.00; the tray should hold 150,000 - 2,000 cents but is 1 cent short.
    shift = services.close_shift(s, table="T1", user="sue",
                                 closing_inventory={500: 96, 2500: 40, 1: 0})
    out = tmp_path / "diff.pdf"
    fig = reports.shift_report(s, shift.id, out)
    text = " ".join(pdf_pages(out))
    assert fig.total.house_win == -2000
    assert fig.inventory_difference() == 0
    s2 = floor.session()
    services.open_shift(s2, table="T1", user="sue", opening_inventory={500: 100})
    services.log_round(s2, table="T1", user="dan", round_json={
        "dealer": ["QH", "8C", "3D"],
        "seats": [{"seat": 1, "cards": ["KS", "7H", "2C"], "ante": 1000, "play": True}]})
    short = services.close_shift(s2, table="T1", user="sue",
                                 closing_inventory={500: 95, 1: 499})
    out2 = tmp_path / "diff2.pdf"
    fig2 = reports.shift_report(s2, short.id, out2)
    text2 = " ".join(pdf_pages(out2))
    assert fig2.inventory_difference() == -1
    assert "DIFFERENCE of -0.01 between the inventory win and the logged win" in text2
    assert "Reconciled" in text


def test_dispute_sheet_is_one_page(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "dispute.pdf"
    with built.floor.session() as s:
        reports.dispute_sheet(s, built.corrected, out)
        reports.dispute_sheet(s, built.big, tmp_path / "big.pdf")
    pages = pdf_pages(out)
    artefact(out, f"dispute-{built.floor.engine.dialect.name}")
    assert len(pages) == 1 and "Page 1 of 1" in pages[0]
    assert "CORRECTED" in pages[0] and "seat 1 cards keyed wrong" in pages[0]
    big = " ".join(pdf_pages(tmp_path / "big.pdf"))
    assert "+5,000.00" in big and "+200.00" in big  # six card royal 1000:1, pair plus 40:1
    assert "+5,285.00" in big  # the seat's total
    assert "equal a fresh settlement" in big


def test_cli_writes_the_reports(built: Built, tmp_path: Path) -> None:
    runner = CliRunner()
    url = built.floor.url
    result = runner.invoke(main, ["report", "shift", "--id", str(built.shift_id), "-o",
                                  str(tmp_path / "a.pdf"), "--database-url", url])
    assert result.exit_code == 0, result.output
    assert "audit chain verified" in result.output
    result = runner.invoke(main, ["report", "dispute", "--round", str(built.voided), "-o",
                                  str(tmp_path / "b.pdf"), "--database-url", url])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["report", "day", "--date", "2001-01-01", "-o",
                                  str(tmp_path / "c.pdf"), "--database-url", url,
                                  "--no-verify"])
    assert result.exit_code == 0, result.output
    assert "NO ACTIVITY" in " ".join(pdf_pages(tmp_path / "c.pdf"))
    result = runner.invoke(main, ["report", "shift", "--id", "999", "-o",
                                  str(tmp_path / "d.pdf"), "--database-url", url])
    assert result.exit_code == 2 and "no shift 999" in result.output


@pytest.mark.parametrize("cents", [0, 1, -1, 99, 100, 123_456_789, -10_000_001])
def test_money_is_printed_from_cents_exactly(cents: int) -> None:
    text = format_money(cents)
    whole, _, part = text.lstrip("-").partition(".")
    assert int(whole.replace(",", "")) * 100 + int(part) == abs(cents)
    assert text.startswith("-") == (cents < 0)
