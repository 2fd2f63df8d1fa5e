"""The enrolled deck each table's scans read with, on record.

A table's deck (``dealer-assist vision enroll-table``, ``vision deck install``) changes how
every scan at the table is read, so it is on record like the table's rules: the table row
names the deck file by its SHA-256, and each change is an event on the table's own chain
(``deck.enrolled``, with what the deck was learnt from, or ``deck.removed``). A scan reads
with the deck file only when it is the one on record (:func:`deck_to_read_with`): a file
copied in by hand, or changed, is not used, and the dealer is told.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.store.audit import append_event, lock_head
from dealer_assist.store.models import AuditEvent, GamingTable, table_chain

from ._base import UserRef, actor_name, find_table, read, write
from .errors import Conflict, InvalidInput

_SHA256 = re.compile(r"[0-9a-f]{64}")


def set_table_deck(session: orm.Session, table: str, deck_sha256: str | None, *,
                   actor: UserRef | None = None,
                   detail: Mapping[str, Any] | None = None) -> GamingTable:
    """Put a deck on record for ``table`` (by its file's SHA-256), or none (None); one
    event on the table's chain, with ``detail`` (what the deck was learnt from) in its
    payload. Removing a deck from a table that has none is refused (Conflict)."""
    if deck_sha256 is not None and not _SHA256.fullmatch(deck_sha256):
        raise InvalidInput("a deck's SHA-256 is 64 lowercase hex digits")
    with write(session):
        who = actor_name(session, actor, "admin", doing="change a table's enrolled deck")
        info = find_table(session, table)
        head = lock_head(session, table_chain(info.id))
        if deck_sha256 is None and info.deck_sha256 is None:
            raise Conflict(f"table {info.name} has no enrolled deck on record")
        payload = {**(detail or {}), "deck_sha256": deck_sha256,
                   "replaces": info.deck_sha256}
        info.deck_sha256 = deck_sha256
        session.flush()
        append_event(session, chain=table_chain(info.id), actor=who,
                     action="deck.enrolled" if deck_sha256 else "deck.removed",
                     table_id=info.id, digest=deck_sha256, payload=payload, head=head)
    return info


@dataclass(frozen=True, slots=True)
class DeckRecord:
    """A table's enrolled deck as on record: the deck (None: none) and the last change."""

    table: str
    deck_sha256: str | None
    #: the last deck.enrolled / deck.removed event: when, by whom, its payload
    changed_at: datetime | None = None
    changed_by: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


def deck_records(session: orm.Session, table: str | None = None) -> list[DeckRecord]:
    """Every active table's enrolled deck on record (or ``table``'s), with its last
    change."""
    with read(session):
        tables = [find_table(session, table)] if table is not None else list(
            session.scalars(sa.select(GamingTable).where(GamingTable.active.is_(True))
                            .order_by(GamingTable.name)))
        out = []
        for info in tables:
            last = session.execute(
                sa.select(AuditEvent.at, AuditEvent.actor, AuditEvent.payload)
                .where(AuditEvent.chain == table_chain(info.id),
                       AuditEvent.action.in_(("deck.enrolled", "deck.removed")))
                .order_by(AuditEvent.seq.desc()).limit(1)).first()
            out.append(DeckRecord(info.name, info.deck_sha256, *(
                (last.at, last.actor, json.loads(last.payload)) if last else ())))
    return out


@dataclass(frozen=True, slots=True)
class DeckFile:
    """A table's deck file on the server against the deck on record."""

    #: "read with" (it is the deck on record), "none" (no file, none on record),
    #: "missing", "unreadable", "not on record" or "differs"
    state: str
    #: the file's bytes when it is read with
    data: bytes | None = None
    #: its SHA-256, when it was read
    found: str | None = None


def deck_file_state(path: Path | None, on_record: str | None) -> DeckFile:
    """What the server's deck file for a table (at ``path``) is against the deck on record
    for it (``on_record``, its SHA-256): a scan reads with it only when it is that deck.

    >>> deck_file_state(None, None).state, deck_file_state(None, "ab" * 32).state
    ('none', 'missing')
    """
    if path is None or not path.is_file():
        return DeckFile("missing" if on_record else "none")
    try:
        data = path.read_bytes()
    except OSError:
        return DeckFile("unreadable")
    found = hashlib.sha256(data).hexdigest()
    if on_record is None:
        return DeckFile("not on record", found=found)
    if found != on_record:
        return DeckFile("differs", found=found)
    return DeckFile("read with", data, found)


def deck_to_read_with(path: Path | None, on_record: str | None) -> tuple[bytes | None,
                                                                          str | None]:
    """The bytes of a table's deck file (at ``path``) when it is the deck on record for the
    table (``on_record``, its SHA-256); otherwise None and, when there is something to
    say, a note for the dealer naming the file (not the server's path).

    >>> deck_to_read_with(None, None)
    (None, None)
    >>> deck_to_read_with(Path("/nowhere/T1.npz"), "ab" * 32)[1]
    "the table's enrolled deck T1.npz (abababababab... on record) is not on the server; read without it"
    """
    deck = deck_file_state(path, on_record)
    name = path.name if path is not None else "file"
    notes = {
        "missing": f"the table's enrolled deck {name} ({(on_record or '')[:12]}... on record) "
                   "is not on the server; read without it",
        "unreadable": f"the table's enrolled deck {name} cannot be read; read without it",
        "not on record": f"the deck file {name} is not on record for this table, so it was "
                         "not used (`dealer-assist vision deck install` puts a deck on record)",
        "differs": f"the deck file {name} is not the table's deck on record "
                   f"({(deck.found or '')[:12]}... found, {(on_record or '')[:12]}... on "
                   "record), so it was not used; enroll the table's deck again"}
    return deck.data, notes.get(deck.state)


__all__ = ["DeckFile", "DeckRecord", "deck_file_state", "deck_records", "deck_to_read_with",
           "set_table_deck"]
