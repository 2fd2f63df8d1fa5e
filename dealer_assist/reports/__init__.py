"""PDF reports (reportlab): the shift audit report, the daily floor report, and the
one-page dispute sheet of a single round.

Each ``*_report`` function reads the hand log through the services
(:mod:`dealer_assist.services.reporting` streams the rounds) and writes a PDF to a path or a
binary file. Every money figure is printed from integer cents.
"""

from __future__ import annotations

import os
from datetime import date, datetime, time
from typing import BinaryIO

from sqlalchemy import orm

from dealer_assist.services import reporting


def shift_report(session: orm.Session, shift_id: int, out: str | os.PathLike[str] | BinaryIO, *,
                 verify: bool = True, auditor: str | None = None, drop: int | None = None,
                 large_win_threshold: int | None = None,
                 generated: datetime | None = None) -> reporting.ShiftFigures:
    """Write the shift audit report of ``shift_id``; return the figures it printed.

    ``drop`` (cents) overrides the recorded drop for this printing."""
    from .shift import write_shift_report

    fig, info, edges = reporting.shift_figures(session, shift_id, verify=verify,
                                               large_win_threshold=large_win_threshold)
    write_shift_report(fig, info, edges, out, auditor=auditor, drop=drop, generated=generated)
    return fig


def day_report(session: orm.Session, day: date, out: str | os.PathLike[str] | BinaryIO, *,
               day_start: time | None = None, shift_hours: int | None = None,
               shift_starts: list[time] | None = None, verify: bool = True,
               auditor: str | None = None, large_win_threshold: int | None = None,
               generated: datetime | None = None) -> reporting.DayFigures:
    """Write the daily floor report of gaming day ``day``; return the figures it printed.

    The gaming day and its shifts are the casino's settings; ``day_start``,
    ``shift_hours`` and ``shift_starts`` override them for this printing."""
    from .day import write_day_report

    figures, info, edges = reporting.day_figures(
        session, day, day_start=day_start, shift_hours=shift_hours, shift_starts=shift_starts,
        verify=verify, large_win_threshold=large_win_threshold)
    write_day_report(figures, info, edges, out, auditor=auditor, generated=generated)
    return figures


def dispute_sheet(session: orm.Session, round_id: int, out: str | os.PathLike[str] | BinaryIO, *,
                  generated: datetime | None = None) -> None:
    """Write the one-page dispute sheet reconstructing round ``round_id``."""
    from .dispute import write_dispute_sheet

    write_dispute_sheet(session, round_id, out, generated=generated)


__all__ = ["day_report", "dispute_sheet", "shift_report"]
