"""The shift audit report: one table, one shift, for the auditor to sign."""

from __future__ import annotations

import os
from datetime import datetime
from fractions import Fraction
from typing import Any, BinaryIO

from reportlab.lib.units import inch
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, Spacer

from dealer_assist import __version__
from dealer_assist.domain.shift_math import format_money, format_percent, to_cents
from dealer_assist.services.reporting import (
    BET_NAMES,
    BETS,
    Casino,
    Edges,
    MoneyLine,
    ShiftFigures,
    deviation,
    theoretical,
    total_theoretical,
)
from dealer_assist.store.models import utcnow

from .chart import cumulative_chart
from .layout import (
    Frame_,
    build,
    cards_text,
    content_width,
    duration,
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

KIND = {"void": "Void", "correction": "Correction", "misdeal": "Misdeal (declared)",
        "misdeal_logged": "Misdeal (at the table)"}
BET_SHORT = {"ante": "ante", "play": "play", "ante_bonus": "ante bonus",
             "pair_plus": "pair plus", "six_card": "six card", "prime": "prime"}


def money(cents: int) -> str:
    return format_money(cents)


def sd_text(z: float | None) -> str:
    return "—" if z is None else f"{z:+.2f}"


def _fraction(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _pct4(x: Fraction) -> str:
    """A rate (0.0337...) as a percentage with four places."""
    return format_percent(x * 100, 4)


def _header(fig: ShiftFigures, info: Casino, edges: Edges, generated: datetime) -> list[Any]:
    st = styles()
    tz = info.time_zone
    width = content_width()
    if fig.closed_at is not None:
        window = (f"{local(fig.opened_at, tz)} to {local(fig.closed_at, tz)} "
                  f"({duration((fig.closed_at - fig.opened_at).total_seconds())})")
    else:
        window = f"{local(fig.opened_at, tz)} to — (shift still open)"
    scheduled = "—"
    if fig.scheduled is not None:
        scheduled = (f"{fig.scheduled.label} of gaming day {fig.gaming_day} "
                     f"({esc(info.schedule.describe())})")
    if fig.overrun is not None:
        scheduled += (f"<br/><font color='#b3261e'><b>RAN PAST ITS WINDOW by "
                      f"{overrun_text(fig.overrun.total_seconds())}</b>"
                      f"{'' if fig.closed_at else ' (still open)'}</font>")
    entered = ", ".join(f"{esc(n)} ({line.rounds:,} round{'' if line.rounds == 1 else 's'})"
                        for n, line in
                        sorted(fig.per_dealer.items())) or "none"
    versions = "<br/>".join(
        f"version {v}: {esc(edges[v].label)} — SHA-256 "
        f"<font name='{st.mono.fontName}' size='7'>{edges[v].content_hash[:32]}…</font>"
        for v in fig.version_ids)
    pairs = [
        ("Casino", esc(info.name)),
        ("Table", f"<b>{esc(fig.table)}</b>"),
        ("Shift", f"<b>#{fig.shift_id}</b>"),
        ("Status", "closed" if fig.closed_at else "<font color='#b3261e'>OPEN</font>"),
        ("Shift window", window),
        ("Scheduled window", scheduled),
        ("Time zone", f"{esc(tz)} (every time in this report)"),
        ("Currency", f"{esc(info.currency)}, amounts to the cent"),
        ("Dealers (roster)", esc(", ".join(fig.dealers)) or "—"),
        ("Rounds entered by", entered),
        ("Supervisor", f"opened by {esc(fig.opened_by)}; closed by "
                       f"{esc(fig.closed_by) if fig.closed_by else '—'}"),
        ("Round serials", f"#{fig.first_serial} to #{fig.last_serial}"
         if fig.first_serial is not None else "none"),
        ("Rule set", versions),
        ("Generated", f"{local(generated, tz)} by dealer-assist {__version__}"),
    ]
    w = width
    return [p("Three Card Poker — Shift Audit Report", st.title),
            p(f"Table {esc(fig.table)} · shift #{fig.shift_id} · "
              f"{local(fig.opened_at, tz, '%A %d %B %Y')}", st.subtitle),
            key_values(pairs, (w * 0.15, w * 0.37, w * 0.15, w * 0.33))]


def _edges_table(fig: ShiftFigures, edges: Edges) -> list[Any]:
    st = styles()
    rows: list[list[Any]] = [["Bet", "Pay table", "Published house edge", "exact",
                              "Edge used (as played)", "exact", "SD per unit"]]
    for v in fig.version_ids:
        edge = edges[v]
        for bet in BETS:
            if not edge.offered(bet):
                rows.append([BET_NAMES[bet], "not offered", "—", "", "—", "", "—"])
                continue
            pub = edge.published_edge(bet)
            used = edge.house_edge(bet)
            pays = edge.analysis.ante_play.pays if bet == "ante_play" else \
                getattr(edge.analysis, bet).pays
            name = BET_NAMES[bet] + (f" (v{v})" if len(fig.version_ids) > 1 else "")
            note = "" if edge.as_played[bet].exact else " *"
            rows.append([name, esc(pays) + (f", dealer {edge.rules.dealer_qualifier.text}"
                                            if bet == "ante_play" else ""),
                         _pct4(pub), _fraction(pub), _pct4(used) + note, _fraction(used),
                         f"{edge.as_played[bet].std_dev:.4f}"])
    w = content_width()
    table = grid(rows, [w * 0.19, w * 0.19, w * 0.1, w * 0.155, w * 0.1, w * 0.155, w * 0.1],
                 numeric_from=2)
    return [p("Rule set and exact house edges", st.h2), table, Spacer(1, 3), p(
        "House edge per unit staked (ante/play: per unit ante, optimal play). "
        "<i>As played</i>: the seat follows the optimal play/fold strategy and a fold "
        "forfeits pair plus and prime as the rule set says; the theoretical win uses it. "
        "Computed exactly over every deal by dealer_assist.domain.analysis.", st.small)]


def _bet_rows(line: MoneyLine, edges: Edges, *, first: str = "") -> list[list[str]]:
    rows: list[list[str]] = []
    for bet in BETS:
        b = line.bets[bet]
        theo = theoretical(b, bet, edges)
        rows.append([BET_NAMES[bet], f"{b.bets:,}", money(b.handle), money(b.paid),
                     money(b.collected), money(b.house_win), format_percent(b.hold),
                     money(to_cents(theo)), sd_text(deviation(b, bet, edges))])
    theo_total = total_theoretical(line, edges)
    rows.append(["Total", f"{line.bet_count:,}", money(line.handle), money(line.paid),
                 money(line.collected), money(line.house_win), format_percent(line.hold),
                 money(to_cents(theo_total)), "—"])
    return rows


BET_HEADER = ["Bet", "Bets", "Handle", "Paid to players", "Collected", "House win",
              "Hold %", "Theoretical win", "Actual − theo. (SD)"]


def _bets_table(fig: ShiftFigures, edges: Edges, currency: str) -> list[Any]:
    st = styles()
    w = content_width()
    widths = [w * 0.17, w * 0.06, w * 0.11, w * 0.11, w * 0.11, w * 0.11, w * 0.09, w * 0.12,
              w * 0.12]
    rows: list[list[Any]] = [BET_HEADER, *_bet_rows(fig.total, edges)]
    counts = [["Rounds logged", "Settled (counted)", "Voided", "Corrected", "Misdeals",
               "Corrections logged", "Seats played"],
              [f"{fig.logged_rounds:,}", f"{fig.settled:,}", f"{fig.voided:,}",
               f"{fig.corrected:,}", f"{fig.misdeals:,}", f"{fig.replacements:,}",
               f"{fig.total.seats:,}"]]
    return [
        p("Rounds", st.h2),
        grid(counts, [w / 7] * 7, numeric_from=0, zebra=False),
        Spacer(1, 2),
        p("Settled rounds are counted, including the corrected version of a corrected round "
          "(logged as a new round). A voided round, the original of a corrected round, and a "
          "misdeal (every stake returned) are listed below and left out of every total.",
          st.small),
        p(f"Results by bet ({esc(currency)})", st.h2),
        grid(rows, widths, total_rows=1),
        Spacer(1, 3),
        p("Handle: money staked (ante/play: ante plus play). Paid: winnings paid to players "
          "(returned stakes are not payments). Collected: losing stakes taken. House win = "
          "collected − paid. Hold % = house win / handle. Theoretical win = stakes × edge as "
          "played (ante/play: antes × edge per ante), rounded to the cent. Actual − theo. in "
          "standard deviations of the house win: SD² = v·Σs² (+ c·Σ over rounds of the cross "
          "products of the seats' antes for ante/play, whose seats share the dealer's hand); "
          "see dealer_assist.domain.shift_math. Bets on one seat are correlated, so the total "
          "has no SD.", st.small),
    ]


def _dealers_table(fig: ShiftFigures, edges: Edges) -> list[Any]:
    st = styles()
    w = content_width()
    rows: list[list[Any]] = [["Dealer (entered the rounds)", "Rounds", "Seats", "Handle",
                              "Paid", "Collected", "House win", "Hold %", "Theoretical"]]
    for name, line in sorted(fig.per_dealer.items()):
        rows.append([esc(name), f"{line.rounds:,}", f"{line.seats:,}", money(line.handle),
                     money(line.paid), money(line.collected), money(line.house_win),
                     format_percent(line.hold), money(to_cents(total_theoretical(line, edges)))])
    t = fig.total
    rows.append(["Total", f"{t.rounds:,}", f"{t.seats:,}", money(t.handle), money(t.paid),
                 money(t.collected), money(t.house_win), format_percent(t.hold),
                 money(to_cents(total_theoretical(t, edges)))])
    widths = [w * 0.19, w * 0.07, w * 0.07, w * 0.12, w * 0.11, w * 0.11, w * 0.11, w * 0.09,
              w * 0.13]
    return [p("By dealer", st.h2), grid(rows, widths, total_rows=1)]


def _notes_table(fig: ShiftFigures, tz: str) -> list[Any]:
    st = styles()
    w = content_width()
    out: list[Any] = [p("Voids, corrections and misdeals", st.h2)]
    if not fig.notes:
        return [*out, p("None this shift.", st.body)]
    rows: list[list[Any]] = [["Round", "Dealt", "Kind", "Reason", "By", "When",
                              "Players' net (excluded)", "Replaced by"]]
    for n in fig.notes:
        rep = "—"
        if n.replacement_round_id is not None:
            rep = f"#{n.replacement_serial} (id {n.replacement_round_id})"
            if n.replacement_shift_id is not None and n.replacement_shift_id != fig.shift_id:
                rep += f", shift #{n.replacement_shift_id}"
        rows.append([f"#{n.serial}", local(n.at, tz, "%H:%M:%S"), KIND.get(n.kind, n.kind),
                     esc(n.reason) or "—", esc(n.actor), local(n.event_at, tz, "%m-%d %H:%M")
                     if n.event_at else "at the table", money(n.players_net), rep])
    widths = [w * 0.07, w * 0.08, w * 0.12, w * 0.27, w * 0.09, w * 0.1, w * 0.12, w * 0.15]
    return [*out, grid(rows, widths, numeric_from=99, align_right=[0, 6])]


def _large_wins(fig: ShiftFigures, tz: str) -> list[Any]:
    st = styles()
    w = content_width()
    out: list[Any] = [p(f"Payouts over {money(fig.threshold)} (large-win threshold)", st.h2)]
    if not fig.large_wins:
        return [*out, p("None this shift.", st.body)]
    rows: list[list[Any]] = [["Round", "Time", "Seat", "Player's cards", "Dealer's cards",
                              "Paid on", "Payout", "Dealer"]]
    for win in fig.large_wins:
        paid_on = ", ".join(f"{BET_SHORT[k]} {money(v)}" for k, v in win.bets if v > 0)
        rows.append([f"#{win.serial}", local(win.at, tz, "%H:%M:%S"), str(win.seat),
                     cards_text(win.cards), cards_text(win.dealer_cards), paid_on,
                     money(win.payout), esc(win.entered_by)])
    widths = [w * 0.07, w * 0.08, w * 0.05, w * 0.13, w * 0.13, w * 0.29, w * 0.12, w * 0.13]
    return [*out, grid(rows, widths, numeric_from=99, align_right=[0, 2, 6])]


def _inventory(fig: ShiftFigures, currency: str, drop: int | None, tz: str) -> list[Any]:
    st = styles()
    w = content_width()
    out: list[Any] = [p(f"Inventory reconciliation ({esc(currency)})", st.h2)]
    denoms = sorted({int(d) for d in fig.opening_inventory} |
                    {int(d) for d in (fig.closing_inventory or {})} |
                    {int(d) for m in fig.movements for d in m.chips}, reverse=True)
    rows: list[list[Any]] = [["Chip", "Opening count", "Opening value", "Fills", "Credits",
                              "Closing count", "Closing value"]]
    for d in denoms:
        key = str(d)
        fills = sum(int(m.chips.get(key, 0)) for m in fig.movements if m.kind == "fill")
        creds = sum(int(m.chips.get(key, 0)) for m in fig.movements if m.kind == "credit")
        o = int(fig.opening_inventory.get(key, 0))
        c = None if fig.closing_inventory is None else int(fig.closing_inventory.get(key, 0))
        rows.append([money(d), f"{o:,}", money(o * d), f"{fills:,}" if fills else "—",
                     f"{creds:,}" if creds else "—", "—" if c is None else f"{c:,}",
                     "—" if c is None else money(c * d)])
    rows.append(["Total", "", money(fig.opening_value), money(fig.fills), money(fig.credits),
                 "", "—" if fig.closing_value is None else money(fig.closing_value)])
    out.append(grid(rows, [w / 7] * 7, total_rows=1))
    out.append(Spacer(1, 6))
    out += _drops(fig, tz, drop)
    drop_value = fig.drop_amount(drop)
    inv = fig.inventory_win(drop)
    logged = fig.total.house_win
    recorded = fig.recorded_drop
    if drop is not None:
        drop_label = "+ Drop (given for this printing" + (
            f"; the recorded drop is {money(recorded.amount)})" if recorded else ")")
    elif recorded is not None:
        drop_label = (f"+ Drop (counted by {esc(recorded.by)}, "
                      f"{local(recorded.at, tz, '%Y-%m-%d %H:%M')}, record #{recorded.id})")
    else:
        drop_label = "+ Drop (none recorded: taken as 0, chips bought at the cage)"
    calc: list[list[Any]] = [["Reconciliation", "Amount"],
                             ["Closing inventory", "—" if fig.closing_value is None
                              else money(fig.closing_value)],
                             ["− Opening inventory", money(-fig.opening_value)],
                             ["+ Credits (chips to the cage)", money(fig.credits)],
                             ["− Fills (chips from the cage)", money(-fig.fills)],
                             [drop_label, money(drop_value)],
                             ["= Inventory win", "—" if inv is None else money(inv)],
                             ["Table hold % (inventory win / drop)",
                              format_percent(fig.table_hold(drop))],
                             ["Logged win (settled rounds, all bets)", money(logged)],
                             ["Difference (inventory − logged)",
                              "—" if inv is None else money(inv - logged)]]
    if inv is None:
        verdict = notice("Not reconciled: the shift is not closed, so there is no closing "
                         "inventory.", alert=True, width=w)
    elif inv != logged:
        verdict = notice(f"DIFFERENCE of {money(inv - logged)} between the inventory win "
                         f"and the logged win: investigate before signing.", alert=True,
                         width=w)
    else:
        verdict = notice("Reconciled: the inventory win equals the logged win to the cent.",
                         alert=False, width=w)
    # The sum and its verdict on one page.
    out.append(KeepTogether([
        grid(calc, [w * 0.62, w * 0.2], total_rows=1, zebra=False, extra=[
            ("LINEABOVE", (0, 6), (-1, 6), 0.6, styles().head.textColor)]),
        Spacer(1, 5), verdict]))
    return out


def _drops(fig: ShiftFigures, tz: str, drop: int | None) -> list[Any]:
    """The counts of the drop box, superseded ones included (a recount never erases)."""
    w = content_width()
    if not fig.drops:
        return []
    rows: list[list[Any]] = [["Drop count", "Counted", "By", "Cash", "Markers", "Drop",
                              "Status", "Reason"]]
    for d in fig.drops:
        status = (f"superseded by #{d.superseded_by}" if d.superseded_by is not None
                  else ("recorded (overridden)" if drop is not None else "counts"))
        rows.append([f"#{d.id}", local(d.at, tz, "%m-%d %H:%M"), esc(d.by), money(d.cash),
                     money(d.markers), money(d.amount), status, esc(d.reason) or "—"])
    widths = [w * 0.09, w * 0.1, w * 0.1, w * 0.11, w * 0.11, w * 0.11, w * 0.16, w * 0.22]
    return [grid(rows, widths, numeric_from=99, align_right=[3, 4, 5]), Spacer(1, 6)]


def _chain(fig: ShiftFigures) -> list[Any]:
    st = styles()
    w = content_width()
    chain = fig.chain
    out: list[Any] = [p("Audit chain", st.h2)]
    if chain is None:
        return [*out, p("Not read.", st.body)]
    rows = [["Chain", esc(chain.chain)],
            ["Last event of this shift", "—" if chain.last_seq is None
             else f"#{chain.last_seq:,}"],
            ["Its hash (SHA-256)", f"<font name='{st.mono.fontName}'>{chain.last_hash or '—'}"
                                   f"</font>"],
            ["Chain head now", f"<font name='{st.mono.fontName}'>{chain.verify_head or '—'}"
                               f"</font>"]]
    out.append(grid([["Item", "Value"], *rows], [w * 0.25, w * 0.75], numeric_from=99,
                    zebra=False))
    out.append(Spacer(1, 5))
    if chain.verified is None:
        out.append(notice("Verification not run for this printing.", alert=True, width=w))
    elif chain.verified:
        out.append(notice(f"Verified: every event of the table's chain links and hashes, and "
                          f"every round re-settles to its logged payout. {esc(chain.verify_summary)}",
                          alert=False, width=w))
    else:
        out.append(notice(f"VERIFICATION FAILED — {esc(chain.verify_summary)}", alert=True,
                          width=w))
    return out


def shift_story(fig: ShiftFigures, info: Casino, edges: Edges, *, generated: datetime,
                auditor: str | None = None, drop: int | None = None) -> list[Flowable]:
    st = styles()
    tz = info.time_zone
    w = content_width()
    story: list[Flowable] = [*_header(fig, info, edges, generated)]
    if fig.no_activity:
        story += [Spacer(1, 10), notice("NO ACTIVITY — no round was logged during this shift.",
                                        alert=False, width=w)]
    story += _edges_table(fig, edges)
    story += _bets_table(fig, edges, info.currency)
    if fig.series:
        story += [CondPageBreak(2.9 * inch), p("Cumulative house win against theoretical",
                                               st.h2),
                  cumulative_chart(fig.series, w, 2.5 * inch, info.currency)]
    story += [CondPageBreak(1.6 * inch), *_dealers_table(fig, edges)]
    story += [CondPageBreak(1.2 * inch), *_notes_table(fig, tz)]
    story += [CondPageBreak(1.2 * inch), *_large_wins(fig, tz)]
    story += [CondPageBreak(3.6 * inch), *_inventory(fig, info.currency, drop, tz)]
    story += [CondPageBreak(1.8 * inch), *_chain(fig)]
    signers = [("Supervisor (closing the shift)", fig.closed_by or ""),
               ("Dealer / table games", ""), ("Auditor", auditor or "")]
    story += [CondPageBreak(3.4 * inch), p("Signatures", st.h2), signature_block(signers, w)]
    return story


def write_shift_report(fig: ShiftFigures, info: Casino, edges: Edges, out: str | os.PathLike[str] | BinaryIO,
                       *, auditor: str | None = None, drop: int | None = None,
                       generated: datetime | None = None) -> None:
    """Write the shift report PDF to ``out`` (a path or a binary file)."""
    generated = generated or utcnow()
    story = shift_story(fig, info, edges, generated=generated, auditor=auditor, drop=drop)
    frame = Frame_(info.name, "Shift Audit Report",
                   f"Table {fig.table} · Shift #{fig.shift_id}",
                   f"Generated {local(generated, info.time_zone)} · dealer-assist "
                   f"{__version__} · money from integer cents")
    build(out, story, frame, title=f"Shift audit report — table {fig.table}, shift "
                                   f"#{fig.shift_id}")


__all__ = ["BET_HEADER", "money", "sd_text", "shift_story", "write_shift_report"]

