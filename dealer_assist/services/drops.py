"""The drop: the cash and markers a closed shift's drop box held, as the count found them.

The supervisor or the count team (role supervisor or auditor) records it once the shift is
closed. Records are append-only: a recount appends a record that supersedes the current one
(with a reason), never updates it, so every count stays readable. Each record is an
audit event ``shift.drop`` on the table's chain whose ``digest`` is :func:`drop_digest` of
the record and whose payload names it (``drop_id``); :func:`check_drops` compares the two
for ``verify-log``.

The drop enters the inventory win (closing - opening + credits - fills + drop) and the
table hold (win / drop): :mod:`dealer_assist.domain.shift_math`.
"""

from __future__ import annotations

import json
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.store.audit import append_event, lock_head, record_digest
from dealer_assist.store.models import AuditEvent, Shift, ShiftDrop, table_chain, utcnow

from ._base import UserRef, acting_user, read, write
from .errors import Conflict, InvalidInput, NotFound

#: Who may record a drop: the pit supervisor, or the count team (auditors).
DROP_ROLES = ("supervisor", "auditor")
#: The audit action of a drop record (a first count and a recount alike).
DROP_ACTION = "shift.drop"
#: Largest drop accepted, in cents (a typo guard far above any table's box).
MAX_DROP = 10**12


def drop_digest(drop: ShiftDrop) -> str:
    """SHA-256 of the record as its audit event holds it (:func:`record_digest` "drop")."""
    return record_digest("drop", {
        "id": drop.id, "shift_id": drop.shift_id, "cash": drop.cash, "markers": drop.markers,
        "amount": drop.amount, "supersedes_id": drop.supersedes_id, "reason": drop.reason,
        "at": drop.at, "by_id": drop.by_id})


def _amount(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DROP:
        raise InvalidInput(f"{what}: an amount in cents from 0 to {MAX_DROP:,}, not {value!r}")
    return value


def _history(session: orm.Session, shift_id: int) -> list[ShiftDrop]:
    return list(session.scalars(sa.select(ShiftDrop).where(ShiftDrop.shift_id == shift_id)
                                .order_by(ShiftDrop.id).options(orm.joinedload(ShiftDrop.by))))


def current_of(records: list[ShiftDrop]) -> ShiftDrop | None:
    """The record of a shift's history that no other supersedes (its drop), or None."""
    superseded = {r.supersedes_id for r in records}
    current = [r for r in records if r.id not in superseded]
    return current[-1] if current else None


def record_drop(session: orm.Session, *, shift_id: int, user: UserRef, cash: int,
                markers: int = 0, reason: str = "", replaces: int | None = None,
                at: datetime | None = None) -> ShiftDrop:
    """Record the drop of closed shift ``shift_id``: ``cash`` and ``markers`` in cents.

    ``replaces`` is the id of the drop record the caller saw as current (None: it saw none);
    if another was recorded meanwhile the call is refused (Conflict) rather than silently
    superseding a count the caller never saw. A recount needs a ``reason``.
    """
    cash = _amount(cash, "cash")
    markers = _amount(markers, "markers")
    reason = (reason or "").strip()
    if len(reason) > 500:
        raise InvalidInput("reason: at most 500 characters")
    with write(session):
        who = acting_user(session, user, *DROP_ROLES, doing="record a drop")
        shift = session.get(Shift, shift_id)
        if shift is None:
            raise NotFound(f"no shift {shift_id}")
        head = lock_head(session, table_chain(shift.table_id))
        if shift.closed_at is None:
            raise Conflict(f"shift {shift_id} is still open: its drop is counted after it "
                           f"closes")
        current = current_of(_history(session, shift_id))
        seen = None if current is None else current.id
        if replaces != seen:
            raise Conflict(
                f"the drop of shift {shift_id} changed meanwhile: the current record is "
                + ("none" if current is None else f"#{current.id} "
                   f"({current.amount / 100:,.2f} by {current.by.name})")
                + ": look at it again before recording")
        if current is not None and not reason:
            raise InvalidInput("reason: a recount replaces the drop recorded before: say why")
        drop = ShiftDrop(shift_id=shift_id, cash=cash, markers=markers, amount=cash + markers,
                         supersedes_id=seen, reason=reason, at=at or utcnow(), by_id=who.id)
        session.add(drop)
        session.flush()
        append_event(session, chain=table_chain(shift.table_id), actor=who.name,
                     action=DROP_ACTION, table_id=shift.table_id, shift_id=shift_id,
                     digest=drop_digest(drop), at=drop.at, head=head,
                     payload={"drop_id": drop.id, "cash": cash, "markers": markers,
                              "amount": drop.amount, "supersedes_drop_id": seen,
                              "reason": reason})
    return drop


def drop_history(session: orm.Session, shift_id: int) -> list[ShiftDrop]:
    """Every drop record of the shift, oldest first (the last one not superseded counts)."""
    with read(session):
        if session.get(Shift, shift_id) is None:
            raise NotFound(f"no shift {shift_id}")
        return _history(session, shift_id)


def drops_of(session: orm.Session, shift_ids: list[int]) -> dict[int, list[ShiftDrop]]:
    """Drop histories of many shifts (inside the caller's read), oldest first each."""
    out: dict[int, list[ShiftDrop]] = {}
    for start in range(0, len(shift_ids), 1000):
        for drop in session.scalars(
                sa.select(ShiftDrop).where(ShiftDrop.shift_id.in_(shift_ids[start:start + 1000]))
                .order_by(ShiftDrop.id).options(orm.joinedload(ShiftDrop.by))):
            out.setdefault(drop.shift_id, []).append(drop)
    return out


def check_drops(session: orm.Session, *, table_ids: list[int] | None = None,
                since: datetime | None = None) -> list[tuple[datetime, str, str]]:
    """Each drop record against the ``shift.drop`` event that logged it, for verify-log:
    ``(when, where, what)`` per problem (none: all match). Finds a record with no event
    (inserted behind the log's back), one whose digest differs (changed), an event whose
    record is gone (deleted), and a recount that supersedes a record of another shift.
    The chain walk itself (hashes, links) is verify-log's. Read-only, inside the caller's
    transaction (so verify-log's snapshot)."""
    events = (sa.select(AuditEvent.payload, AuditEvent.digest, AuditEvent.chain,
                        AuditEvent.seq, AuditEvent.id, AuditEvent.at)
              .where(AuditEvent.action == DROP_ACTION))
    records = sa.select(ShiftDrop, Shift.table_id).join(Shift, Shift.id == ShiftDrop.shift_id)
    if table_ids is not None:
        events = events.where(AuditEvent.chain.in_([table_chain(t) for t in table_ids]))
        records = records.where(Shift.table_id.in_(table_ids))
    if since is not None:
        events = events.where(AuditEvent.at >= since)
        records = records.where(ShiftDrop.at >= since)
    logged: dict[object, tuple[str | None, str, int, int, datetime]] = {}
    for payload, digest, chain, seq, event_id, at in session.execute(events):
        try:
            key = json.loads(payload).get("drop_id")
        except (ValueError, AttributeError):
            key = None
        logged[key] = (digest, chain, seq, event_id, at)
    problems: list[tuple[datetime, str, str]] = []
    shift_of: dict[int, int] = {}
    rows = list(session.execute(records))
    for drop, _table_id in rows:
        shift_of[drop.id] = drop.shift_id
    for drop, table_id in rows:
        where = f"drop {drop.id} of shift {drop.shift_id}"
        entry = logged.pop(drop.id, None)
        if entry is None:
            problems.append((drop.at, where, "has no audit event (inserted behind the "
                                             "log's back)"))
        elif entry[0] != drop_digest(drop) or entry[1] != table_chain(table_id):
            problems.append((drop.at, where, f"differs from what audit event {entry[1]} "
                                             f"#{entry[2]} (id {entry[3]}) recorded (it was "
                                             f"changed)"))
        if drop.supersedes_id is not None and shift_of.get(drop.supersedes_id,
                                                           drop.shift_id) != drop.shift_id:
            problems.append((drop.at, where, f"supersedes drop {drop.supersedes_id} of "
                                             f"another shift"))
    for key, (_digest, chain, seq, event_id, at) in logged.items():
        problems.append((at, f"drop {key}", f"was logged by audit event {chain} #{seq} "
                                            f"(id {event_id}) but is missing (deleted or "
                                            f"changed)"))
    return sorted(problems, key=lambda p: p[0])


__all__ = ["DROP_ACTION", "DROP_ROLES", "check_drops", "current_of", "drop_digest",
           "drop_history", "drops_of", "record_drop"]
