"""Proving the log unchanged: ``verify_log`` and ``resettle``.

:func:`verify_log` reads the log in one consistent snapshot and checks, and names the first
record that fails:

1. every rule-set version's JSON still hashes to its stored hash and to the hash its
   ``ruleset.added`` event recorded;
2. every audit chain: numbers 1, 2, 3... with no gap, each event links to the previous
   hash and hashes to its stored hash, and the chain ends where its head row says;
3. every round: serials 1, 2, 3... per table with no gap or repeat; its row and seats
   still hash to the digest its ``round.logged`` event recorded (and every logged round
   still exists); the stored nets equal a fresh settlement of the stored cards and stakes
   under the stored rule set, through the domain's batch path; the stored total adds up;
4. every void, correction, misdeal, shift, chip movement and drop matches its event's digest.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt
import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.domain.batch import NET_COLUMNS, settle_batch
from dealer_assist.domain.errors import DomainError
from dealer_assist.domain.rulesets import RuleSet, ruleset_from_json
from dealer_assist.store.audit import (
    EVENT_TEMPLATE,
    canonical_json,
    digest_of_texts,
    encode_rows,
    int_text,
    iso,
    json_text,
    sha256_text,
)
from dealer_assist.store.models import (
    FLOOR_CHAIN,
    GENESIS_HASH,
    AuditEvent,
    ChainHead,
    GamingTable,
    Round,
    RoundEvent,
    RuleSetVersion,
    SeatEntry,
    Shift,
    ShiftMovement,
    table_chain,
)

from . import log_sql
from ._base import find_table, guard
from .drops import check_drops
from .errors import InvalidInput
from .rounds import round_event_digest
from .shifts import _close_digest, _open_digest, movement_digest

#: Rounds read and checked per batch.
CHUNK = 20_000
#: Rounds or events read back by id at a time on the reference path.
_ID_BATCH = 500
#: Problems kept in full (the count goes on).
MAX_PROBLEMS = 1_000

Progress = Callable[[str, int, int | None], None]


@dataclass(frozen=True, order=True)
class Problem:
    """One record that fails. Problems sort by when the record was written."""

    at: str
    where: str = field(compare=False)
    what: str = field(compare=False)

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


@dataclass
class VerifyResult:
    """What :func:`verify_log` found. ``head`` is the chain head: the table's last hash
    with ``table``, else a SHA-256 over every chain's (name, length, last hash)."""

    rounds: int = 0
    events: int = 0
    seats: int = 0
    head: str = ""
    chains: dict[str, tuple[int, str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    problem_count: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.problem_count == 0

    @property
    def first_problem(self) -> Problem | None:
        return min(self.problems) if self.problems else None

    def summary(self) -> str:
        """``OK: N rounds, chain head H`` or ``FAIL: <first record that fails>``."""
        if self.ok:
            return f"OK: {self.rounds} rounds, chain head {self.head}"
        first = self.first_problem
        more = self.problem_count - 1
        tail = f" (and {more} more problem{'s' if more != 1 else ''})" if more else ""
        return f"FAIL: {first}{tail}"

    def add(self, at: datetime | str | None, where: str, what: str) -> None:
        self.problem_count += 1
        if len(self.problems) < MAX_PROBLEMS:
            stamp = at if isinstance(at, str) else (iso(at) if at is not None else "")
            self.problems.append(Problem(stamp, where, what))

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "rounds": self.rounds, "seats": self.seats,
                "events": self.events, "head": self.head,
                "chains": {k: {"length": v[0], "head": v[1]} for k, v in self.chains.items()},
                "problem_count": self.problem_count,
                "problems": [{"at": p.at, "where": p.where, "what": p.what}
                             for p in sorted(self.problems)],
                "seconds": round(self.seconds, 3)}


# ---------------------------------------------------------------- reading the log
#
# The hot path reads rows column by column, with times as their canonical text straight
# from the database, and encodes, hashes and settles a whole chunk at once. Each chunk is
# first checked to hold exactly the types the fast path assumes (ints, strs, bools, None
# where a column may be NULL, seats in strictly increasing order, nets far from int64's
# ends); a chunk that does not (only a tampered log can have one) is checked by the
# reference path, row by row, exactly as before.

_R = Round.__table__.c
_S = SeatEntry.__table__.c
_ROUND_COLS = (_R.id, _R.table_id, _R.serial, _R.shift_id, _R.ruleset_version_id,
               _R.dealer_cards, _R.dealer_c1, _R.dealer_c2, _R.dealer_c3, _R.misdeal,
               _R.misdeal_reason, _R.entered_by_id, _R.at, _R.source, _R.photo_sha256,
               _R.idempotency_key, _R.total)
_SEAT_COLS = (_S.round_id, _S.seat, _S.cards, _S.c1, _S.c2, _S.c3, _S.ante, _S.play,
              _S.pair_plus, _S.six_card, _S.prime, _S.net_ante, _S.net_play, _S.net_ante_bonus,
              _S.net_pair_plus, _S.net_six_card, _S.net_prime)
#: Types of ROUND_DIGEST_FIELDS as read (``at`` as its iso text) and of SEAT_DIGEST_FIELDS.
_ROUND_KINDS = ("int", "int", "int", "int", "int", "str", "int?", "int?", "int?", "bool",
                "str", "int", "str", "str", "str?", "str?", "int")
_SEAT_KINDS = ("int", "str", "int?", "int?", "int?", "int", "bool", "int", "int", "int",
               "int", "int", "int", "int", "int", "int")
_AT = 12
#: PostgreSQL writes a timestamp's :func:`iso` text itself (years 1-9999, as Python).
_PG_ISO = 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'
_SQLITE_STAMPS = re.compile(r"(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\n)*"
                            r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}")
_SQLITE_STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}")


class _Times:
    """Select a time column as text and turn the texts into :func:`iso` texts."""

    def __init__(self, dialect: sa.Dialect) -> None:
        self.dialect = dialect
        self.pg = dialect.name == "postgresql"
        self.sqlite = dialect.name == "sqlite"
        processor = _R.at.type.result_processor(dialect, None)
        self._read: Callable[[Any], Any] = processor if processor is not None else _same

    def column(self, col: sa.ColumnElement[Any]) -> sa.ColumnElement[Any]:
        if self.pg:
            return sa.func.to_char(sa.func.timezone("UTC", col), _PG_ISO)
        return sa.type_coerce(col, sa.types.NullType())  # as stored, unprocessed

    def slow(self, raw: Any) -> str:
        """The reference: the value SQLAlchemy reads, as :func:`iso`. On SQLite only the
        exact stored shape reads as a time (SQLAlchemy would also read a stamp with text
        after it, or a bare date); anything else keeps its own text, which matches no
        logged time's digest, so the record is reported."""
        if self.sqlite:
            if isinstance(raw, str) and _SQLITE_STAMP.fullmatch(raw):
                return raw.replace(" ", "T") + "+00:00"
            return f"unreadable time {raw!r}"
        return iso(self._read(raw))

    def texts(self, raws: Sequence[Any]) -> list[str]:
        if self.pg:
            # to_char's text (a NULL, which Python could not read either, stays None).
            return list(raws)
        if self.sqlite and raws and set(map(type, raws)) == {str}:
            # SQLAlchemy stores "YYYY-MM-DD HH:MM:SS.ffffff" (UTC); read back it is that
            # datetime, whose iso() is the same digits with "T" and "+00:00". (A string of
            # that shape that is no real date fails to parse there; here its text can match
            # no real time's digest, so it is reported instead.)
            joined = "\n".join(raws)
            if _SQLITE_STAMPS.fullmatch(joined):
                return (joined.replace(" ", "T").replace("\n", "+00:00\n")
                        + "+00:00").split("\n")
        return [self.slow(raw) for raw in raws]


def _same(value: Any) -> Any:
    return value


@dataclass
class _Chunk:
    """Rounds (``at`` as its iso text) and the seat rows of their id range (round_id first,
    in round_id, seat order), column by column, as SQLAlchemy reads them."""

    round_cols: list[list[Any]]
    seat_cols: list[list[Any]]
    _rounds: list[tuple[Any, ...]] | None = None
    _seats: dict[int, list[tuple[Any, ...]]] | None = None

    @property
    def rounds(self) -> list[tuple[Any, ...]]:
        if self._rounds is None:
            self._rounds = list(zip(*self.round_cols, strict=True))
        return self._rounds

    @property
    def seats(self) -> dict[int, list[tuple[Any, ...]]]:
        """Seat rows (round_id dropped) by round id, for the reference path."""
        if self._seats is None:
            self._seats = defaultdict(list)
            for row in zip(*self.seat_cols, strict=True):
                self._seats[row[0]].append(row[1:])
        return self._seats


def _columns(conn: sa.Connection, query: sa.Select[Any]) -> list[list[Any]]:
    """The query's result column by column, each value as SQLAlchemy reads it."""
    return _transpose(conn.execute(query).all(), len(query.selected_columns))


def _transpose(rows: Sequence[Sequence[Any]], width: int) -> list[list[Any]]:
    """Rows as columns (``zip(*rows)`` is far slower: it makes an iterator per row)."""
    return [list(map(itemgetter(k), rows)) for k in range(width)]


def _round_query(times: _Times) -> tuple[sa.ColumnElement[Any], ...]:
    cols: list[sa.ColumnElement[Any]] = [*_ROUND_COLS[:_AT], times.column(_R.at).label("at"),
                                         *_ROUND_COLS[_AT + 1:]]
    if times.sqlite:
        cols[_MISDEAL] = sa.type_coerce(_R.misdeal, sa.types.NullType())
    return tuple(cols)


def _seat_query(times: _Times) -> tuple[sa.ColumnElement[Any], ...]:
    cols: list[sa.ColumnElement[Any]] = list(_SEAT_COLS)
    if times.sqlite:
        cols[_PLAY] = sa.type_coerce(_S.play, sa.types.NullType())
    return tuple(cols)


def _strict_bools(column: list[Any]) -> list[Any]:
    """SQLite's stored 0 and 1 as False and True; any other value stays as it is (SQLAlchemy
    would read 2 as True), so it no longer encodes as the logged boolean."""
    return [_BOOLS.get(v, v) if type(v) is int else v for v in column]


_BOOLS = {0: False, 1: True}
_MISDEAL = 9
_PLAY = 7


def _round_chunks(conn: sa.Connection, table_ids: list[int] | None, since: datetime | None,
                  until: datetime | None, ids: list[int] | None = None) -> Iterator[_Chunk]:
    """Rounds in id order, CHUNK at a time, each with its seat rows (only the rounds of
    ``ids``, when given: the reference reading of rounds the fast path could not prove)."""
    times = _Times(conn.dialect)
    columns = _round_query(times)
    seat_columns = _seat_query(times)
    if ids is not None:
        for start in range(0, len(ids), _ID_BATCH):
            part = ids[start:start + _ID_BATCH]
            round_cols = _columns(conn, sa.select(*columns).where(_R.id.in_(part))
                                  .order_by(_R.id))
            if not round_cols[0]:
                continue
            round_cols[_AT] = times.texts(round_cols[_AT])
            seat_cols = _columns(conn, sa.select(*seat_columns).where(_S.round_id.in_(part))
                                 .order_by(_S.round_id, _S.seat))
            yield _strict(times, _Chunk(round_cols, seat_cols))
        return
    last = 0
    while True:
        query = sa.select(*columns).where(_R.id > last).order_by(_R.id).limit(CHUNK)
        if table_ids is not None:
            query = query.where(_R.table_id.in_(table_ids))
        if since is not None:
            query = query.where(_R.at >= since)
        if until is not None:
            query = query.where(_R.at < until)
        round_cols = _columns(conn, query)
        if not round_cols[0]:
            return
        round_cols[_AT] = times.texts(round_cols[_AT])
        lo, hi = round_cols[0][0], round_cols[0][-1]
        seat_cols = _columns(conn, sa.select(*seat_columns).where(_S.round_id.between(lo, hi))
                             .order_by(_S.round_id, _S.seat))
        yield _strict(times, _Chunk(round_cols, seat_cols))
        last = hi


def _strict(times: _Times, chunk: _Chunk) -> _Chunk:
    if times.sqlite:
        chunk.round_cols[_MISDEAL] = _strict_bools(chunk.round_cols[_MISDEAL])
        chunk.seat_cols[_PLAY] = _strict_bools(chunk.seat_cols[_PLAY])
    return chunk


_DUMMY_DEALER = (0, 1, 2)
_DUMMY_PLAYER = (3, 4, 5)


@dataclass
class _Fast:
    """A chunk laid out for the fast path: per round, its seats' slice; per seat, numbers."""

    round_ids: list[int]
    seat_no: npt.NDArray[np.int64]
    starts: npt.NDArray[np.int64]
    ends: npt.NDArray[np.int64]
    numbers: npt.NDArray[np.int64]      # per seat: ante, play, pp, six, prime, 6 nets
    cards: npt.NDArray[np.int64]        # per seat: c1, c2, c3 (0 for NULL)
    cards_null: npt.NDArray[np.bool_]   # per seat: a card is NULL
    dealer: npt.NDArray[np.int64]       # per round: dealer c1..c3 (0 for NULL)
    dealer_null: npt.NDArray[np.bool_]  # per round: a card is NULL
    misdeal: npt.NDArray[np.bool_]      # per round
    versions: npt.NDArray[np.int64]     # per round


def _int_array(column: Sequence[Any]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """The column as int64 and where it is NULL (0 there); ValueError unless every value is
    an int (not a bool) or None."""
    types = set(map(type, column))
    if types <= {int}:
        return (np.array(column, dtype=np.int64).reshape(len(column)),
                np.zeros(len(column), dtype=bool))
    if types <= {int, type(None)}:
        return (np.array([0 if v is None else v for v in column], dtype=np.int64),
                np.array([v is None for v in column], dtype=bool))
    raise ValueError("not ints")


def _fast_layout(chunk: _Chunk) -> _Fast | None:
    """The chunk's arrays, or None if it does not hold what the fast path assumes."""
    rc, sc = chunk.round_cols, chunk.seat_cols
    try:
        (round_ids, _), (version, _), (d1, n1), (d2, n2), (d3, n3) = (
            _int_array(rc[i]) for i in (0, 4, 6, 7, 8))
        seat_int = [_int_array(sc[i]) for i in (0, 1, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14,
                                                15, 16)]
    except (ValueError, OverflowError):
        return None
    if not set(map(type, sc[7])) <= {bool} or not set(map(type, rc[9])) <= {bool}:
        return None
    # NOT NULL columns read as NULL (only a tampered schema allows it): reference path.
    if any(bool(null.any()) for i, (_, null) in enumerate(seat_int) if i not in (2, 3, 4)):
        return None
    seat_rid, seat_no, (c1, m1), (c2, m2), (c3, m3) = (
        seat_int[0][0], seat_int[1][0], seat_int[2], seat_int[3], seat_int[4])
    stakes = [a for a, _ in seat_int[5:9]]
    nets = [a for a, _ in seat_int[9:]]
    if len(round_ids) > 1 and not bool(np.all(round_ids[1:] > round_ids[:-1])):
        return None
    if len(seat_rid) > 1 and bool(np.any((seat_rid[1:] < seat_rid[:-1]) | (
            (seat_rid[1:] == seat_rid[:-1]) & (seat_no[1:] <= seat_no[:-1])))):
        return None
    # Nets within +-2**46: a round's sum (at most 65536 seats of 6 nets) stays inside int64,
    # so the chunk's running sum may wrap yet each round's difference of it is exact.
    for a in nets:
        if len(a) and (int(a.max()) >= 2 ** 46 or int(a.min()) <= -2 ** 46):
            return None
    play = np.array(sc[7], dtype=np.int64).reshape(len(sc[7]))
    numbers = np.stack([stakes[0], play, stakes[1], stakes[2], stakes[3], *nets], axis=1
                       ).reshape(len(seat_rid), 11)
    return _Fast(round_ids=rc[0], seat_no=seat_no,
                 starts=np.searchsorted(seat_rid, round_ids, "left"),
                 ends=np.searchsorted(seat_rid, round_ids, "right"), numbers=numbers,
                 cards=np.stack([c1, c2, c3], axis=1).reshape(len(seat_rid), 3),
                 cards_null=m1 | m2 | m3,
                 dealer=np.stack([d1, d2, d3], axis=1).reshape(len(round_ids), 3),
                 dealer_null=n1 | n2 | n3,
                 misdeal=np.array(rc[9], dtype=bool).reshape(len(round_ids)),
                 versions=version)


def _fast_mismatches(fast: _Fast, rules: dict[int, RuleSet]
                     ) -> list[tuple[int, int, int, int, int]]:
    """As :func:`_batch_mismatches`, on the chunk's arrays."""
    counts = fast.ends - fast.starts
    # Every seat of every round, in round order (a seat row outside the rounds is skipped).
    owner = np.repeat(np.arange(len(counts)), counts)
    first = np.cumsum(counts) - counts
    seat_index = np.repeat(fast.starts, counts) + (np.arange(len(owner)) - first[owner])
    known = np.isin(fast.versions, np.array(list(rules), dtype=np.int64))
    found: list[tuple[int, int, int, int, int]] = []
    seat_numbers = fast.numbers[seat_index]
    seat_cards = fast.cards[seat_index]
    seat_dealer = fast.dealer[owner]
    broken = fast.misdeal[owner] | fast.dealer_null[owner] | fast.cards_null[seat_index]
    seat_dealer = np.where(broken[:, None], np.array(_DUMMY_DEALER), seat_dealer)
    seat_cards = np.where(broken[:, None], np.array(_DUMMY_PLAYER), seat_cards)
    owner_version = fast.versions[owner]
    for version_id in np.unique(fast.versions[known]).tolist():
        rows = np.flatnonzero(owner_version == version_id)
        values = seat_numbers[rows]
        nets = settle_batch(rules[version_id], dealer=seat_dealer[rows],
                            player=seat_cards[rows], ante=values[:, 0],
                            play=values[:, 1].astype(bool), pair_plus=values[:, 2],
                            six_card=values[:, 3], prime=values[:, 4], misdeal=broken[rows])
        stored = values[:, 5:11]
        for row, col in zip(*np.nonzero(nets != stored), strict=True):
            at = int(rows[row])
            found.append((fast.round_ids[int(owner[at])], int(fast.seat_no[seat_index[at]]),
                          int(col), int(stored[row, col]), int(nets[row, col])))
    found.sort()
    return found


def _batch_mismatches(chunk: _Chunk, rules: dict[int, RuleSet]
                      ) -> list[tuple[int, int, int, int, int]]:
    """Every stored net of the chunk that differs from a fresh settlement through the
    domain's batch path: (round id, seat, net column, stored, fresh), in round order."""
    fast = _fast_layout(chunk)
    if fast is not None:
        return _fast_mismatches(fast, rules)
    return _reference_mismatches(chunk, rules)


def _reference_mismatches(chunk: _Chunk, rules: dict[int, RuleSet]
                          ) -> list[tuple[int, int, int, int, int]]:
    """:func:`_batch_mismatches` row by row (the reference, for chunks the fast path
    declines)."""
    groups: dict[int, list[tuple[int, tuple[Any, ...], tuple[Any, ...]]]] = defaultdict(list)
    for rnd in chunk.rounds:
        if rnd[4] in rules and not _not_numbers(rnd, _ROUND_NUMBERS):
            for seat in chunk.seats.get(rnd[0], ()):
                if not _not_numbers(seat, _SEAT_NUMBERS):
                    groups[rnd[4]].append((rnd[0], rnd, seat))
    found: list[tuple[int, int, int, int, int]] = []
    for version_id, items in groups.items():
        dealer = np.empty((len(items), 3), dtype=np.int64)
        player = np.empty((len(items), 3), dtype=np.int64)
        values = np.array([seat[5:16] for _, _, seat in items], dtype=np.int64)
        misdeal = np.zeros(len(items), dtype=bool)
        for i, (_, rnd, seat) in enumerate(items):
            d = (rnd[6], rnd[7], rnd[8])
            p = (seat[2], seat[3], seat[4])
            if rnd[9] or None in d or None in p:
                dealer[i] = _DUMMY_DEALER
                player[i] = _DUMMY_PLAYER
                misdeal[i] = True
            else:
                dealer[i] = d
                player[i] = p
        nets = settle_batch(rules[version_id], dealer=dealer, player=player,
                            ante=values[:, 0], play=values[:, 1].astype(bool),
                            pair_plus=values[:, 2], six_card=values[:, 3], prime=values[:, 4],
                            misdeal=misdeal)
        stored = values[:, 5:11]
        for row, col in zip(*np.nonzero(nets != stored), strict=True):
            round_id, _, seat = items[int(row)]
            found.append((round_id, int(seat[0]), int(col), int(stored[row, col]),
                          int(nets[row, col])))
    found.sort()
    return found


#: Where a round row (as read) and a seat row (round_id dropped) hold numbers: index, name,
#: the types allowed (a value of another type is only there if someone wrote it there).
_ROUND_NUMBERS = ((6, "dealer card 1", (int, type(None))), (7, "dealer card 2", (int, type(None))),
                  (8, "dealer card 3", (int, type(None))), (9, "misdeal", (bool,)),
                  (16, "total", (int,)))
_SEAT_NUMBERS = ((2, "card 1", (int, type(None))), (3, "card 2", (int, type(None))),
                 (4, "card 3", (int, type(None))), (5, "ante", (int,)), (6, "play", (bool,)),
                 *((i, name, (int,)) for i, name in enumerate(
                     ("pair plus", "six card", "prime", *(f"{c} net" for c in NET_COLUMNS)),
                     start=7)))


def _not_numbers(row: Sequence[Any], where: tuple[tuple[int, str, tuple[type, ...]], ...]
                 ) -> list[str]:
    """The fields of ``row`` that hold a value of the wrong type, as "name holds 'x'"."""
    return [f"{name} holds {row[i]!r}" for i, name, types in where if type(row[i]) not in types]


def _load_rules(session: orm.Session, result: VerifyResult | None
                ) -> tuple[dict[int, RuleSet], dict[int, RuleSetVersion]]:
    rules: dict[int, RuleSet] = {}
    versions = {v.id: v for v in session.scalars(sa.select(RuleSetVersion))}
    for version in versions.values():
        where = f"rule-set version {version.id}"
        try:
            parsed = ruleset_from_json(json.loads(version.rules_json))
        except (ValueError, DomainError) as exc:
            if result is not None:
                result.add(version.created_at, where, f"its stored JSON no longer parses ({exc})")
            continue
        edited = (parsed.content_hash != version.content_hash
                  or sha256_text(version.rules_json) != version.content_hash)
        if edited and result is not None:
            result.add(version.created_at, where,
                       "its JSON no longer matches its hash: the rule set was edited")
        # Re-settle under the rules as stored: an edit shows as wrong payouts too.
        rules[version.id] = parsed
    return rules, versions


# ---------------------------------------------------------------- verify

def _snapshot(session: orm.Session) -> sa.Connection:
    """A connection reading one consistent snapshot for the whole check (whatever the
    session had open is committed first)."""
    if session.in_transaction():
        session.commit()
    bind = session.get_bind()
    options: dict[str, Any] = {}
    if bind.dialect.name == "postgresql":
        options["isolation_level"] = "REPEATABLE READ"
    return session.connection(execution_options=options)


def _event_where(chain: str, seq: int, event_id: int) -> str:
    return f"audit event {chain} #{seq} (id {event_id})"


#: What a chain walk records of an event that carries a digest: (digest, chain, seq,
#: event id, at as iso text); :func:`_where` names it.
_Recorded = tuple[str, str, int, int, str]


def _where(entry: _Recorded) -> str:
    return _event_where(entry[1], entry[2], entry[3])


def _ints(column: Sequence[Any]) -> Sequence[Any]:
    return column if set(map(type, column)) <= {int} else list(map(int_text, column))


@dataclass
class _Walk:
    """Where the walk of one chain stands."""

    chain: str
    expected_seq: int
    running: str
    last_seq: Any
    last_at: str | None = None


def _check_chains(conn: sa.Connection, chains: list[str], since: datetime | None,
                  result: VerifyResult, progress: Progress | None
                  ) -> dict[str, dict[Any, _Recorded]]:
    """Walk every chain; return digests recorded per kind: {kind: {key: _Recorded}} for
    rounds, round events, shifts, movements and rule sets.

    The fast path hashes the event texts the database writes and checks a whole partition
    of events at once; a partition where anything is off (or an event's text could not be
    written) is read again and walked event by event by the reference,
    :func:`_walk_events`, which names each problem."""
    e = AuditEvent.__table__.c
    heads = {row[0]: (int(row[1]), str(row[2])) for row in conn.execute(
        sa.select(ChainHead.chain, ChainHead.seq, ChainHead.hash)
        .where(ChainHead.chain.in_(chains)))}
    recorded: dict[str, dict[Any, _Recorded]] = defaultdict(dict)
    r = log_sql.renderer(conn.dialect)
    sql = log_sql.events_sql(r, since is not None)
    for chain in chains:
        walk = _Walk(chain, 1, GENESIS_HASH, 0)
        params: dict[str, Any] = {"chain": chain}
        if since is not None:
            params["since"] = _time_param(since, conn.dialect)
            first = conn.execute(sa.select(sa.func.min(e.seq)).where(
                e.chain == chain, e.at >= since)).scalar()
            if first is None:  # nothing since: the chain must still end at its head
                first = (conn.execute(sa.select(sa.func.max(e.seq))
                                      .where(e.chain == chain)).scalar() or 0) + 1
            if first > 1:
                walk.expected_seq = int(first)
                before = conn.execute(sa.select(e.hash).where(
                    e.chain == chain, e.seq == first - 1)).scalar()
                walk.running = str(before) if before is not None else ""
        walk.last_seq = walk.expected_seq - 1
        for part in _stream(conn, sql, params):
            result.events += len(part)
            if not (FAST and _prove_events(part, walk, recorded)):
                _walk_events(conn, [row[0] for row in part], walk, recorded, result)
            if progress is not None:
                progress("events", result.events, None)
        head = heads.get(chain)
        result.chains[chain] = (walk.last_seq, walk.running)
        if head is None:
            result.add(walk.last_at, f"audit chain {chain}", "has no head row")
        elif head != (walk.last_seq, walk.running):
            result.add(walk.last_at, f"audit chain {chain}",
                       f"ends at #{walk.last_seq} but its head row says #{head[0]} "
                       f"({head[1][:12]}...): events at the end were deleted or added")
    return recorded


def _stream(conn: sa.Connection, sql: str, params: dict[str, Any]) -> Iterator[list[Any]]:
    """The query's rows, CHUNK at a time, through the driver's own cursor (server-side on
    PostgreSQL, so a million events are never all in memory)."""
    raw = conn.connection
    if conn.dialect.name == "postgresql":
        cursor = raw.dbapi_connection.cursor(name="verify_log_events")  # type: ignore[union-attr]
    else:
        cursor = raw.cursor()
    try:
        cursor.execute(sql, params)
        while part := cursor.fetchmany(CHUNK):
            yield list(part)
    finally:
        cursor.close()


def _prove_events(part: list[Any], walk: _Walk, recorded: dict[str, dict[Any, _Recorded]]
                  ) -> bool:
    """Check a partition of a chain's events as a whole: numbered on from the walk, each
    linking to the one before, each text hashing to its stored hash, no round logged twice.
    If all holds, record their digests, move the walk on and return True; else change
    nothing and return False."""
    (ids, seqs, texts, prevs, hashes, round_ids, digests, stamps, actions, shift_ids,
     payloads) = _transpose(part, 11)
    n = len(ids)
    if None in texts or None in stamps or seqs != list(range(walk.expected_seq,
                                                            walk.expected_seq + n)):
        return False
    if prevs[0] != walk.running or prevs[1:] != hashes[:-1]:
        return False
    sha256 = hashlib.sha256
    try:
        if [sha256((p + t).encode()).hexdigest() for p, t in zip(prevs, texts,
                                                                 strict=True)] != hashes:
            return False
    except TypeError:
        return False
    logged = recorded["round"]
    rounds = [k for k, a in enumerate(actions) if a is None and digests[k] is not None]
    round_keys = [round_ids[k] for k in rounds]
    if len(set(round_keys)) != len(round_keys) or not logged.keys().isdisjoint(round_keys):
        return False  # a round logged twice: the reference names it
    chain = walk.chain
    logged.update(zip(round_keys, [(digests[k], chain, seqs[k], ids[k], stamps[k])
                                   for k in rounds], strict=True))
    for k, action in enumerate(actions):
        if action is not None and digests[k] is not None:
            _record_other(recorded, action, shift_ids[k], payloads[k],
                          (digests[k], chain, seqs[k], ids[k], stamps[k]))
    walk.expected_seq += n
    walk.running = hashes[-1]
    walk.last_seq = seqs[-1]
    walk.last_at = stamps[-1]
    return True


def _walk_events(conn: sa.Connection, event_ids: list[Any], walk: _Walk,
                 recorded: dict[str, dict[Any, _Recorded]], result: VerifyResult) -> None:
    """The reference walk over these events (read again by id), naming every problem."""
    e = AuditEvent.__table__.c
    times = _Times(conn.dialect)
    rows: list[Any] = []
    for start in range(0, len(event_ids), _ID_BATCH):
        rows += conn.execute(
            sa.select(e.id, e.seq, times.column(e.at), e.actor, e.action, e.table_id,
                      e.shift_id, e.round_id, e.digest, e.payload, e.prev_hash, e.hash)
            .where(e.id.in_(event_ids[start:start + _ID_BATCH]))).all()
    rows.sort(key=lambda row: (row[1], row[0]))
    if not rows:
        return
    (ids, seqs, raw_at, actors, actions, table_ids, shift_ids, round_ids, digests,
     payloads, prevs, hashes) = _transpose(rows, 12)
    chain = walk.chain
    stamps = times.texts(raw_at)
    # canonical_event_text, a partition at a time.
    texts = list(map(EVENT_TEMPLATE.__mod__, zip(
        map(json_text, actions), map(json_text, actors), stamps,
        [json_text(chain)] * len(ids), map(json_text, digests), payloads,
        _ints(round_ids), map(int, seqs), _ints(shift_ids), _ints(table_ids),
        strict=True)))
    fresh = [hashlib.sha256((prev + text).encode()).hexdigest()  # chain_hash
             for prev, text in zip(prevs, texts, strict=True)]
    logged = recorded["round"]
    for (event_id, seq, at, actor, action, round_id, digest, prev_hash, stored_hash,
         computed, shift_id, payload) in zip(
            ids, seqs, stamps, actors, actions, round_ids, digests, prevs, hashes,
            fresh, shift_ids, payloads, strict=True):
        where = _event_where(chain, seq, event_id)
        if seq != walk.expected_seq:
            if seq < walk.expected_seq:
                result.add(at, where, "repeats an event number (a row was copied)")
            else:
                result.add(at, where, f"events #{walk.expected_seq}..#{seq - 1} of the chain "
                                      f"are missing (deleted)")
        elif prev_hash != walk.running:
            result.add(at, where, "does not link to the event before it (an event was "
                                  "removed, inserted or reordered)")
        if computed != stored_hash:
            result.add(at, where, f"its content no longer matches its hash ({action} "
                                  f"by {actor} was edited)")
        walk.running, walk.expected_seq, walk.last_seq, walk.last_at = (
            stored_hash, seq + 1, seq, at)
        if digest is not None:
            entry = (digest, chain, seq, event_id, at)
            if action == "round.logged":
                if round_id in logged:
                    result.add(at, where, f"logs round id {round_id} a second time (it was "
                                          f"logged by {_where(logged[round_id])})")
                else:
                    logged[round_id] = entry
            else:
                _record_other(recorded, action, shift_id, payload, entry)


def _record_other(recorded: dict[str, dict[Any, _Recorded]], action: str, shift_id: Any,
                  payload: str, entry: _Recorded) -> None:
    kind = action.split(".")[0]
    if kind == "round":
        recorded["round_event"][json.loads(payload).get("round_event_id")] = entry
    elif action == "shift.opened":
        recorded["shift_open"][shift_id] = entry
    elif action == "shift.closed":
        recorded["shift_close"][shift_id] = entry
    elif action in ("shift.fill", "shift.credit"):
        recorded["movement"][json.loads(payload).get("movement_id")] = entry
    elif action == "ruleset.added":
        recorded["ruleset"][json.loads(payload).get("ruleset_version_id")] = entry


def verify_log(session: orm.Session, table: str | None = None, since: datetime | None = None,
               *, progress: Progress | None = None, workers: int = 0) -> VerifyResult:
    """Recompute every chain and re-settle every round (of ``table``, logged at or after
    ``since``); see the module docstring. Read-only. Returns a :class:`VerifyResult`.

    ``workers``: processes that may check rounds while this one walks the chains, if there
    are more than :data:`PARALLEL_FROM` rounds (they are started with ``spawn``: a script
    that asks for them needs the ``if __name__ == "__main__"`` guard)."""
    started = time.perf_counter()
    result = VerifyResult()
    with guard(session):
        try:
            conn = _snapshot(session)
            tables = {row[0]: row[1] for row in conn.execute(
                sa.select(GamingTable.id, GamingTable.name))}
            if table is not None:
                only = find_table(session, table).id
                table_ids: list[int] | None = [only]
                chains = [table_chain(only), FLOOR_CHAIN]
            else:
                table_ids = None
                chains = [FLOOR_CHAIN, *(table_chain(t) for t in sorted(tables))]
                # Chains whose table row vanished still get checked.
                chains += [c for (c,) in conn.execute(sa.select(ChainHead.chain))
                           if c not in chains]
            rules, versions = _load_rules(session, result)
            checked = _start_rounds(conn, table_ids, since, rules, workers)
            recorded = _check_chains(conn, chains, since, result, progress)
            _check_rulesets(versions, recorded["ruleset"], result, since)
            _check_rounds(conn, tables, table_ids, since, rules, recorded["round"], result,
                          progress, checked)
            _check_records(session, table_ids, since, recorded, result)
            for at, where, what in check_drops(session, table_ids=table_ids, since=since):
                result.add(at, where, what)
        finally:
            session.rollback()
    if table is not None:
        result.head = result.chains[chains[0]][1]
    else:
        lines = "".join(f"{c}:{n}:{h}\n" for c, (n, h) in sorted(result.chains.items()))
        result.head = sha256_text(lines)
    result.seconds = time.perf_counter() - started
    return result


def _check_rulesets(versions: dict[int, RuleSetVersion], recorded: dict[Any, _Recorded],
                    result: VerifyResult, since: datetime | None) -> None:
    for version in versions.values():
        if since is not None and version.created_at < since:
            continue
        entry = recorded.get(version.id)
        if entry is None:
            result.add(version.created_at, f"rule-set version {version.id}",
                       "has no ruleset.added audit event (inserted behind the log's back)")
        elif entry[0] != version.content_hash:
            result.add(version.created_at, f"rule-set version {version.id}",
                       f"its hash differs from the one {_where(entry)} recorded: the rule set "
                       f"was replaced")


def _round_where(tables: dict[int, str], rnd: Sequence[Any]) -> str:
    name = tables.get(rnd[1], f"id {rnd[1]}")
    return f"table {name} round #{rnd[2]} (round id {rnd[0]})"


def _digests(chunk: _Chunk, fast: _Fast | None) -> list[str]:
    """Each round's :func:`round_digest` (``at`` already its iso text)."""
    if fast is not None:
        round_texts = encode_rows(chunk.round_cols, _ROUND_KINDS)
        seat_texts = encode_rows(chunk.seat_cols[1:], _SEAT_KINDS)
        if round_texts is not None and seat_texts is not None:
            # Seats come in strictly increasing seat order: sorted() would keep it.
            return [digest_of_texts(text, seat_texts[a:b]) for text, a, b in zip(
                round_texts, fast.starts.tolist(), fast.ends.tolist(), strict=True)]
    seats = chunk.seats
    return [sha256_text(canonical_json([list(rnd), sorted(list(s) for s in seats.get(
        rnd[0], ()))])) for rnd in chunk.rounds]


def _seat_totals(chunk: _Chunk | None, fast: _Fast | None) -> tuple[list[int], list[int]]:
    """Per round: how many seats, and the sum of their nets."""
    if fast is not None:
        counts = fast.ends - fast.starts
        running = np.concatenate([[0], np.cumsum(fast.numbers[:, 5:11].sum(axis=1))])
        return counts.tolist(), (running[fast.ends] - running[fast.starts]).tolist()
    assert chunk is not None
    seats = chunk.seats
    rows = [seats.get(rnd[0], []) for rnd in chunk.rounds]
    return [len(r) for r in rows], [sum(v for s in r for v in s[10:16] if type(v) is int)
                                    for r in rows]


#: One chunk of rounds as checked: ids, table ids, serials, seat counts, and per round the
#: digest of its texts if everything but the digest proved well (None: not proven).
Checked = tuple[list[Any], list[Any], list[Any], list[int], list[str | None]]


def _check_rounds(conn: sa.Connection, tables: dict[int, str], table_ids: list[int] | None,
                  since: datetime | None, rules: dict[int, RuleSet],
                  recorded: dict[Any, _Recorded], result: VerifyResult,
                  progress: Progress | None, checked: Iterator[Checked]) -> None:
    """Every round: the fast path proves most rounds well from the texts the database
    writes (``checked``); every round it cannot prove is read again and checked (and its
    problems named) by the reference path, :func:`_report_rounds`."""
    serial_tables: list[npt.NDArray[np.int64]] = []
    serial_numbers: list[npt.NDArray[np.int64]] = []
    for ids, table_of, serials, counts, verdicts in checked:
        unproven = []
        for round_id, digest in zip(ids, verdicts, strict=True):
            entry = recorded.get(round_id)
            if digest is not None and entry is not None and entry[0] == digest:
                del recorded[round_id]
            else:
                unproven.append(round_id)
        if unproven:
            for chunk in _round_chunks(conn, None, None, None, ids=unproven):
                _report_rounds(chunk, tables, rules, recorded, result)
        serial_tables.append(_int64(table_of))
        serial_numbers.append(_int64(serials))
        result.rounds += len(ids)
        result.seats += sum(counts)
        if progress is not None:
            progress("rounds", result.rounds, None)
    _check_serials(conn, tables, table_ids, since, serial_tables, serial_numbers, result)
    if table_ids is None:
        _check_orphan_seats(conn, since, result)
    # Every round seen popped its own entry: what is left was logged but is not there.
    for round_id, entry in recorded.items():
        result.add(entry[4], f"round id {round_id}",
                   f"was logged by {_where(entry)} but is missing from the rounds table "
                   f"(deleted)")


#: Whether :func:`verify_log` takes the fast path (tests turn it off to compare).
FAST = True
#: From how many rounds on :func:`verify_log` checks rounds in worker processes too.
PARALLEL_FROM = 200_000


def _start_rounds(conn: sa.Connection, table_ids: list[int] | None, since: datetime | None,
                  rules: dict[int, RuleSet], workers: int) -> Iterator[Checked]:
    """Begin checking the rounds: in worker processes (they start now, so they work while
    this process walks the chains), or lazily here."""
    if not FAST:
        return _checked_by_reference(conn, table_ids, since)
    queries = RoundQueries.build(conn.dialect, table_ids, since)
    bounds = _chunk_bounds(conn, queries)
    if workers > 0 and len(bounds) * CHUNK > PARALLEL_FROM:
        from . import verify_workers

        return verify_workers.start(conn, queries, bounds, rules, workers)
    return _checked_here(conn, queries, bounds, rules)


def _int64(column: Sequence[Any]) -> npt.NDArray[np.int64]:
    """The column as int64 (a value that is no int, only in a tampered log, as -1)."""
    try:
        return np.array(column, dtype=np.int64).reshape(len(column))
    except (TypeError, ValueError, OverflowError):
        return np.array([v if type(v) is int and abs(v) < 2 ** 62 else -1 for v in column],
                        dtype=np.int64)


def _filters(r: log_sql.Renderer, table_ids: list[int] | None, since: datetime | None,
             params: dict[str, Any], dialect: sa.Dialect) -> str:
    filters = ""
    if table_ids is not None:
        filters += f" AND r.table_id IN ({', '.join(str(int(t)) for t in table_ids)})"
    if since is not None:
        filters += f" AND r.at >= {r.param('since')}"
        params["since"] = _time_param(since, dialect)
    return filters


def _time_param(at: datetime, dialect: sa.Dialect) -> Any:
    """``at`` as the driver takes it for comparing with a stored time (SQLite compares the
    stored text, so the same text as SQLAlchemy stores)."""
    if dialect.name == "sqlite":
        return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    return at


@dataclass(frozen=True)
class RoundQueries:
    """The fast path's queries for one engine and one choice of table and time."""

    rounds: str
    seats: str
    end: str
    last: str
    params: dict[str, Any]

    @classmethod
    def build(cls, dialect: sa.Dialect, table_ids: list[int] | None,
              since: datetime | None) -> RoundQueries:
        r = log_sql.renderer(dialect)
        params: dict[str, Any] = {}
        filters = _filters(r, table_ids, since, params, dialect)
        return cls(log_sql.rounds_sql(r, filters), log_sql.seats_sql(r, filters),
                   log_sql.chunk_end_sql(r, filters, CHUNK), log_sql.last_id_sql(r, filters),
                   params)


def _chunk_bounds(conn: sa.Connection, queries: RoundQueries) -> list[tuple[int, int]]:
    """(first id, last id) of each CHUNK of rounds, in this snapshot."""
    bounds = []
    cursor = conn.connection.cursor()
    try:
        last = 0
        while True:
            cursor.execute(queries.end, {**queries.params, "last": last})
            row = cursor.fetchone()
            if row is None:
                break
            bounds.append((last + 1, row[0]))
            last = row[0]
        cursor.execute(queries.last, {**queries.params, "last": last})
        row = cursor.fetchone()
        if row is not None and row[0] is not None:
            bounds.append((last + 1, row[0]))
    finally:
        cursor.close()
    return bounds


def read_chunk(cursor: Any, queries: RoundQueries, lo: int, hi: int) -> list[list[Any]]:
    """Rounds with ``lo <= id <= hi`` column by column as :func:`log_sql.rounds_sql` selects
    them, then their seat counts and their seats' texts joined by commas (None if a seat's
    text is NULL), read with the driver's own ``cursor``."""
    span = {**queries.params, "lo": lo, "hi": hi}
    cursor.execute(queries.rounds, span)
    rounds = cursor.fetchall()
    if not rounds:
        return [[] for _ in range(12)]
    cursor.execute(queries.seats, span)
    seats = cursor.fetchall()
    cols = _transpose(rounds, len(rounds[0]))
    return [*cols, *_group_seats(cols[0], seats)]


def check_chunk(cols: list[list[Any]], rules: dict[int, RuleSet]) -> Checked:
    """A chunk read by :func:`read_chunk`, checked: see :data:`Checked`."""
    return cols[0], cols[1], cols[2], cols[10], _verdicts(cols, rules)


def _checked_here(conn: sa.Connection, queries: RoundQueries, bounds: list[tuple[int, int]],
                  rules: dict[int, RuleSet]) -> Iterator[Checked]:
    """The chunks checked in this process."""
    cursor = conn.connection.cursor()
    try:
        for lo, hi in bounds:
            yield check_chunk(read_chunk(cursor, queries, lo, hi), rules)
    finally:
        cursor.close()


def _group_seats(round_ids: list[Any], seats: list[Any]) -> tuple[list[int], list[Any]]:
    """Per round: its seat count and its seats' texts joined by commas (None if one is
    NULL)."""
    seat_rids, texts = _transpose(seats, 2)
    rids = _int64(round_ids)
    owners = _int64(seat_rids)
    starts = np.searchsorted(owners, rids, "left").tolist()
    ends = np.searchsorted(owners, rids, "right").tolist()
    counts = [b - a for a, b in zip(starts, ends, strict=True)]
    if None not in texts:
        return counts, [",".join(texts[a:b]) for a, b in zip(starts, ends, strict=True)]
    joined = []
    for a, b in zip(starts, ends, strict=True):
        part = texts[a:b]
        joined.append(None if None in part else ",".join(part))
    return counts, joined


def _checked_by_reference(conn: sa.Connection, table_ids: list[int] | None,
                          since: datetime | None) -> Iterator[Checked]:
    """Every round unproven, for the reference path alone (tests compare the two)."""
    for chunk in _round_chunks(conn, table_ids, since, None):
        counts: dict[int, int] = defaultdict(int)
        for rid in chunk.seat_cols[0]:
            counts[rid] += 1
        ids = chunk.round_cols[0]
        yield (ids, chunk.round_cols[1], chunk.round_cols[2], [counts[i] for i in ids],
               [None] * len(ids))


def _verdicts(cols: list[list[Any]], rules: dict[int, RuleSet]) -> list[str | None]:
    """Per round of the chunk, the digest of the texts the database wrote for it, if its rule
    set is readable, the numbers of that same text re-settle to the stored nets and the
    nets add up to the stored total; else None. (The digest is then compared with the one
    its ``round.logged`` event recorded.)"""
    ids, versions, totals, round_texts, seat_texts = (cols[i] for i in (0, 3, 8, 9, 11))
    verdicts: list[str | None] = [None] * len(ids)
    try:
        layout = _text_layout(cols)
    except (TypeError, ValueError, OverflowError):
        layout = None
    if layout is None:
        return verdicts
    fast, keep = layout
    wrong = {item[0] for item in _fast_mismatches(fast, rules)}
    _, sums = _seat_totals(None, fast)
    sha256 = hashlib.sha256
    for k, i in enumerate(keep):
        if versions[i] in rules and ids[i] not in wrong and sums[k] == totals[i]:
            verdicts[i] = sha256(f"[{round_texts[i]},[{seat_texts[i]}]]".encode()).hexdigest()
    return verdicts


def _text_layout(cols: list[list[Any]]) -> tuple[_Fast, list[int]] | None:
    """The chunk's rounds whose texts all rendered, laid out for :func:`_fast_mismatches`
    with the numbers read from those same seat texts (None: the chunk holds values the fast
    path does not take; only a tampered log has them)."""
    ids, versions, misdeal, d1, d2, d3 = (cols[i] for i in (0, 3, 4, 5, 6, 7))
    round_texts, counts, seat_texts = cols[9], cols[10], cols[11]
    keep = [i for i, (rt, st, n) in enumerate(zip(round_texts, seat_texts, counts,
                                                   strict=True))
            if rt is not None and st is not None and n > 0]
    numbers = log_sql.parse_seat_numbers([seat_texts[i] for i in keep],
                                         [counts[i] for i in keep])
    if not isinstance(numbers, str):
        # Some round's text does not split into its numbers: leave it out, try again.
        keep = [i for i, whole in zip(keep, numbers, strict=True) if whole]
        numbers = log_sql.parse_seat_numbers([seat_texts[i] for i in keep],
                                             [counts[i] for i in keep])
        if not isinstance(numbers, str):
            return None
    n = np.array([counts[i] for i in keep], dtype=np.int64)
    width = log_sql.SEAT_NUMBERS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            flat = np.fromstring(numbers, dtype=np.int64, sep=",") if keep else \
                np.zeros(0, dtype=np.int64)
        except (ValueError, DeprecationWarning):
            return None
    if flat.size != width * int(n.sum()):
        return None
    seats = flat.reshape(-1, width)
    if len(seats) and (int(np.abs(seats).max()) >= 2 ** 46):
        return None  # nets so large a round's sum could wrap: the reference path decides
    ends = np.cumsum(n)
    starts = ends - n
    seat_no = seats[:, 0]
    # Seats strictly increasing within each round (else: the reference path).
    same = np.ones(len(seat_no), dtype=bool)
    same[starts] = False
    if len(seat_no) and bool(np.any(same[1:] & (seat_no[1:] <= seat_no[:-1]))):
        return None
    dealer = np.stack([_int64([d1[i] for i in keep]), _int64([d2[i] for i in keep]),
                       _int64([d3[i] for i in keep])], axis=1).reshape(len(keep), 3)
    cards = seats[:, 1:4]
    fast = _Fast(round_ids=[ids[i] for i in keep], seat_no=seat_no, starts=starts, ends=ends,
                 numbers=seats[:, 4:15], cards=np.where(cards < 0, 0, cards),
                 cards_null=np.asarray((cards < 0).any(axis=1)),
                 dealer=np.where(dealer < 0, 0, dealer),
                 dealer_null=np.asarray((dealer < 0).any(axis=1)),
                 misdeal=_int64([misdeal[i] for i in keep]) != 0,
                 versions=_int64([versions[i] for i in keep]))
    return fast, keep


def _check_orphan_seats(conn: sa.Connection, since: datetime | None,
                        result: VerifyResult) -> None:
    """Seat entries whose round is gone (with foreign keys off, as an attacker could)."""
    orphans = conn.execute(
        sa.select(_S.round_id, sa.func.count()).select_from(
            SeatEntry.__table__.outerjoin(Round.__table__, _R.id == _S.round_id))
        .where(_R.id.is_(None)).group_by(_S.round_id).order_by(_S.round_id).limit(100)).all()
    for round_id, count in orphans:
        result.add("", f"seat entries of round id {round_id}",
                   f"{count} seat row{'s' if count != 1 else ''} without a round (the round "
                   f"row was deleted or never logged)")


def _report_rounds(chunk: _Chunk, tables: dict[int, str], rules: dict[int, RuleSet],
                   recorded: dict[Any, _Recorded], result: VerifyResult) -> None:
    """The reference check of a chunk of rounds, naming every problem found."""
    fast = _fast_layout(chunk)
    wrong: dict[int, tuple[int, int, int, int, int]] = {}
    found = (_fast_mismatches(fast, rules) if fast is not None
             else _reference_mismatches(chunk, rules))
    for item in found:
        wrong.setdefault(item[0], item)
    digests = _digests(chunk, fast)
    counts, sums = _seat_totals(chunk, fast)
    for rnd, digest, count, total in zip(chunk.rounds, digests, counts, sums, strict=True):
        round_id = rnd[0]
        entry = recorded.pop(round_id, None)
        if (count and rnd[4] in rules and round_id not in wrong and total == rnd[16]
                and entry is not None and entry[0] == digest):
            continue
        at, where = rnd[_AT], _round_where(tables, rnd)
        for what in _not_numbers(rnd, _ROUND_NUMBERS):
            result.add(at, where, f"{what}, which is not what the log writes there")
        for seat in chunk.seats.get(round_id, ()):
            for what in _not_numbers(seat, _SEAT_NUMBERS):
                result.add(at, where, f"seat {seat[0]} {what}, which is not what the log "
                                      f"writes there")
        if not count:
            result.add(at, where, "has no seats (its seat entries were deleted)")
        if rnd[4] not in rules:
            result.add(at, where, f"points at rule-set version {rnd[4]}, which is "
                                  f"missing or unreadable")
        bad = wrong.get(round_id)
        if bad is not None:
            result.add(at, where, f"seat {bad[1]} {NET_COLUMNS[bad[2]]} net is {bad[3]}"
                                  f" in the log but settles to {bad[4]}")
        if count and total != rnd[16]:
            result.add(at, where, f"stored total {rnd[16]} is not the sum of its "
                                  f"seats' nets ({total})")
        if entry is None:
            result.add(at, where, "has no round.logged audit event (inserted or "
                                  "re-numbered behind the log's back)")
        elif entry[0] != digest:
            result.add(at, where, f"differs from what {_where(entry)} recorded (its "
                                  f"cards, stakes, nets or fields were changed)")


def _check_serials(conn: sa.Connection, tables: dict[int, str], table_ids: list[int] | None,
                   since: datetime | None, serial_tables: list[npt.NDArray[np.int64]],
                   serial_numbers: list[npt.NDArray[np.int64]], result: VerifyResult) -> None:
    """Serials 1, 2, 3... per table (from the first one since ``since``), no gap or repeat."""
    if not serial_tables:
        return
    table_of = np.concatenate(serial_tables)
    numbers = np.concatenate(serial_numbers)
    order = np.lexsort((numbers, table_of))
    table_of, numbers = table_of[order], numbers[order]
    bounds = np.flatnonzero(np.diff(table_of)) + 1
    for lo, hi in zip([0, *bounds.tolist()], [*bounds.tolist(), len(numbers)], strict=True):
        table_id = int(table_of[lo])
        ordered = numbers[lo:hi]
        start = 1 if since is None else int(ordered[0])
        expected = np.arange(start, start + len(ordered))
        if not np.array_equal(ordered, expected):
            pos = int(np.flatnonzero(ordered != expected)[0])
            name = tables.get(table_id, f"id {table_id}")
            if pos > 0 and ordered[pos] == ordered[pos - 1]:
                what = f"serial #{ordered[pos]} appears twice"
            else:
                what = f"round #{expected[pos]} is missing (serials jump to #{ordered[pos]})"
            result.add(_first_stamp(conn, table_ids, since, table_id, int(ordered[pos])),
                       f"table {name}", what)


def _first_stamp(conn: sa.Connection, table_ids: list[int] | None, since: datetime | None,
                 table_id: int, serial: int) -> str:
    """The time of the first round (by id) read with this table and serial."""
    times = _Times(conn.dialect)
    query = (sa.select(times.column(_R.at)).where(_R.table_id == table_id,
                                                  _R.serial == serial)
             .order_by(_R.id).limit(1))
    if table_ids is not None:
        query = query.where(_R.table_id.in_(table_ids))
    if since is not None:
        query = query.where(_R.at >= since)
    raw = conn.execute(query).all()
    return times.texts([raw[0][0]])[0] if raw else ""


def _check_records(session: orm.Session, table_ids: list[int] | None, since: datetime | None,
                   recorded: dict[str, dict[Any, _Recorded]], result: VerifyResult) -> None:
    """Voids, corrections, misdeals, shifts and chip movements against their events."""
    def check(kind: str, key: Any, at: datetime, where: str, digest: str) -> None:
        entry = recorded[kind].pop(key, None)
        if entry is None:
            result.add(at, where, "has no audit event (inserted behind the log's back)")
        elif entry[0] != digest:
            result.add(at, where, f"differs from what {_where(entry)} recorded (it was "
                                  f"changed)")

    events = sa.select(RoundEvent).join(Round, Round.id == RoundEvent.round_id)
    shifts = sa.select(Shift)
    moves = sa.select(ShiftMovement).join(Shift, Shift.id == ShiftMovement.shift_id)
    if table_ids is not None:
        events = events.where(Round.table_id.in_(table_ids))
        shifts = shifts.where(Shift.table_id.in_(table_ids))
        moves = moves.where(Shift.table_id.in_(table_ids))
    if since is not None:
        events = events.where(RoundEvent.at >= since)
        moves = moves.where(ShiftMovement.at >= since)
    for ev in session.scalars(events):
        check("round_event", ev.id, ev.at, f"{ev.kind} {ev.id} of round id {ev.round_id}",
              round_event_digest(ev))
    for shift in session.scalars(shifts):
        if since is None or shift.opened_at >= since:
            check("shift_open", shift.id, shift.opened_at, f"shift {shift.id} (opening)",
                  _open_digest(shift))
        if shift.closed_at is not None and (since is None or shift.closed_at >= since):
            check("shift_close", shift.id, shift.closed_at, f"shift {shift.id} (closing)",
                  _close_digest(shift))
    for move in session.scalars(moves):
        check("movement", move.id, move.at, f"{move.kind} {move.id} of shift {move.shift_id}",
              movement_digest(move))
    for kind, label in (("round_event", "round event"), ("shift_open", "shift"),
                        ("shift_close", "shift closing"), ("movement", "chip movement")):
        for key, entry in recorded[kind].items():
            result.add(entry[4], f"{label} {key}", f"was logged by {_where(entry)} but is "
                                                   f"missing (deleted or changed)")


# ---------------------------------------------------------------- resettle

@dataclass(frozen=True)
class Mismatch:
    """A logged round whose stored payout differs from a fresh settlement."""

    round_id: int
    table: str
    serial: int
    at: datetime
    seat: int
    bet: str
    stored: int
    fresh: int

    def to_json(self) -> dict[str, Any]:
        return {"round_id": self.round_id, "table": self.table, "serial": self.serial,
                "at": self.at.isoformat(), "seat": self.seat, "bet": self.bet,
                "stored": self.stored, "fresh": self.fresh}


def resettle(session: orm.Session, *, since: datetime | None = None,
             until: datetime | None = None, table: str | None = None,
             progress: Progress | None = None) -> tuple[int, list[Mismatch]]:
    """Re-settle every round logged in [since, until) (of ``table``) with the domain's batch
    path; return (rounds checked, every bet whose stored net differs)."""
    if since is not None and until is not None and until <= since:
        raise InvalidInput("--until must be after --since")
    mismatches: list[Mismatch] = []
    count = 0
    with guard(session):
        try:
            conn = _snapshot(session)
            tables = {row[0]: row[1] for row in conn.execute(
                sa.select(GamingTable.id, GamingTable.name))}
            table_ids = None if table is None else [find_table(session, table).id]
            rules, _ = _load_rules(session, None)
            for chunk in _round_chunks(conn, table_ids, since, until):
                count += len(chunk.rounds)
                info = {rnd[0]: rnd for rnd in chunk.rounds}
                for round_id, seat, col, stored, fresh in _batch_mismatches(chunk, rules):
                    rnd = info[round_id]
                    mismatches.append(Mismatch(round_id, tables.get(rnd[1], str(rnd[1])),
                                               rnd[2], datetime.fromisoformat(rnd[_AT]), seat, NET_COLUMNS[col], stored,
                                               fresh))
                if progress is not None:
                    progress("rounds", count, None)
        finally:
            session.rollback()
    return count, mismatches


__all__ = ["Mismatch", "Problem", "VerifyResult", "resettle", "verify_log"]
