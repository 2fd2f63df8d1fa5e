"""A table's own money settings: its large-payout threshold and chip denominations.

Kept beside ``admin.update_table`` (which changes seats, rules and the active flag); each
change is an event on the table's own audit chain.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import orm

from dealer_assist.domain.chips import ChipError, check_denominations
from dealer_assist.store.audit import append_event, lock_head
from dealer_assist.store.models import GamingTable, table_chain

from ._base import UserRef, actor_name, find_table, write
from .errors import InvalidInput

_UNSET: Any = object()


def set_table_money(session: orm.Session, name: str, *, actor: UserRef | None = None,
                    large_payout_threshold: int | None = _UNSET,
                    chip_denominations: Sequence[int] | None = _UNSET) -> GamingTable:
    """Set (or clear, with None) a table's threshold and chip values; audited."""
    changes: dict[str, Any] = {}
    if large_payout_threshold is not _UNSET:
        if large_payout_threshold is not None and (
                isinstance(large_payout_threshold, bool) or large_payout_threshold < 0):
            raise InvalidInput("the large-payout threshold is an amount of 0 or more")
        changes["large_payout_threshold"] = large_payout_threshold
    if chip_denominations is not _UNSET:
        if chip_denominations is not None:
            try:
                chip_denominations = sorted(check_denominations(chip_denominations),
                                            reverse=True)
            except ChipError as exc:
                raise InvalidInput(f"chip values: {exc.message}") from exc
        changes["chip_denominations"] = chip_denominations
    with write(session):
        who = actor_name(session, actor, "admin", doing="change a table")
        table = find_table(session, name)
        head = lock_head(session, table_chain(table.id))
        changed = {k: v for k, v in changes.items() if getattr(table, k) != v}
        if not changed:
            return table
        for key, value in changed.items():
            setattr(table, key, value)
        session.flush()
        append_event(session, chain=table_chain(table.id), actor=who, action="table.changed",
                     table_id=table.id, payload=changed, head=head)
    return table


__all__ = ["set_table_money"]
