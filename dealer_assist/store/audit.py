"""The audit chain and the digests of logged records.

Every audit event belongs to one chain: ``table:<id>`` (a table's rounds, voids,
corrections, shifts and settings) or ``floor`` (logins, users, tokens, rule sets, casino
settings). Within a chain the events are numbered 1, 2, 3... and each event's

    hash = SHA-256( prev_hash  +  canonical JSON of the event )

where prev_hash is the previous event's hash (64 zeros for the first), and the canonical
JSON is the object below with sorted keys, no spaces, UTF-8 (``payload`` is itself
canonical JSON)::

    {"action", "actor", "at" (ISO 8601 UTC, microseconds), "chain", "digest",
     "payload", "round_id", "seq", "shift_id", "table_id"}

``digest`` is the SHA-256 of the record the event is about (:func:`round_digest` for a
round with its seats, :func:`record_digest` for others), so a changed record no longer
matches the event that logged it, even when the chain is intact.

>>> from datetime import datetime, UTC
>>> at = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
>>> text = canonical_event(chain="floor", seq=1, at=at, actor="ann", action="user.login",
...     table_id=None, shift_id=None, round_id=None, digest=None, payload='{"ok":true}')
>>> text == canonical_json(json.loads(text))
True
>>> len(chain_hash(GENESIS_HASH, text))
64
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from json.encoder import encode_basestring
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy import orm

from .models import GENESIS_HASH, AuditEvent, ChainHead, utcnow

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 characters kept: the one text a value hashes as."""
    return _dumps(value)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def iso(at: datetime) -> str:
    """The canonical time: ISO 8601 in UTC with microseconds (``...T12:00:00.000000+00:00``)."""
    return at.isoformat(timespec="microseconds")


def _text(value: str | None) -> str:
    # A plain str is what the JSON encoder would pass to encode_basestring itself.
    if type(value) is str:
        return encode_basestring(value)
    return "null" if value is None else _dumps(value)


def _int(value: int | None) -> str:
    return "null" if value is None else str(int(value))


#: canonical JSON of a str or None, and the text of an int or None, as events write them.
json_text = _text
int_text = _int


def canonical_event(*, chain: str, seq: int, at: datetime, actor: str, action: str,
                    table_id: int | None, shift_id: int | None, round_id: int | None,
                    digest: str | None, payload: str) -> str:
    """The canonical JSON text of an event (built directly: verifying a million is hot)."""
    return canonical_event_text(chain=chain, seq=seq, at_text=iso(at), actor=actor,
                                action=action, table_id=table_id, shift_id=shift_id,
                                round_id=round_id, digest=digest, payload=payload)


#: :func:`canonical_event` as a %-template over the already encoded fields, in this order:
#: action, actor, at, chain, digest, payload, round_id, seq, shift_id, table_id.
EVENT_TEMPLATE = ('{"action":%s,"actor":%s,"at":"%s","chain":%s,"digest":%s,"payload":%s,'
                  '"round_id":%s,"seq":%s,"shift_id":%s,"table_id":%s}')


def canonical_event_text(*, chain: str, seq: int, at_text: str, actor: str, action: str,
                         table_id: int | None, shift_id: int | None, round_id: int | None,
                         digest: str | None, payload: str) -> str:
    """:func:`canonical_event` with the time given as its :func:`iso` text."""
    return EVENT_TEMPLATE % (_text(action), _text(actor), at_text, _text(chain),
                             _text(digest), payload, _int(round_id), int(seq),
                             _int(shift_id), _int(table_id))


def chain_hash(prev_hash: str, event_text: str) -> str:
    return hashlib.sha256((prev_hash + event_text).encode()).hexdigest()


#: Field order of a round's digest line (see :func:`round_digest`).
ROUND_DIGEST_FIELDS = ("id", "table_id", "serial", "shift_id", "ruleset_version_id",
                       "dealer_cards", "dealer_c1", "dealer_c2", "dealer_c3", "misdeal", "misdeal_reason",
                       "entered_by_id", "at", "source", "photo_sha256", "idempotency_key",
                       "total")
#: Field order of each seat in a round's digest.
SEAT_DIGEST_FIELDS = ("seat", "cards", "c1", "c2", "c3", "ante", "play", "pair_plus", "six_card",
                      "prime", "net_ante", "net_play", "net_ante_bonus", "net_pair_plus",
                      "net_six_card", "net_prime")

_AT = ROUND_DIGEST_FIELDS.index("at")


def round_digest(round_values: Sequence[Any], seats: Iterable[Sequence[Any]]) -> str:
    """SHA-256 of ``[round fields, [seat fields...]]`` as compact JSON, seats by seat number.

    ``round_values`` follow :data:`ROUND_DIGEST_FIELDS` with ``at`` as a datetime;
    each seat follows :data:`SEAT_DIGEST_FIELDS`.
    """
    values = list(round_values)
    values[_AT] = iso(values[_AT])
    return sha256_text(_dumps([values, sorted(list(s) for s in seats)]))


#: What :func:`encode_rows` accepts for each column: exactly these types (no subclass, so
#: never ``bool`` for ``int``); anything else makes it give up (the caller falls back to
#: :func:`canonical_json`, the reference).
COLUMN_TYPES: dict[str, frozenset[type]] = {
    "int": frozenset({int}), "int?": frozenset({int, type(None)}),
    "str": frozenset({str}), "str?": frozenset({str, type(None)}),
    "bool": frozenset({bool}),
}
_BOOL_TEXT = {True: "true", False: "false"}


def _encode_column(column: Sequence[Any], kind: str) -> Sequence[Any] | None:
    types = set(map(type, column))
    if not types <= COLUMN_TYPES[kind]:
        return None
    if types == {int}:
        return column  # %s of an int is int.__repr__, as the JSON encoder writes it
    if types == {str}:
        return list(map(encode_basestring, column))
    if types == {bool}:
        return list(map(_BOOL_TEXT.__getitem__, column))
    if types == {type(None)}:
        return ["null"] * len(column)
    return [_dumps(v) for v in column]  # a column with None among values: value by value


def encode_rows(columns: Sequence[Sequence[Any]], kinds: Sequence[str]) -> list[str] | None:
    """``canonical_json(list(row))`` of every row, given column by column (the hot path of
    :func:`round_digest` when verifying a million rounds), or None if a column holds a value
    whose type is not the one ``kinds`` names for it (see :data:`COLUMN_TYPES`)."""
    encoded = []
    for column, kind in zip(columns, kinds, strict=True):
        done = _encode_column(column, kind)
        if done is None:
            return None
        encoded.append(done)
    if not encoded or not len(encoded[0]):
        return [] if encoded else None
    template = "[" + ",".join(["%s"] * len(encoded)) + "]"
    return list(map(template.__mod__, zip(*encoded, strict=True)))


def digest_of_texts(round_text: str, seat_texts: Iterable[str]) -> str:
    """:func:`round_digest` from ``canonical_json`` of the round's values (``at`` as its
    :func:`iso` text) and of each seat's values, seats already in sorted order."""
    return sha256_text(f"[{round_text},[{','.join(seat_texts)}]]")


def record_digest(kind: str, fields: dict[str, Any]) -> str:
    """SHA-256 of ``{"kind": kind, **fields}`` as canonical JSON (datetimes as :func:`iso`)."""
    body = {k: iso(v) if isinstance(v, datetime) else v for k, v in fields.items()}
    return sha256_text(canonical_json({"kind": kind, **body}))


@dataclass(frozen=True, slots=True)
class Appended:
    """Where an event went: its chain, number, hash and time."""

    chain: str
    seq: int
    hash: str
    at: datetime
    round_serial: int


_HEADS = cast(sa.Table, ChainHead.__table__)
_EVENTS = cast(sa.Table, AuditEvent.__table__)
_LOCK_HEAD = (sa.select(_HEADS.c.seq, _HEADS.c.hash, _HEADS.c.round_serial)
              .where(_HEADS.c.chain == sa.bindparam("chain")).with_for_update())
_INSERT_EVENT = sa.insert(_EVENTS)
_UPDATE_HEAD = (sa.update(_HEADS).where(_HEADS.c.chain == sa.bindparam("b_chain"))
                .values(seq=sa.bindparam("b_seq"), hash=sa.bindparam("b_hash"),
                        round_serial=sa.bindparam("b_serial")))


def connection_of(where: orm.Session | sa.Connection) -> sa.Connection:
    """The connection of a session's transaction (the ORM's look-up costs; pass the
    connection itself on a hot path)."""
    return where if isinstance(where, sa.Connection) else where.connection()


def lock_head(session: orm.Session | sa.Connection, chain: str) -> tuple[int, str, int]:
    """Lock the chain's head row for this transaction; return (seq, hash, round_serial).

    PostgreSQL: ``SELECT ... FOR UPDATE`` (other writers of this chain wait until commit).
    SQLite: the transaction already holds the database's write lock (``BEGIN IMMEDIATE``).
    """
    row = connection_of(session).execute(_LOCK_HEAD, {"chain": chain}).one_or_none()
    if row is None:
        raise LookupError(f"audit chain {chain!r} has no head row")
    return int(row[0]), str(row[1]), int(row[2])


def append_event(session: orm.Session | sa.Connection, *, chain: str, actor: str, action: str,
                 table_id: int | None = None, shift_id: int | None = None,
                 round_id: int | None = None, digest: str | None = None,
                 payload: dict[str, Any] | None = None, at: datetime | None = None,
                 head: tuple[int, str, int] | None = None,
                 round_serial: int | None = None) -> Appended:
    """Append one event to ``chain`` inside the caller's write transaction.

    ``head`` is what :func:`lock_head` returned if the caller already locked it (it must
    have); ``round_serial`` moves the table's serial counter with the same update.
    """
    seq, prev_hash, serial = head if head is not None else lock_head(session, chain)
    at = at or utcnow()
    payload_text = canonical_json(payload or {})
    seq += 1
    text = canonical_event(chain=chain, seq=seq, at=at, actor=actor, action=action,
                           table_id=table_id, shift_id=shift_id, round_id=round_id,
                           digest=digest, payload=payload_text)
    new_hash = chain_hash(prev_hash, text)
    conn = connection_of(session)
    conn.execute(_INSERT_EVENT, {
        "chain": chain, "seq": seq, "at": at, "actor": actor, "action": action,
        "table_id": table_id, "shift_id": shift_id, "round_id": round_id, "digest": digest,
        "payload": payload_text, "prev_hash": prev_hash, "hash": new_hash})
    if round_serial is not None:
        serial = round_serial
    conn.execute(_UPDATE_HEAD, {"b_chain": chain, "b_seq": seq, "b_hash": new_hash,
                                "b_serial": serial})
    return Appended(chain, seq, new_hash, at, serial)


__all__ = [
    "EVENT_TEMPLATE",
    "GENESIS_HASH",
    "ROUND_DIGEST_FIELDS",
    "SEAT_DIGEST_FIELDS",
    "Appended",
    "append_event",
    "canonical_event",
    "canonical_event_text",
    "canonical_json",
    "chain_hash",
    "connection_of",
    "digest_of_texts",
    "encode_rows",
    "int_text",
    "iso",
    "json_text",
    "lock_head",
    "record_digest",
    "round_digest",
    "sha256_text",
]
