"""The daily floor report: every table, one line per shift and a total, and the day's
notable events (landscape)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any, BinaryIO

from reportlab.lib.units import inch
from reportlab.platypus import CondPageBreak, Flowable, Spacer

from dealer_assist import __version__
from dealer_assist.domain.shift_math import format_money, format_percent, hold_percent, to_cents
from dealer_assist.services.reporting import (
    Casino,
    DayFigures,
    Edges,
    MoneyLine,
    ShiftFigures,
    total_theoretical,
)
from dealer_assist.store.models import utcnow

from .layout import (
    Frame_,
    build,
    cards_text,
    content_width,
    esc,
    grid,
    key_values,
    local,
    notice,
    overrun_text,
    p,
    signature_block,
    styles,
)
from .shift import BET_HEADER, KIND, _bet_rows

money = format_money

HEADER = ["Table", "Shift", "Scheduled", "Opened – closed", "Supervisor", "Rounds",
          "Void / corr. / misdeal", "Handle", "Paid to players", "Collected", "House win",
          "Hold %", "Theoretical win", "Inventory − logged"]
WIDTHS = [0.065, 0.035, 0.08, 0.075, 0.07, 0.05, 0.06, 0.09, 0.085, 0.085, 0.08, 0.065, 0.08,
          0.08]
RECON_HEADER = ["Table", "Shift", "Opening", "+ Credits", "− Fills", "Closing", "+ Drop",
                "Drop counted by", "= Inventory win", "Win / drop", "Logged win",
                "Inventory − logged"]
RECON_WIDTHS = [0.07, 0.045, 0.09, 0.08, 0.08, 0.09, 0.085, 0.105, 0.09, 0.08, 0.09, 0.095]
RED = "<font color='#b3261e'><b>%s</b></font>"


@dataclass
class _Recon:
    """Inventory sums of the closed shifts of a line (a table, the floor)."""

    opening: int = 0
    credits: int = 0
    fills: int = 0
    closing: int = 0
    drop: int = 0
    win: int = 0
    logged: int = 0
    closed: int = 0

    def add(self, fig: ShiftFigures) -> None:
        win = fig.inventory_win()
        if win is None or fig.closing_value is None:
            return
        self.closed += 1
        self.opening += fig.opening_value
        self.credits += fig.credits
        self.fills += fig.fills
        self.closing += fig.closing_value
        self.drop += fig.drop_amount()
        self.win += win
        self.logged += fig.total.house_win

    def row(self, label: list[str]) -> list[str]:
        if not self.closed:
            return [*label, *["—"] * (len(RECON_HEADER) - len(label))]
        diff = self.win - self.logged
        return [*label, money(self.opening), money(self.credits), money(-self.fills),
                money(self.closing), money(self.drop), "", money(self.win),
                format_percent(hold_percent(self.win, self.drop)), money(self.logged),
                RED % money(diff) if diff else "0.00"]


def _recon_row(fig: ShiftFigures, tz: str) -> list[str]:
    where = [esc(fig.table), f"#{fig.shift_id}"]
    if fig.closing_value is None:
        return [*where, money(fig.opening_value), money(fig.credits), money(-fig.fills),
                "open", "—", "—", "—", "—", money(fig.total.house_win), "open"]
    recorded = fig.recorded_drop
    counted = "none recorded (0)" if recorded is None else (
        f"{esc(recorded.by)} {local(recorded.at, tz, '%m-%d %H:%M')}"
        + (" (recount)" if recorded.supersedes_id is not None else ""))
    return [*where, money(fig.opening_value), money(fig.credits), money(-fig.fills),
            money(fig.closing_value), money(fig.drop_amount()), counted,
            money(fig.inventory_win() or 0), format_percent(fig.table_hold()),
            money(fig.total.house_win), _difference(fig)]


def _recon_rows(figures: DayFigures, tz: str) -> tuple[list[list[str]], list[int]]:
    rows: list[list[str]] = [RECON_HEADER]
    subtotals: list[int] = []
    floor = _Recon()
    for table, shifts in figures.by_table().items():
        line = _Recon()
        for fig in shifts:
            rows.append(_recon_row(fig, tz))
            line.add(fig)
            floor.add(fig)
        if len(shifts) > 1:
            rows.append(line.row([f"<b>{esc(table)} total</b>", ""]))
            subtotals.append(len(rows) - 1)
    rows.append(floor.row(["Floor total", ""]))
    return rows, subtotals


def _line(label: list[str], line: MoneyLine, edges: Edges, *, counts: str,
          difference: str) -> list[str]:
    return [*label, f"{line.rounds:,}", counts, money(line.handle), money(line.paid),
            money(line.collected), money(line.house_win), format_percent(line.hold),
            money(to_cents(total_theoretical(line, edges))), difference]


def _difference(fig: ShiftFigures) -> str:
    diff = fig.inventory_difference()
    if diff is None:
        return "open" if fig.closed_at is None else "—"
    if diff:
        return RED % money(diff)
    return "0.00"


def _scheduled(figures: DayFigures, fig: ShiftFigures) -> str:
    label = figures.window_labels.get(fig.shift_id, "")
    if fig.overrun is not None:
        label += "<br/>" + RED % f"+{overrun_text(fig.overrun.total_seconds())} late"
    return label


def _rows(figures: DayFigures, edges: Edges, tz: str) -> tuple[list[list[str]], list[int]]:
    rows: list[list[str]] = [HEADER]
    subtotal_rows: list[int] = []
    for table, shifts in figures.by_table().items():
        table_line = MoneyLine()
        voids = corr = mis = 0
        diffs: list[int] = []
        for fig in shifts:
            closed = local(fig.closed_at, tz, "%H:%M") if fig.closed_at else "open"
            rows.append(_line(
                [esc(table), f"#{fig.shift_id}", _scheduled(figures, fig),
                 f"{local(fig.opened_at, tz, '%H:%M')} – {closed}",
                 esc(fig.closed_by or fig.opened_by)],
                fig.total, edges, counts=f"{fig.voided} / {fig.corrected} / {fig.misdeals}",
                difference=_difference(fig)))
            if fig.no_activity:
                rows[-1][6] = "no activity"
            table_line.merge(fig.total)
            voids, corr, mis = voids + fig.voided, corr + fig.corrected, mis + fig.misdeals
            d = fig.inventory_difference()
            if d is not None:
                diffs.append(d)
        if len(shifts) > 1:
            total_diff = sum(diffs)
            rows.append(_line([f"<b>{esc(table)} total</b>", "", "", "", ""], table_line, edges,
                              counts=f"{voids} / {corr} / {mis}",
                              difference=money(total_diff) if diffs else "—"))
            subtotal_rows.append(len(rows) - 1)
    return rows, subtotal_rows


def _events(figures: DayFigures, tz: str) -> list[list[str]]:
    events: list[tuple[datetime, list[str]]] = []
    for fig in figures.shifts:
        where = [esc(fig.table), f"#{fig.shift_id}"]
        for n in fig.notes:
            detail = esc(n.reason) or "—"
            if n.replacement_serial is not None:
                detail += f" — replaced by round #{n.replacement_serial}"
            detail += f" (players' net {money(n.players_net)} left out)"
            events.append((n.event_at or n.at, [local(n.event_at or n.at, tz, "%H:%M"), *where,
                                                f"{KIND.get(n.kind, n.kind)} of round "
                                                f"#{n.serial}", detail, esc(n.actor)]))
        for w in fig.large_wins:
            events.append((w.at, [local(w.at, tz, "%H:%M"), *where,
                                  f"Payout {money(w.payout)}",
                                  f"round #{w.serial} seat {w.seat}: {cards_text(w.cards)} "
                                  f"against {cards_text(w.dealer_cards)}", esc(w.entered_by)]))
        diff = fig.inventory_difference()
        if diff:
            events.append((fig.closed_at or fig.opened_at, [
                local(fig.closed_at, tz, "%H:%M"), *where,
                "<font color='#b3261e'><b>Inventory difference</b></font>",
                f"inventory win {money(fig.inventory_win() or 0)} (drop "
                f"{money(fig.drop_amount())}) against logged win "
                f"{money(fig.total.house_win)}: {money(diff)}", esc(fig.closed_by or "")]))
        if fig.overrun is not None and fig.scheduled is not None:
            events.append((fig.scheduled.end, [
                local(fig.scheduled.end, tz, "%H:%M"), *where,
                RED % "Ran past its window",
                f"scheduled {fig.scheduled.label}; "
                + (f"closed {local(fig.closed_at, tz, '%H:%M')}, " if fig.closed_at
                   else "still open, ")
                + f"{overrun_text(fig.overrun.total_seconds())} late",
                esc(fig.closed_by or fig.opened_by)]))
        for d in fig.drops:
            if d.supersedes_id is not None:
                events.append((d.at, [local(d.at, tz, "%H:%M"), *where,
                                      f"Drop recounted: {money(d.amount)}",
                                      f"record #{d.id} supersedes #{d.supersedes_id}: "
                                      f"{esc(d.reason)}", esc(d.by)]))
        if fig.closed_at is None:
            events.append((fig.opened_at, [local(fig.opened_at, tz, "%H:%M"), *where,
                                           "Shift not closed", "no closing inventory: not "
                                           "reconciled", esc(fig.opened_by)]))
    events.sort(key=lambda e: e[0])
    return [["Time", "Table", "Shift", "Event", "Detail", "By"], *(e[1] for e in events)]


def day_story(figures: DayFigures, info: Casino, edges: Edges, *, generated: datetime,
              auditor: str | None = None) -> list[Flowable]:
    st = styles()
    tz = info.time_zone
    w = content_width(wide=True)
    tables = figures.by_table()
    closed = sum(1 for f in figures.shifts if f.closed_at is not None)
    pairs = [
        ("Casino", esc(info.name)),
        ("Gaming day", f"<b>{figures.day.isoformat()}</b> ({figures.window.hours:g} h)"),
        ("From", local(figures.window.start, tz)),
        ("To", local(figures.window.end, tz)),
        ("Scheduled shifts", ", ".join(x.label for x in figures.windows)
         + f" ({esc(figures.schedule.describe())})"),
        ("Time zone", esc(tz)),
        ("Tables", f"{len(tables):,}"),
        ("Shifts", f"{len(figures.shifts):,} ({closed:,} closed)"),
        ("Rounds counted", f"{figures.total.rounds:,}"),
        ("Generated", f"{local(generated, tz)} by dealer-assist {__version__}"),
    ]
    story: list[Flowable] = [
        p("Three Card Poker — Daily Floor Report", st.title),
        p(f"Gaming day {figures.day:%A %d %B %Y} · shifts opened during the day · "
          f"amounts in {esc(info.currency)}", st.subtitle),
        key_values(pairs, (w * 0.12, w * 0.38, w * 0.12, w * 0.38)),
    ]
    if not figures.shifts:
        story += [Spacer(1, 12), notice("NO ACTIVITY — no shift was opened on this gaming day.",
                                        alert=False, width=w)]
    rows, subtotals = _rows(figures, edges, tz)
    t = figures.total
    counts = (f"{sum(f.voided for f in figures.shifts)} / "
              f"{sum(f.corrected for f in figures.shifts)} / "
              f"{sum(f.misdeals for f in figures.shifts)}")
    diffs = [d for f in figures.shifts if (d := f.inventory_difference()) is not None]
    rows.append(_line(["Floor total", "", "", "", ""], t, edges, counts=counts,
                      difference=money(sum(diffs)) if diffs else "—"))
    extra = [("LINEABOVE", (0, r), (-1, r), 0.4, styles().head.textColor) for r in subtotals]
    story += [p("Tables and shifts", st.h2),
              grid(rows, [w * x for x in WIDTHS], numeric_from=5, total_rows=1, extra=extra),
              Spacer(1, 3),
              p("Money columns as on the shift report: voided rounds, originals of corrected "
                "rounds and misdeals are left out; a correction counts once. Scheduled: the "
                "shift's window on the casino's clock; a shift that ran past it is marked "
                "late. Inventory − logged: see below; non-zero in red.", st.small)]
    recon, recon_subtotals = _recon_rows(figures, tz)
    missing = sum(1 for f in figures.shifts if f.closed_at and f.recorded_drop is None)
    story += [CondPageBreak(1.6 * inch), p("Drop and inventory", st.h2),
              grid(recon, [w * x for x in RECON_WIDTHS], numeric_from=2, total_rows=1,
                   align_right=[1, 2, 3, 4, 5, 6, 8, 9, 10, 11],
                   extra=[("LINEABOVE", (0, r), (-1, r), 0.4, styles().head.textColor)
                          for r in recon_subtotals]),
              Spacer(1, 3),
              p("Inventory win = closing − opening + credits − fills + drop; drop: the cash "
                "and markers counted from the drop box (the latest count of the shift; none "
                "recorded: taken as 0). Win / drop: the table hold. Totals over closed shifts."
                + (f" <b>{missing} closed shift{'s have' if missing != 1 else ' has'} no drop "
                   f"recorded.</b>" if missing else ""), st.small)]
    bet_rows: list[list[Any]] = [BET_HEADER, *_bet_rows(t, edges)]
    bw = [w * x for x in (0.18, 0.07, 0.11, 0.11, 0.11, 0.11, 0.07, 0.12, 0.12)]  # landscape
    story += [CondPageBreak(1.8 * inch), p("Floor by bet", st.h2), grid(bet_rows, bw,
                                                                         total_rows=1)]
    events = _events(figures, tz)
    story += [CondPageBreak(1.4 * inch), p("Notable events", st.h2)]
    if len(events) == 1:
        story.append(p("None: no void, correction, misdeal, large payout, open or late "
                       "shift, drop recount or inventory difference on this gaming day.",
                       st.body))
    else:
        story.append(grid(events, [w * x for x in (0.06, 0.08, 0.05, 0.2, 0.5, 0.11)],
                          numeric_from=99))
    story += [Spacer(1, 6), p("Audit chains", st.h2)]
    if figures.verified is None:
        story.append(notice("Verification not run for this printing.", alert=True, width=w))
    elif figures.verified:
        story.append(notice(f"Verified: every chain links and hashes, every round re-settles "
                            f"to its logged payout. {esc(figures.verify_summary)}",
                            alert=False, width=w))
    else:
        story.append(notice(f"VERIFICATION FAILED — {esc(figures.verify_summary)}",
                            alert=True, width=w))
    if figures.chains:
        st_mono = styles().mono.fontName
        chain_rows: list[list[Any]] = [["Chain", "Events", "Chain head (SHA-256)", "Result"]]
        for c in figures.chains:
            chain_rows.append([esc(c.chain), f"{c.last_seq or 0:,}",
                               f"<font name='{st_mono}' size='6.5'>{c.verify_head}</font>",
                               "OK" if c.verified else
                               f"<font color='#b3261e'><b>{esc(c.verify_summary)}</b></font>"])
        story += [Spacer(1, 4), grid(chain_rows, [w * x for x in (0.16, 0.07, 0.5, 0.27)],
                                     numeric_from=99, align_right=[1])]
    story += [CondPageBreak(3.2 * inch), p("Signatures", st.h2),
              signature_block([("Shift manager / pit manager", ""),
                               ("Auditor", auditor or "")], w * 0.8)]
    return story


def write_day_report(figures: DayFigures, info: Casino, edges: Edges, out: str | os.PathLike[str] | BinaryIO, *,
                     auditor: str | None = None, generated: datetime | None = None) -> None:
    generated = generated or utcnow()
    story = day_story(figures, info, edges, generated=generated, auditor=auditor)
    frame = Frame_(info.name, "Daily Floor Report", f"Gaming day {figures.day.isoformat()}",
                   f"Generated {local(generated, info.time_zone)} · dealer-assist "
                   f"{__version__} · money from integer cents")
    build(out, story, frame, wide=True, title=f"Daily floor report — {figures.day}")


__all__ = ["day_story", "write_day_report"]

