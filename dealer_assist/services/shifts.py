"""Shifts: open, fills and credits, close. Each change is an event on the table's chain.

Chip inventories are ``{denomination in minor units: count}``, e.g. ``{500: 100, 2500: 40}``
(stored with string keys, as JSON requires).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.store.audit import append_event, lock_head, record_digest
from dealer_assist.store.models import Shift, ShiftMovement, table_chain, utcnow

from ._base import UserRef, acting_user, find_table, read, write
from .errors import Conflict, InvalidInput, NotFound

#: Roles that may open and close shifts and record fills and credits.
SHIFT_ROLES = ("supervisor", "admin")


def inventory(chips: Mapping[int, int] | Mapping[str, int] | None) -> dict[str, int]:
    """Validated chips as stored: ``{"500": 100}``; denominations and counts are whole, >= 0.

    >>> inventory({2500: 4, 500: 10})
    {'500': 10, '2500': 4}
    """
    result: dict[int, int] = {}
    for denom, count in (chips or {}).items():
        try:
            d = int(denom)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"chip denomination {denom!r} is not a whole number of cents") \
                from exc
        if d <= 0 or isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidInput(f"chips: {denom!r}: {count!r} is not a count of chips")
        result[d] = result.get(d, 0) + count
    return {str(d): result[d] for d in sorted(result)}


def inventory_value(chips: Mapping[str, int] | None) -> int:
    """Total value of an inventory in minor units."""
    return sum(int(d) * int(c) for d, c in (chips or {}).items())


def _open_digest(shift: Shift) -> str:
    return record_digest("shift_open", {
        "id": shift.id, "table_id": shift.table_id, "opened_at": shift.opened_at,
        "opened_by_id": shift.opened_by_id, "dealers": shift.dealers,
        "opening_inventory": shift.opening_inventory})


def _close_digest(shift: Shift) -> str:
    assert shift.closed_at is not None
    return record_digest("shift_close", {
        "id": shift.id, "closed_at": shift.closed_at, "closed_by_id": shift.closed_by_id,
        "closing_inventory": shift.closing_inventory})


def movement_digest(m: ShiftMovement) -> str:
    return record_digest("movement", {"id": m.id, "shift_id": m.shift_id, "kind": m.kind,
                                      "chips": m.chips, "amount": m.amount, "at": m.at,
                                      "by_id": m.by_id})


def _open_shift_of(session: orm.Session, table_id: int) -> Shift | None:
    return session.scalars(sa.select(Shift).where(Shift.table_id == table_id,
                                                  Shift.closed_at.is_(None))).one_or_none()


def open_shift(session: orm.Session, *, table: str, user: UserRef,
               opening_inventory: Mapping[int, int] | None = None,
               dealers: list[str] | None = None, at: datetime | None = None) -> Shift:
    """Open a shift at ``table`` (supervisor). Conflict if one is already open there."""
    chips = inventory(opening_inventory)
    with write(session):
        who = acting_user(session, user, *SHIFT_ROLES, doing="open a shift")
        tbl = find_table(session, table)
        if not tbl.active:
            raise Conflict(f"table {table!r} is closed to play (inactive)")
        head = lock_head(session, table_chain(tbl.id))
        current = _open_shift_of(session, tbl.id)
        if current is not None:
            raise Conflict(f"table {table!r} already has shift {current.id} open since "
                           f"{current.opened_at:%Y-%m-%d %H:%M} UTC: close it first")
        shift = Shift(table_id=tbl.id, opened_at=at or utcnow(), opened_by_id=who.id,
                      dealers=list(dealers or []), opening_inventory=chips)
        session.add(shift)
        session.flush()
        append_event(session, chain=table_chain(tbl.id), actor=who.name, action="shift.opened",
                     table_id=tbl.id, shift_id=shift.id, digest=_open_digest(shift),
                     at=shift.opened_at, head=head,
                     payload={"opening_inventory": chips,
                              "opening_value": inventory_value(chips),
                              "dealers": shift.dealers})
    return shift


def record_chips(session: orm.Session, *, table: str, user: UserRef, kind: str,
                 chips: Mapping[int, int]) -> ShiftMovement:
    """Record a fill (chips to the table) or a credit (chips away) on the open shift."""
    if kind not in ("fill", "credit"):
        raise InvalidInput(f"chip movement is a fill or a credit, not {kind!r}")
    stored = inventory(chips)
    if not stored:
        raise InvalidInput(f"a {kind} needs chips")
    with write(session):
        who = acting_user(session, user, *SHIFT_ROLES, doing=f"record a {kind}")
        tbl = find_table(session, table)
        head = lock_head(session, table_chain(tbl.id))
        shift = _open_shift_of(session, tbl.id)
        if shift is None:
            raise Conflict(f"table {table!r} has no open shift")
        move = ShiftMovement(shift_id=shift.id, kind=kind, chips=stored,
                             amount=inventory_value(stored), at=utcnow(), by_id=who.id)
        session.add(move)
        session.flush()
        append_event(session, chain=table_chain(tbl.id), actor=who.name, action=f"shift.{kind}",
                     table_id=tbl.id, shift_id=shift.id, digest=movement_digest(move),
                     at=move.at, head=head,
                     payload={"movement_id": move.id, "chips": stored, "amount": move.amount})
    return move


def close_shift(session: orm.Session, *, table: str, user: UserRef,
                closing_inventory: Mapping[int, int] | None = None,
                at: datetime | None = None) -> Shift:
    """Close the table's open shift with the closing chip count (supervisor)."""
    chips = inventory(closing_inventory)
    with write(session):
        who = acting_user(session, user, *SHIFT_ROLES, doing="close a shift")
        tbl = find_table(session, table)
        head = lock_head(session, table_chain(tbl.id))
        shift = _open_shift_of(session, tbl.id)
        if shift is None:
            raise Conflict(f"table {table!r} has no open shift to close")
        shift.closed_at = at or utcnow()
        shift.closed_by_id = who.id
        shift.closing_inventory = chips
        session.flush()
        append_event(session, chain=table_chain(tbl.id), actor=who.name, action="shift.closed",
                     table_id=tbl.id, shift_id=shift.id, digest=_close_digest(shift),
                     at=shift.closed_at, head=head,
                     payload={"closing_inventory": chips,
                              "closing_value": inventory_value(chips)})
    return shift


def current_shift(session: orm.Session, table: str) -> Shift | None:
    """The table's open shift, or None."""
    with read(session):
        return _open_shift_of(session, find_table(session, table).id)


def get_shift(session: orm.Session, shift_id: int) -> Shift:
    with read(session):
        shift = session.get(Shift, shift_id)
        if shift is None:
            raise NotFound(f"no shift {shift_id}")
        _ = shift.movements
        return shift


def list_shifts(session: orm.Session, *, table: str | None = None,
                since: datetime | None = None, until: datetime | None = None,
                limit: int = 100) -> list[Shift]:
    """Shifts, newest first, optionally of one table and opened within [since, until)."""
    with read(session):
        query = sa.select(Shift).order_by(Shift.opened_at.desc(), Shift.id.desc()).limit(limit)
        if table is not None:
            query = query.where(Shift.table_id == find_table(session, table).id)
        if since is not None:
            query = query.where(Shift.opened_at >= since)
        if until is not None:
            query = query.where(Shift.opened_at < until)
        return list(session.scalars(query))


def shift_summary(shift: Shift) -> dict[str, Any]:
    """A shift as JSON (inventories, movements, times)."""
    return {
        "id": shift.id, "table": shift.table.name, "opened_at": shift.opened_at.isoformat(),
        "opened_by": shift.opened_by.name, "dealers": shift.dealers,
        "opening_inventory": shift.opening_inventory,
        "opening_value": inventory_value(shift.opening_inventory),
        "closed_at": shift.closed_at.isoformat() if shift.closed_at else None,
        "closed_by": shift.closed_by.name if shift.closed_by else None,
        "closing_inventory": shift.closing_inventory,
        "closing_value": None if shift.closing_inventory is None
        else inventory_value(shift.closing_inventory),
        "movements": [{"id": m.id, "kind": m.kind, "chips": m.chips, "amount": m.amount,
                       "at": m.at.isoformat()} for m in shift.movements],
    }


__all__ = ["SHIFT_ROLES", "close_shift", "current_shift", "get_shift", "inventory",
           "inventory_value", "list_shifts", "open_shift", "record_chips", "shift_summary"]
