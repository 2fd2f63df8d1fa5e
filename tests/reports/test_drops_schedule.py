"""The drop and the casino's shift schedule, on both engines: drops recorded and recounted
(append-only, audited, checked against their events), the reports' inventory win and hold
against sums computed independently from the rows, shifts grouped by gaming day in the
casino's time zone from its settings, and a shift that ran past its window flagged."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from sqlalchemy import exc as sa_exc

from dealer_assist import reports, services
from dealer_assist.cli import main
from dealer_assist.domain.shift_math import format_money, format_percent, hold_percent
from dealer_assist.services import drops
from dealer_assist.store.models import AuditEvent
from tests.integration.conftest import Floor, round_json, tamper

from .conftest import Built
from .test_reports import artefact, check_page_numbers, pdf_pages, words

NY = ZoneInfo("America/New_York")
OPENING = {500: 100, 2500: 40}  # 1,500.00, as the floor fixture opens T1


def _sql_inventory(engine: sa.Engine, shift_id: int) -> dict[str, int]:
    """Opening, closing, fills, credits and the drop of a shift, from the raw rows."""
    with engine.connect() as conn:
        opening, closing = conn.execute(sa.text(
            "SELECT opening_inventory, closing_inventory FROM shifts WHERE id = :s"),
            {"s": shift_id}).one()
        moves = conn.execute(sa.text(
            "SELECT kind, amount FROM shift_movements WHERE shift_id = :s"),
            {"s": shift_id}).all()
        # The drop counts is the record no other record supersedes.
        drop = conn.execute(sa.text(
            "SELECT d.amount FROM shift_drops d WHERE d.shift_id = :s AND NOT EXISTS "
            "(SELECT 1 FROM shift_drops n WHERE n.supersedes_id = d.id)"),
            {"s": shift_id}).scalars().all()

    def value(chips: Any) -> int:
        chips = json.loads(chips) if isinstance(chips, str) else chips
        return sum(int(d) * int(c) for d, c in (chips or {}).items())

    assert len(drop) <= 1
    return {"opening": value(opening), "closing": value(closing),
            "fills": sum(a for k, a in moves if k == "fill"),
            "credits": sum(a for k, a in moves if k == "credit"),
            "drop": drop[0] if drop else 0}


def _logged_win(engine: sa.Engine, shift_id: int) -> int:
    with engine.connect() as conn:
        return -int(conn.execute(sa.text(
            "SELECT COALESCE(SUM(total), 0) FROM rounds r WHERE r.shift_id = :s AND NOT "
            "r.misdeal AND NOT EXISTS (SELECT 1 FROM round_events e WHERE e.round_id = r.id)"),
            {"s": shift_id}).scalar())


def _cash_game_shift(floor: Floor) -> tuple[int, int]:
    """T1's shift where players bought 1,000.00 of chips at the table: the rack closes that
    much lighter, and the drop box holds the cash. Returns (shift id, logged win)."""
    s = floor.session()
    for i in range(6):
        services.log_round(s, table="T1", user="dan", round_json=round_json(i))
    services.record_chips(s, table="T1", user="sue", kind="fill", chips={10000: 30})
    shift = services.current_shift(s, "T1")
    assert shift is not None
    shift_id = shift.id
    win = _logged_win(floor.engine, shift_id)
    closing_value = 150_000 + 300_000 + win - 100_000
    assert closing_value > 0
    services.close_shift(s, table="T1", user="sue", closing_inventory={
        500: closing_value // 500, 1: closing_value % 500})
    s.close()
    return shift_id, win


def test_drop_reconciles_the_shift_and_a_recount_supersedes(floor: Floor,
                                                            tmp_path: Path) -> None:
    shift_id, win = _cash_game_shift(floor)
    s = floor.session()
    with pytest.raises(services.Forbidden, match="supervisor or auditor"):
        drops.record_drop(s, shift_id=shift_id, user="dan", cash=100_000)
    # The count team (an auditor) counts 900.00 cash and a 150.00 marker: 50.00 too much.
    first = drops.record_drop(s, shift_id=shift_id, user="abe", cash=90_000, markers=15_000)
    with pytest.raises(services.Conflict, match="changed meanwhile"):
        drops.record_drop(s, shift_id=shift_id, user="sue", cash=100_000, reason="x")
    with pytest.raises(services.InvalidInput, match="say why"):
        drops.record_drop(s, shift_id=shift_id, user="sue", cash=100_000, replaces=first.id)
    out = tmp_path / "first.pdf"
    fig = reports.shift_report(s, shift_id, out)
    want = _sql_inventory(floor.engine, shift_id)
    inv = want["closing"] - want["opening"] + want["credits"] - want["fills"] + want["drop"]
    assert want["drop"] == 105_000 and fig.inventory_win() == inv
    assert fig.inventory_difference() == inv - win == 5_000
    text = " ".join(pdf_pages(out))
    assert words("= Inventory win", format_money(inv)) in text
    assert "+ Drop (counted by abe" in text and format_money(105_000) in text
    assert words("Table hold % (inventory win / drop)",
                 format_percent(hold_percent(inv, 105_000))) in text
    assert "DIFFERENCE of 50.00 between the inventory win and the logged win" in text

    # The recount (a supervisor) finds 1,000.00 cash and no marker: the shift reconciles.
    second = drops.record_drop(s, shift_id=shift_id, user="sue", cash=100_000,
                               reason="the marker belonged to table T2", replaces=first.id)
    assert second.supersedes_id == first.id
    out = tmp_path / "recount.pdf"
    fig = reports.shift_report(s, shift_id, out)
    pages = pdf_pages(out)
    text = " ".join(pages)
    artefact(out, f"drop-shift-{floor.engine.dialect.name}")
    check_page_numbers(pages)
    want = _sql_inventory(floor.engine, shift_id)
    inv = want["closing"] - want["opening"] + want["credits"] - want["fills"] + want["drop"]
    assert want["drop"] == 100_000 and inv == win
    assert words("= Inventory win", format_money(inv)) in text
    assert words("Difference (inventory − logged)", "0.00") in text
    assert "Reconciled: the inventory win equals the logged win to the cent." in text
    assert f"superseded by #{second.id}" in text and "the marker belonged to table T2" in text
    assert words("Table hold % (inventory win / drop)",
                 format_percent(hold_percent(inv, 100_000))) in text

    # --drop on the command line still overrides, for that printing only.
    result = CliRunner().invoke(main, ["report", "shift", "--id", str(shift_id), "-o",
                                       str(tmp_path / "cli.pdf"), "--drop", "0",
                                       "--database-url", floor.url, "--no-verify"])
    assert result.exit_code == 1, result.output  # a difference of -1,000.00
    assert "inventory difference -1,000.00" in result.output
    assert "given for this printing; the recorded drop is 1,000.00" in " ".join(
        pdf_pages(tmp_path / "cli.pdf"))

    # Both records stay; each is an audit event whose digest is the record's.
    events = list(s.scalars(sa.select(AuditEvent).where(AuditEvent.action == "shift.drop")
                            .order_by(AuditEvent.seq)))
    assert [json.loads(e.payload)["drop_id"] for e in events] == [first.id, second.id]
    assert [e.actor for e in events] == ["abe", "sue"]
    assert events[1].digest == drops.drop_digest(second)
    assert json.loads(events[1].payload)["supersedes_drop_id"] == first.id
    assert drops.check_drops(s) == []
    assert services.verify_log(s).ok
    s.close()


def test_drops_are_append_only_and_checked_against_their_events(floor: Floor) -> None:
    shift_id, _ = _cash_game_shift(floor)
    s = floor.session()
    with pytest.raises(services.Conflict, match="still open"):
        other = services.open_shift(s, table="T1", user="sue", opening_inventory={500: 1})
        drops.record_drop(s, shift_id=other.id, user="sue", cash=1)
    first = drops.record_drop(s, shift_id=shift_id, user="sue", cash=100_000)
    s.close()
    for statement in ("UPDATE shift_drops SET cash = cash + 1",
                      "DELETE FROM shift_drops"):
        with floor.engine.connect() as conn, pytest.raises(sa_exc.DBAPIError,
                                                           match="append-only"):
            conn.exec_driver_sql(statement)
    sqlite = floor.engine.dialect.name == "sqlite"
    unlock = (["DROP TRIGGER IF EXISTS shift_drops_no_update",
               "DROP TRIGGER IF EXISTS shift_drops_no_delete"] if sqlite else
              ["DROP TRIGGER IF EXISTS shift_drops_no_change ON shift_drops"])
    # An attacker raises the counted cash behind the log's back...
    tamper(floor.engine, *unlock,
           f"UPDATE shift_drops SET cash = 110000, amount = 110000 WHERE id = {first.id}")
    s = floor.session()
    found = drops.check_drops(s)
    assert len(found) == 1 and found[0][1] == f"drop {first.id} of shift {shift_id}"
    assert "it was changed" in found[0][2]
    s.rollback()  # check_drops reads in the caller's transaction: end it to see anew
    # ...adds a record with no event, and deletes the original.
    stamp = "2030-01-01 00:00:00" if sqlite else "2030-01-01 00:00:00+00"
    tamper(floor.engine,
           f"DELETE FROM shift_drops WHERE id = {first.id}",
           f"INSERT INTO shift_drops (id, shift_id, cash, markers, amount, supersedes_id, "
           f"reason, at, by_id) VALUES (900, {shift_id}, 5, 0, 5, NULL, '', '{stamp}', 1)")
    problems = {where: what for _, where, what in drops.check_drops(s)}
    assert len(problems) == 2
    assert problems[f"drop 900 of shift {shift_id}"] == \
        "has no audit event (inserted behind the log's back)"
    gone = problems[f"drop {first.id}"]
    assert gone.startswith(f"was logged by audit event table:1 #{_seq_of(s, first.id)} ")
    assert gone.endswith("but is missing (deleted or changed)")
    s.close()


def _seq_of(session: Any, drop_id: int) -> str:
    for event in session.scalars(sa.select(AuditEvent)
                                 .where(AuditEvent.action == "shift.drop")):
        if json.loads(event.payload)["drop_id"] == drop_id:
            return str(event.seq)
    raise AssertionError(drop_id)


def _shift(s: Any, table: str, opened: datetime, closed: datetime | None,
           chips: dict[int, int]) -> int:
    shift = services.open_shift(s, table=table, user="sue", opening_inventory=chips,
                                at=opened.astimezone(UTC))
    if closed is not None:
        services.close_shift(s, table=table, user="sue", closing_inventory=chips,
                             at=closed.astimezone(UTC))
    return shift.id


def test_settings_schedule_groups_the_gaming_day_and_flags_late_shifts(
        floor: Floor, tmp_path: Path) -> None:
    s = floor.session()
    services.close_shift(s, table="T1", user="sue", closing_inventory=OPENING)
    services.create_table(s, "T2", 7)
    with pytest.raises(services.InvalidInput, match="must be one of the custom shift starts"):
        services.update_settings(s, time_zone="America/New_York", gaming_day_start="06:00",
                                 shift_starts="07:00, 15:00, 23:00")
    with pytest.raises(services.InvalidInput, match="must divide 24"):
        services.update_settings(s, shift_hours=10)
    with pytest.raises(services.InvalidInput, match="unknown time zone"):
        services.update_settings(s, time_zone="Mars/Olympus")
    services.update_settings(s, name="Schedule Casino", time_zone="America/New_York",
                             gaming_day_start="06:00", shift_hours=8, shift_starts=None)
    changed = s.scalars(sa.select(AuditEvent).where(AuditEvent.action == "settings.changed")
                        .order_by(AuditEvent.seq.desc())).first()
    assert changed is not None
    assert json.loads(changed.payload)["gaming_day_start"] == "06:00"

    def at(day: int, hour: int, minute: int = 0) -> datetime:
        return datetime(2024, 5, day, hour, minute, tzinfo=NY)

    # Gaming day 2024-05-01 runs 06:00 on the 1st to 06:00 on the 2nd, New York time.
    a = _shift(s, "T1", at(1, 6, 5), at(1, 13, 55), {2500: 10})   # 06:00-14:00, on time
    b = _shift(s, "T1", at(2, 1, 30), at(2, 7, 10), {2500: 10})   # 22:00-06:00, 1 h 10 late
    c = _shift(s, "T2", at(1, 5, 50), at(1, 6, 30), {2500: 10})   # the day before's
    _shift(s, "T2", at(2, 6, 15), None, {2500: 10})  # d: the next gaming day
    drops.record_drop(s, shift_id=a, user="abe", cash=0, markers=0)
    # Which shifts fall in the gaming day, computed here from the rows and the zone.
    with floor.engine.connect() as conn:
        opened = {i: t for i, t in conn.execute(sa.text("SELECT id, opened_at FROM shifts"))}
    start, end = datetime(2024, 5, 1, 6, tzinfo=NY), datetime(2024, 5, 2, 6, tzinfo=NY)

    def aware(value: Any) -> datetime:
        value = datetime.fromisoformat(value) if isinstance(value, str) else value
        return value if value.tzinfo else value.replace(tzinfo=UTC)

    expected = sorted(i for i, t in opened.items() if start <= aware(t) < end)
    assert expected == sorted([a, b])

    out = tmp_path / "day.pdf"
    figures = reports.day_report(s, date(2024, 5, 1), out, verify=False)
    pages = pdf_pages(out)
    text = " ".join(pages)
    artefact(out, f"schedule-day-{floor.engine.dialect.name}")
    check_page_numbers(pages)
    assert sorted(f.shift_id for f in figures.shifts) == expected
    assert figures.window_labels == {a: "06:00-14:00", b: "22:00-06:00"}
    late = {f.shift_id: f.overrun for f in figures.shifts}
    assert late == {a: None, b: timedelta(hours=1, minutes=10)}
    assert "06:00-14:00, 14:00-22:00, 22:00-06:00 (8 h shifts from 06:00)" in text
    assert "+1 h 10 min late" in text and "Ran past its window" in text
    assert "none recorded (0)" in text and "1 closed shift has no drop recorded." in text

    # The shift report says the same of shift b.
    fig = reports.shift_report(s, b, tmp_path / "b.pdf", verify=False)
    assert fig.gaming_day == date(2024, 5, 1) and fig.scheduled is not None
    text_b = " ".join(pdf_pages(tmp_path / "b.pdf"))
    assert "22:00-06:00 of gaming day 2024-05-01 (8 h shifts from 06:00)" in text_b
    assert "RAN PAST ITS WINDOW by 1 h 10 min" in text_b
    reports.shift_report(s, a, tmp_path / "a.pdf", verify=False)
    assert "RAN PAST" not in " ".join(pdf_pages(tmp_path / "a.pdf"))

    # Custom windows: 07:00, 15:00, 23:00 with the day from 07:00 moves shift a (06:05)
    # into the gaming day before, and c (05:50) too.
    services.update_settings(s, gaming_day_start="07:00", shift_starts=["23:00", "07:00",
                                                                        "15:00"])
    figures = reports.day_report(s, date(2024, 4, 30), tmp_path / "custom.pdf", verify=False)
    assert {f.shift_id: figures.window_labels[f.shift_id] for f in figures.shifts} == {
        a: "23:00-07:00", c: "23:00-07:00"}
    assert "custom shifts from 07:00, 15:00, 23:00" in " ".join(
        pdf_pages(tmp_path / "custom.pdf"))

    # The command line's options override the settings for one printing.
    runner = CliRunner()
    result = runner.invoke(main, ["report", "day", "--date", "2024-05-01", "-o",
                                  str(tmp_path / "o.pdf"), "--day-start", "00:00",
                                  "--shift-hours", "12", "--no-verify",
                                  "--database-url", floor.url])
    assert result.exit_code == 0, result.output
    assert "2 shifts at 2 tables" in result.output  # a and c: opened on the 1st after 00:00
    bad = runner.invoke(main, ["report", "day", "--date", "2024-05-01", "-o",
                               str(tmp_path / "x.pdf"), "--day-start", "05:00",
                               "--no-verify", "--database-url", floor.url])
    assert bad.exit_code == 2 and "must be one of the custom shift starts" in bad.output
    s.close()


def test_day_report_reconciles_drops_per_shift_and_in_total(built: Built,
                                                            tmp_path: Path) -> None:
    s = built.floor.session()
    drops.record_drop(s, shift_id=built.shift_id, user="abe", cash=0)
    drops.record_drop(s, shift_id=built.empty_shift_id, user="sue", cash=2_500, markers=0)
    with built.floor.engine.connect() as conn:
        opened = conn.execute(sa.text("SELECT opened_at FROM shifts WHERE id = :i"),
                              {"i": built.shift_id}).scalar()
    opened = datetime.fromisoformat(opened) if isinstance(opened, str) else opened
    opened = opened if opened.tzinfo else opened.replace(tzinfo=UTC)
    out = tmp_path / "day.pdf"
    reports.day_report(s, opened.astimezone(NY).date(), out, verify=False)
    text = " ".join(pdf_pages(out))
    artefact(out, f"drop-day-{built.floor.engine.dialect.name}")
    total = {"opening": 0, "closing": 0, "fills": 0, "credits": 0, "drop": 0, "logged": 0}
    for shift_id in (built.shift_id, built.empty_shift_id):
        row = _sql_inventory(built.floor.engine, shift_id)
        logged = _logged_win(built.floor.engine, shift_id)
        inv = row["closing"] - row["opening"] + row["credits"] - row["fills"] + row["drop"]
        for key in ("opening", "closing", "fills", "credits", "drop"):
            total[key] += row[key]
        total["logged"] += logged
        assert words(format_money(row["opening"]), format_money(row["credits"]),
                     format_money(-row["fills"]), format_money(row["closing"]),
                     format_money(row["drop"])) in text
        assert words(format_money(inv), format_percent(hold_percent(inv, row["drop"])),
                     format_money(logged)) in text
    win = total["closing"] - total["opening"] + total["credits"] - total["fills"] + total["drop"]
    assert words("Floor total", format_money(total["opening"]), format_money(total["credits"]),
                 format_money(-total["fills"]), format_money(total["closing"]),
                 format_money(total["drop"]), format_money(win),
                 format_percent(hold_percent(win, total["drop"])),
                 format_money(total["logged"]), format_money(win - total["logged"])) in text
    s.close()


def test_shift_windows_keep_their_wall_clock(tmp_path: Path) -> None:
    from dealer_assist.domain.shift_math import ShiftSchedule

    schedule = ShiftSchedule("America/New_York", time(6), 8)
    # The night the clocks go back (2024-11-03): the 22:00-06:00 shift of the 2nd runs 9 h.
    night = schedule.windows(date(2024, 11, 2))[-1]
    assert night.label == "22:00-06:00" and night.hours == 9.0
    at = datetime(2024, 11, 3, 5, 59, tzinfo=NY)
    assert schedule.day_of(at) == date(2024, 11, 2) and schedule.window_for(at) == night
    assert schedule.overrun(night.start, night.end) is None
    assert schedule.overrun(night.start, night.end + timedelta(seconds=1)) == \
        timedelta(seconds=1)
