"""Archiving a shift's rounds as CSV (one line per seat) or JSON (one object per round)."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.store.models import (
    AuditEvent,
    Round,
    RoundEvent,
    RuleSetVersion,
    SeatEntry,
    Shift,
    User,
    utcnow,
)

from ._base import read
from .errors import InvalidInput, NotFound
from .shifts import shift_summary

FORMATS = ("csv", "json")
CSV_COLUMNS = ("shift_id", "table", "round_id", "serial", "at", "entered_by", "source",
               "misdeal", "status", "rules_hash", "dealer_cards", "seat", "cards", "ante",
               "play", "pair_plus", "six_card", "prime", "net_ante", "net_play",
               "net_ante_bonus", "net_pair_plus", "net_six_card", "net_prime", "seat_total",
               "audit_hash")
_STATUS = {"void": "voided", "correction": "corrected", "misdeal": "misdeal"}


def _rounds_of(session: orm.Session, shift: Shift) -> list[dict[str, Any]]:
    rows = session.execute(
        sa.select(Round, User.name, RuleSetVersion.content_hash)
        .join(User, User.id == Round.entered_by_id)
        .join(RuleSetVersion, RuleSetVersion.id == Round.ruleset_version_id)
        .where(Round.shift_id == shift.id).order_by(Round.serial)).all()
    ids = [r[0].id for r in rows]
    seats: dict[int, list[SeatEntry]] = defaultdict(list)
    events: dict[int, list[RoundEvent]] = defaultdict(list)
    hashes: dict[int, str] = {}
    for start in range(0, len(ids), 5000):
        part = ids[start:start + 5000]
        for seat in session.scalars(sa.select(SeatEntry).where(SeatEntry.round_id.in_(part))
                                    .order_by(SeatEntry.round_id, SeatEntry.seat)):
            seats[seat.round_id].append(seat)
        for ev in session.scalars(sa.select(RoundEvent).where(RoundEvent.round_id.in_(part))
                                  .order_by(RoundEvent.id)):
            events[ev.round_id].append(ev)
        for round_id, event_hash in session.execute(
                sa.select(AuditEvent.round_id, AuditEvent.hash).where(
                    AuditEvent.round_id.in_(part), AuditEvent.action == "round.logged")):
            if round_id is not None:
                hashes[round_id] = event_hash
    out = []
    for rnd, entered_by, rules_hash in rows:
        evs = events[rnd.id]
        out.append({
            "round_id": rnd.id, "serial": rnd.serial, "at": rnd.at.isoformat(),
            "entered_by": entered_by, "source": rnd.source, "photo_sha256": rnd.photo_sha256,
            "misdeal": rnd.misdeal, "misdeal_reason": rnd.misdeal_reason,
            "status": _STATUS[evs[0].kind] if evs else "settled",
            "ruleset_version_id": rnd.ruleset_version_id, "rules_hash": rules_hash,
            "dealer_cards": rnd.dealer_cards.split(), "total": rnd.total,
            "audit_hash": hashes.get(rnd.id, ""),
            "seats": [{"seat": s.seat, "cards": s.cards.split(), "ante": s.ante,
                       "play": s.play, "pair_plus": s.pair_plus, "six_card": s.six_card,
                       "prime": s.prime, "net": s.net, "total": s.total}
                      for s in seats[rnd.id]],
            "events": [{"id": e.id, "kind": e.kind, "reason": e.reason,
                        "actor": e.actor.name, "at": e.at.isoformat(),
                        "replacement_round_id": e.replacement_round_id} for e in evs],
        })
    return out


def export_shift(session: orm.Session, shift_id: int, fmt: str = "json") -> str:
    """A shift's rounds as CSV text (a line per seat, header first) or JSON text
    (``{"shift": ..., "rounds": [...], "exported_at": ...}``)."""
    if fmt not in FORMATS:
        raise InvalidInput(f"export format is csv or json, not {fmt!r}")
    with read(session):
        shift = session.get(Shift, shift_id)
        if shift is None:
            raise NotFound(f"no shift {shift_id}")
        rounds = _rounds_of(session, shift)
        summary = shift_summary(shift)
    if fmt == "json":
        return json.dumps({"shift": summary, "rounds": rounds,
                           "exported_at": utcnow().isoformat()}, indent=1, ensure_ascii=False)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rnd in rounds:
        for seat in rnd["seats"]:
            writer.writerow([
                shift_id, summary["table"], rnd["round_id"], rnd["serial"], rnd["at"],
                rnd["entered_by"], rnd["source"], int(rnd["misdeal"]), rnd["status"],
                rnd["rules_hash"], " ".join(rnd["dealer_cards"]), seat["seat"],
                " ".join(seat["cards"]), seat["ante"], int(seat["play"]), seat["pair_plus"],
                seat["six_card"], seat["prime"], *seat["net"].values(), seat["total"],
                rnd["audit_hash"]])
    return buffer.getvalue()


__all__ = ["CSV_COLUMNS", "FORMATS", "export_shift"]
