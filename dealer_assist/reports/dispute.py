"""The one-page dispute sheet: one round reconstructed as it was logged, with every seat's
cards, stakes, decision and payout, the reason for each payout, the re-settlement check,
its void or correction, and its audit trail."""

from __future__ import annotations

import os
from datetime import datetime
from typing import Any, BinaryIO

from reportlab.lib.styles import ParagraphStyle
from sqlalchemy import orm

from dealer_assist import __version__, services
from dealer_assist.domain.shift_math import format_money
from dealer_assist.services._base import read
from dealer_assist.services.reporting import casino
from dealer_assist.store.models import RuleSetVersion, utcnow

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
    p,
    signature_block,
    styles,
)

BET_LABEL = {"ante": "Ante", "play": "Play", "ante_bonus": "Ante bonus",
             "pair_plus": "Pair plus", "six_card": "Six card", "prime": "Prime"}
STATUS = {"settled": "settled (counts)", "voided": "VOIDED (left out of totals)",
          "corrected": "CORRECTED (replaced by a new round)",
          "misdeal": "MISDEAL (every stake returned)"}


def dispute_story(session: orm.Session, round_id: int, generated: datetime
                  ) -> tuple[list[Any], str, str, str]:
    st = styles()
    h2 = ParagraphStyle("h2d", parent=st.h2, spaceBefore=6, spaceAfter=2)
    detail = services.get_round(session, round_id)
    with read(session):
        info = casino(session)
        version = session.get(RuleSetVersion, detail.round.ruleset_version_id)
        label = version.label if version is not None and version.label else ""
    tz = info.time_zone
    r = detail.round
    w = content_width()
    data = detail.settlement_json
    dealer = data.get("dealer") or {}
    hand = (dealer.get("hand") or {}).get("name", "")
    qualifies = dealer.get("qualifies")
    status = STATUS.get(detail.status, detail.status)
    if r.misdeal:
        status = "MISDEAL at the table (every stake returned)"
    pairs = [
        ("Table", f"<b>{esc(detail.table)}</b>"), ("Round", f"<b>#{r.serial}</b> (id {r.id})"),
        ("Dealt", local(r.at, tz)), ("Shift", f"#{r.shift_id}"),
        ("Entered by", esc(detail.entered_by)), ("How", esc(r.source)),
        ("Status", status), ("Players' net", format_money(r.total, sign=True)),
        ("Rule set", f"version {r.ruleset_version_id} {esc(label)}"),
        ("Rule-set SHA-256", f"<font name='{st.mono.fontName}' size='6.5'>"
                             f"{detail.rules_hash}</font>"),
    ]
    if detail.replaces_round_id:
        pairs.append(("Corrects", f"round id {detail.replaces_round_id}"))
    if detail.replaced_by_round_id:
        pairs.append(("Replaced by", f"round id {detail.replaced_by_round_id}"))
    story: list[Any] = [
        p("Three Card Poker — Dispute Sheet", st.title),
        p(f"Table {esc(detail.table)} · round #{r.serial} · {local(r.at, tz, '%A %d %B %Y')}",
          st.subtitle),
        key_values(pairs, (w * 0.13, w * 0.37, w * 0.14, w * 0.36)),
        p("Dealer", h2),
        p(f"<font size='12'>{cards_text(r.dealer_cards) or '—'}</font> &nbsp; "
          f"{esc(hand)}{'' if qualifies is None else (' — qualifies' if qualifies else ' — does not qualify')}"
          + (f" · misdeal: {esc(r.misdeal_reason)}" if r.misdeal else ""), st.body),
        p("Seats", h2),
    ]
    rows: list[list[Any]] = [["Seat", "Cards", "Hand", "Plays", "Bet", "Stake", "Net", "Why",
                              "Seat net"]]
    seat_rows: list[int] = []
    for seat in data.get("seats", []):
        bets = {b["bet"]: b for b in seat.get("bets", []) if b.get("stake") or b.get("net")}
        lines: list[tuple[str, str, str, str]] = []
        ante, play = bets.pop("ante", None), bets.pop("play", None)
        if ante is not None and play is not None and ante.get("reason") == play.get("reason"):
            lines.append(("Ante / Play", f"{format_money(int(ante['stake']))} / "
                                         f"{format_money(int(play['stake']))}",
                          f"{format_money(int(ante['net']), sign=True)} / "
                          f"{format_money(int(play['net']), sign=True)}",
                          esc(ante.get("reason", ""))))
        else:
            for b in (ante, play):
                if b is not None:
                    lines.append((BET_LABEL[b["bet"]], format_money(int(b["stake"])),
                                  format_money(int(b["net"]), sign=True),
                                  esc(b.get("reason", ""))))
        for b in bets.values():
            lines.append((BET_LABEL.get(b["bet"], b["bet"]), format_money(int(b["stake"]))
                          if b.get("stake") else "—", format_money(int(b["net"]), sign=True),
                          esc(b.get("reason", ""))))
        seat_rows.append(len(rows))
        for i, (bet, stake, net, why) in enumerate(lines or [("—", "", "", "no bet")]):
            first = i == 0
            rows.append([
                str(seat["seat"]) if first else "",
                cards_text(seat.get("cards", [])) if first else "",
                esc((seat.get("hand") or {}).get("name", "")) if first else "",
                ("yes" if seat.get("decision") == "play" else "fold") if first else "",
                bet, stake, net, why,
                (f"<b>{format_money(int(seat.get('total', 0)), sign=True)}</b>"
                 + (" (capped)" if seat.get("payout_cap_applied") else "")) if first else ""])
    extra: list[tuple[Any, ...]] = [("LINEABOVE", (0, r_), (-1, r_), 0.5,
                                      styles().head.textColor) for r_ in seat_rows[1:]]
    extra += [("TOPPADDING", (0, 1), (-1, -1), 1), ("BOTTOMPADDING", (0, 1), (-1, -1), 1)]
    table = grid(rows, [w * x for x in (0.05, 0.1, 0.12, 0.05, 0.09, 0.12, 0.13, 0.24, 0.1)],
                 numeric_from=99, align_right=[5, 6, 8], zebra=False, extra=extra,
                 font_size=7.2)
    story.append(table)
    story.append(p("Stake and net in " + esc(info.currency) + "; net is what the seat won "
                   "(+) or lost (−) on that bet. Reasons are the settlement engine's, "
                   "recomputed now from the logged cards under the logged rule set.", st.small))
    story.append(p("Re-settlement", h2))
    if detail.stored_matches:
        story.append(notice("The payouts logged at the table equal a fresh settlement of the "
                            "logged cards and stakes.", alert=False, width=w))
    else:
        story.append(notice("MISMATCH: the logged payouts differ from a fresh settlement of "
                            "the logged cards: investigate (verify-log).", alert=True, width=w))
    if detail.events:
        story.append(p("Void / correction", h2))
        ev_rows: list[list[Any]] = [["Kind", "Reason", "By", "When", "Replacement"]]
        for e in detail.events:
            ev_rows.append([esc(e.kind), esc(e.reason), esc(e.actor.name), local(e.at, tz),
                            f"round id {e.replacement_round_id}"
                            if e.replacement_round_id else "—"])
        story.append(grid(ev_rows, [w * x for x in (0.12, 0.4, 0.12, 0.22, 0.14)],
                          numeric_from=99))
    story.append(p("Audit trail", h2))
    audit_rows: list[list[Any]] = [["Event", "Chain #", "By", "When", "SHA-256"]]
    for a in detail.audit:
        audit_rows.append([esc(a.action), f"{a.chain} #{a.seq}", esc(a.actor), local(a.at, tz),
                           f"<font name='{st.mono.fontName}' size='6'>{a.hash}</font>"])
    story.append(grid(audit_rows, [w * x for x in (0.13, 0.12, 0.07, 0.2, 0.48)],
                      numeric_from=99))
    story.append(p("Signatures", h2))
    story.append(signature_block([("Supervisor reviewing the dispute", ""),
                                  ("Player or witness (optional)", "")], w, compact=True))
    right = f"Table {detail.table} · Round #{r.serial}"
    return story, info.name, right, tz


def write_dispute_sheet(session: orm.Session, round_id: int, out: str | os.PathLike[str] | BinaryIO, *,
                        generated: datetime | None = None) -> None:
    generated = generated or utcnow()
    story, name, right, tz = dispute_story(session, round_id, generated)
    frame = Frame_(name, "Dispute Sheet", right,
                   f"Generated {local(generated, tz)} · dealer-assist {__version__}")
    build(out, story, frame, title=f"Dispute sheet — {right}")


__all__ = ["dispute_story", "write_dispute_sheet"]
