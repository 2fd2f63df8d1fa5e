"""``report``: PDF audit reports from the hand log.

``report shift --id N -o FILE.pdf``, ``report day --date YYYY-MM-DD -o FILE.pdf`` and
``report dispute --round ID -o FILE.pdf``. The database is ``--database-url``, else
``DATABASE_URL``, else ``instance/dealer_assist.sqlite3`` (as the store commands). Exit
codes: 0 written, 1 written but the audit chain failed verification or the inventory does
not reconcile, 2 bad input (no such shift or round), 3 the database is unreachable.
"""

from __future__ import annotations

import sys
from datetime import date, time
from pathlib import Path

import click

from dealer_assist.commands.store import EXIT_FAILED, EXIT_INPUT, _fail, _session, database_option


def _cents(text: str | None, what: str) -> int | None:
    """``1234.56`` (currency units) as cents, exactly."""
    if text is None:
        return None
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:
        _fail(f"{what} must be an amount like 1250.00, not {text!r}", EXIT_INPUT)
    cents = value * 100
    if cents != cents.to_integral_value():
        _fail(f"{what} must be whole cents, not {text!r}", EXIT_INPUT)
    return int(cents)


def _clock(text: str, what: str) -> time:
    try:
        return time.fromisoformat(text)
    except ValueError:
        _fail(f"{what} must be a time like 06:00, not {text!r}", EXIT_INPUT)


def _output(path: str) -> Path:
    out = Path(path)
    if out.parent and not out.parent.exists():
        _fail(f"the folder {out.parent} does not exist", EXIT_INPUT)
    return out


def register(group: click.Group) -> None:
    @group.group()
    def report() -> None:
        """PDF audit reports: shift, daily floor, dispute sheet."""

    @report.command("shift")
    @click.option("--id", "shift_id", type=int, required=True, help="Shift id.")
    @click.option("-o", "--output", required=True, help="PDF file to write.")
    @click.option("--auditor", default=None, help="Auditor's name, printed under the line.")
    @click.option("--drop", default=None, help="Drop box count (cash and markers), e.g. "
                                               "1250.00: overrides the drop recorded for the "
                                               "shift, for this printing.")
    @click.option("--large-win", default=None,
                  help="Large-payout threshold, e.g. 5000.00 (default: casino settings).")
    @click.option("--no-verify", is_flag=True, help="Skip verifying the audit chain.")
    @database_option
    def shift(shift_id: int, output: str, auditor: str | None, drop: str | None,
              large_win: str | None, no_verify: bool, database_url: str | None) -> None:
        """Shift audit report of shift ID."""
        from dealer_assist.reports import shift_report

        out = _output(output)
        with _session(database_url) as session:
            fig = shift_report(session, shift_id, str(out), verify=not no_verify,
                               auditor=auditor, drop=_cents(drop, "--drop"),
                               large_win_threshold=_cents(large_win, "--large-win"))
        diff = fig.inventory_difference(_cents(drop, "--drop"))
        click.echo(f"{out}: shift #{fig.shift_id} at table {fig.table}, "
                   f"{fig.settled:,} rounds counted, house win "
                   f"{fig.total.house_win / 100:,.2f}"
                   + ("" if diff is None else f", inventory difference {diff / 100:,.2f}")
                   + ("" if fig.chain is None or fig.chain.verified is None
                      else f", audit chain {'verified' if fig.chain.verified else 'FAILED'}"))
        if (fig.chain is not None and fig.chain.verified is False) or diff:
            sys.exit(EXIT_FAILED)

    @report.command("day")
    @click.option("--date", "day", required=True, help="Gaming day, YYYY-MM-DD.")
    @click.option("-o", "--output", required=True, help="PDF file to write.")
    @click.option("--day-start", default=None,
                  help="When the gaming day starts, e.g. 06:00 (casino time zone; default: "
                       "casino settings).")
    @click.option("--shift-hours", type=click.Choice(["8", "12", "24"]), default=None,
                  help="Scheduled shift length (default: casino settings).")
    @click.option("--shift-starts", default=None,
                  help="Custom shift start times, e.g. 06:00,14:30,22:00 (default: casino "
                       "settings).")
    @click.option("--auditor", default=None, help="Auditor's name, printed under the line.")
    @click.option("--large-win", default=None, help="Large-payout threshold, e.g. 5000.00.")
    @click.option("--no-verify", is_flag=True, help="Skip verifying the audit chains.")
    @database_option
    def day(day: str, output: str, day_start: str | None, shift_hours: str | None,
            shift_starts: str | None, auditor: str | None, large_win: str | None,
            no_verify: bool, database_url: str | None) -> None:
        """Daily floor report: every table's shifts opened on the gaming day.

        The gaming day and its shifts are the casino's settings (Admin, Casino settings); the
        options override them for this printing."""
        from dealer_assist.reports import day_report

        try:
            when = date.fromisoformat(day)
        except ValueError:
            _fail(f"--date must be YYYY-MM-DD, not {day!r}", EXIT_INPUT)
        starts = None if not shift_starts else [
            _clock(t.strip(), "--shift-starts") for t in shift_starts.split(",") if t.strip()]
        out = _output(output)
        with _session(database_url) as session:
            figures = day_report(
                session, when, str(out),
                day_start=None if day_start is None else _clock(day_start, "--day-start"),
                shift_hours=int(shift_hours) if shift_hours else None,
                shift_starts=starts, verify=not no_verify, auditor=auditor,
                large_win_threshold=_cents(large_win, "--large-win"))
        click.echo(f"{out}: gaming day {when}, {len(figures.shifts)} shifts at "
                   f"{len(figures.by_table())} tables, {figures.total.rounds:,} rounds counted, "
                   f"house win {figures.total.house_win / 100:,.2f}")
        if figures.verified is False:
            sys.exit(EXIT_FAILED)

    @report.command("dispute")
    @click.option("--round", "round_id", type=int, required=True, help="Round id.")
    @click.option("-o", "--output", required=True, help="PDF file to write.")
    @database_option
    def dispute(round_id: int, output: str, database_url: str | None) -> None:
        """One-page dispute sheet reconstructing round ID."""
        from dealer_assist.reports import dispute_sheet

        out = _output(output)
        with _session(database_url) as session:
            dispute_sheet(session, round_id, str(out))
        click.echo(f"{out}: round id {round_id}")



__all__ = ["register"]
