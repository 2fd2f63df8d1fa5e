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
4. every void, correction, misdeal, shift and chip movement matches its event's digest.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.domain.batch import NET_COLUMNS, settle_batch
from dealer_assist.domain.errors import DomainError
from dealer_assist.domain.rulesets import RuleSet, ruleset_from_json
from dealer_assist.store.audit import (
    canonical_event,
    chain_hash,
    iso,
    round_digest,
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

from ._base import find_table, guard
from .errors import InvalidInput
from .rounds import round_event_digest
from .shifts import _close_digest, _open_digest, movement_digest

#: Rounds read and checked per batch.
CHUNK = 20_000
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

_R = Round.__table__.c
_S = SeatEntry.__table__.c
_ROUND_COLS = (_R.id, _R.table_id, _R.serial, _R.shift_id, _R.ruleset_version_id,
               _R.dealer_cards, _R.dealer_c1, _R.dealer_c2, _R.dealer_c3, _R.misdeal,
               _R.misdeal_reason, _R.entered_by_id, _R.at, _R.source, _R.photo_sha256,
               _R.idempotency_key, _R.total)
_SEAT_COLS = (_S.round_id, _S.seat, _S.cards, _S.c1, _S.c2, _S.c3, _S.ante, _S.play,
              _S.pair_plus, _S.six_card, _S.prime, _S.net_ante, _S.net_play, _S.net_ante_bonus,
              _S.net_pair_plus, _S.net_six_card, _S.net_prime)


@dataclass
class _Chunk:
    rounds: list[Sequence[Any]]
    seats: dict[int, list[Sequence[Any]]]


def _round_chunks(conn: sa.Connection, table_ids: list[int] | None, since: datetime | None,
                  until: datetime | None) -> Iterator[_Chunk]:
    """Rounds in id order, CHUNK at a time, each with its seat rows (round_id dropped)."""
    last = 0
    while True:
        query = sa.select(*_ROUND_COLS).where(_R.id > last).order_by(_R.id).limit(CHUNK)
        if table_ids is not None:
            query = query.where(_R.table_id.in_(table_ids))
        if since is not None:
            query = query.where(_R.at >= since)
        if until is not None:
            query = query.where(_R.at < until)
        rounds = conn.execute(query).all()
        if not rounds:
            return
        lo, hi = rounds[0][0], rounds[-1][0]
        seats: dict[int, list[Sequence[Any]]] = defaultdict(list)
        for row in conn.execute(sa.select(*_SEAT_COLS).where(_S.round_id.between(lo, hi))
                                .order_by(_S.round_id, _S.seat)):
            seats[row[0]].append(row[1:])
        yield _Chunk(list(rounds), seats)
        last = hi


_DUMMY_DEALER = (0, 1, 2)
_DUMMY_PLAYER = (3, 4, 5)


def _batch_mismatches(chunk: _Chunk, rules: dict[int, RuleSet]
                      ) -> list[tuple[int, int, int, int, int]]:
    """Every stored net of the chunk that differs from a fresh settlement through the
    domain's batch path: (round id, seat, net column, stored, fresh), in round order."""
    groups: dict[int, list[tuple[int, Sequence[Any], Sequence[Any]]]] = defaultdict(list)
    for rnd in chunk.rounds:
        if rnd[4] in rules:
            for seat in chunk.seats.get(rnd[0], ()):
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


def _check_chains(conn: sa.Connection, chains: list[str], since: datetime | None,
                  result: VerifyResult, progress: Progress | None
                  ) -> dict[str, dict[Any, tuple[str, str, int, datetime]]]:
    """Walk every chain; return digests recorded per kind: {kind: {key: (digest, where,
    seq, at)}} for rounds, round events, shifts, movements and rule sets."""
    e = AuditEvent.__table__.c
    heads = {row[0]: (int(row[1]), str(row[2])) for row in conn.execute(
        sa.select(ChainHead.chain, ChainHead.seq, ChainHead.hash)
        .where(ChainHead.chain.in_(chains)))}
    recorded: dict[str, dict[Any, tuple[str, str, int, datetime]]] = defaultdict(dict)
    for chain in chains:
        query = (sa.select(e.id, e.seq, e.at, e.actor, e.action, e.table_id, e.shift_id,
                           e.round_id, e.digest, e.payload, e.prev_hash, e.hash)
                 .where(e.chain == chain).order_by(e.seq))
        expected_seq, running = 1, GENESIS_HASH
        if since is not None:
            query = query.where(e.at >= since)
            first = conn.execute(sa.select(sa.func.min(e.seq)).where(
                e.chain == chain, e.at >= since)).scalar()
            if first is None:  # nothing since: the chain must still end at its head
                first = (conn.execute(sa.select(sa.func.max(e.seq))
                                      .where(e.chain == chain)).scalar() or 0) + 1
            if first > 1:
                expected_seq = int(first)
                before = conn.execute(sa.select(e.hash).where(
                    e.chain == chain, e.seq == first - 1)).scalar()
                running = str(before) if before is not None else ""
        last_seq, last_at = expected_seq - 1, None
        result_rows = conn.execution_options(yield_per=CHUNK).execute(query)
        for (event_id, seq, at, actor, action, table_id, shift_id, round_id, digest, payload,
             prev_hash, stored_hash) in result_rows:
            result.events += 1
            where = _event_where(chain, seq, event_id)
            if seq != expected_seq:
                if seq < expected_seq:
                    result.add(at, where, "repeats an event number (a row was copied)")
                else:
                    result.add(at, where, f"events #{expected_seq}..#{seq - 1} of the chain "
                                          f"are missing (deleted)")
            elif prev_hash != running:
                result.add(at, where, "does not link to the event before it (an event was "
                                      "removed, inserted or reordered)")
            text = canonical_event(chain=chain, seq=seq, at=at, actor=actor, action=action,
                                   table_id=table_id, shift_id=shift_id, round_id=round_id,
                                   digest=digest, payload=payload)
            if chain_hash(prev_hash, text) != stored_hash:
                result.add(at, where, f"its content no longer matches its hash ({action} "
                                      f"by {actor} was edited)")
            running, expected_seq, last_seq, last_at = stored_hash, seq + 1, seq, at
            if digest is not None:
                kind = action.split(".")[0]
                if action == "round.logged":
                    recorded["round"][round_id] = (digest, where, seq, at)
                elif kind == "round":
                    data = json.loads(payload)
                    recorded["round_event"][data.get("round_event_id")] = (digest, where, seq,
                                                                          at)
                elif action == "shift.opened":
                    recorded["shift_open"][shift_id] = (digest, where, seq, at)
                elif action == "shift.closed":
                    recorded["shift_close"][shift_id] = (digest, where, seq, at)
                elif action in ("shift.fill", "shift.credit"):
                    recorded["movement"][json.loads(payload).get("movement_id")] = (
                        digest, where, seq, at)
                elif action == "ruleset.added":
                    recorded["ruleset"][json.loads(payload).get("ruleset_version_id")] = (
                        digest, where, seq, at)
            if progress is not None and result.events % 50_000 == 0:
                progress("events", result.events, None)
        head = heads.get(chain)
        result.chains[chain] = (last_seq, running)
        if head is None:
            result.add(last_at, f"audit chain {chain}", "has no head row")
        elif head != (last_seq, running):
            result.add(last_at, f"audit chain {chain}",
                       f"ends at #{last_seq} but its head row says #{head[0]} "
                       f"({head[1][:12]}...): events at the end were deleted or added")
    return recorded


def verify_log(session: orm.Session, table: str | None = None, since: datetime | None = None,
               *, progress: Progress | None = None) -> VerifyResult:
    """Recompute every chain and re-settle every round (of ``table``, logged at or after
    ``since``); see the module docstring. Read-only. Returns a :class:`VerifyResult`."""
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
            recorded = _check_chains(conn, chains, since, result, progress)
            _check_rulesets(versions, recorded["ruleset"], result, since)
            _check_rounds(conn, tables, table_ids, since, rules, recorded["round"], result,
                          progress)
            _check_records(session, table_ids, since, recorded, result)
        finally:
            session.rollback()
    if table is not None:
        result.head = result.chains[chains[0]][1]
    else:
        lines = "".join(f"{c}:{n}:{h}\n" for c, (n, h) in sorted(result.chains.items()))
        result.head = sha256_text(lines)
    result.seconds = time.perf_counter() - started
    return result


def _check_rulesets(versions: dict[int, RuleSetVersion],
                    recorded: dict[Any, tuple[str, str, int, datetime]], result: VerifyResult,
                    since: datetime | None) -> None:
    for version in versions.values():
        if since is not None and version.created_at < since:
            continue
        entry = recorded.get(version.id)
        if entry is None:
            result.add(version.created_at, f"rule-set version {version.id}",
                       "has no ruleset.added audit event (inserted behind the log's back)")
        elif entry[0] != version.content_hash:
            result.add(version.created_at, f"rule-set version {version.id}",
                       f"its hash differs from the one {entry[1]} recorded: the rule set "
                       f"was replaced")


def _round_where(tables: dict[int, str], rnd: Sequence[Any]) -> str:
    name = tables.get(rnd[1], f"id {rnd[1]}")
    return f"table {name} round #{rnd[2]} (round id {rnd[0]})"


def _check_rounds(conn: sa.Connection, tables: dict[int, str], table_ids: list[int] | None,
                  since: datetime | None, rules: dict[int, RuleSet],
                  recorded: dict[Any, tuple[str, str, int, datetime]], result: VerifyResult,
                  progress: Progress | None) -> None:
    seen: set[int] = set()
    serials: dict[int, list[int]] = defaultdict(list)
    stamps: dict[tuple[int, int], datetime] = {}
    for chunk in _round_chunks(conn, table_ids, since, None):
        wrong: dict[int, tuple[int, int, int, int, int]] = {}
        for item in _batch_mismatches(chunk, rules):
            wrong.setdefault(item[0], item)
        for rnd in chunk.rounds:
            round_id = rnd[0]
            seen.add(round_id)
            serials[rnd[1]].append(rnd[2])
            stamps.setdefault((rnd[1], rnd[2]), rnd[12])
            seats = chunk.seats.get(round_id, [])
            result.rounds += 1
            result.seats += len(seats)
            where = _round_where(tables, rnd)
            if not seats:
                result.add(rnd[12], where, "has no seats (its seat entries were deleted)")
            if rnd[4] not in rules:
                result.add(rnd[12], where, f"points at rule-set version {rnd[4]}, which is "
                                           f"missing or unreadable")
            bad = wrong.get(round_id)
            if bad is not None:
                result.add(rnd[12], where, f"seat {bad[1]} {NET_COLUMNS[bad[2]]} net is {bad[3]}"
                                           f" in the log but settles to {bad[4]}")
            total = sum(sum(s[10:16]) for s in seats)
            if seats and total != rnd[16]:
                result.add(rnd[12], where, f"stored total {rnd[16]} is not the sum of its "
                                           f"seats' nets ({total})")
            entry = recorded.pop(round_id, None)
            if entry is None:
                result.add(rnd[12], where, "has no round.logged audit event (inserted or "
                                           "re-numbered behind the log's back)")
            elif entry[0] != round_digest(rnd, seats):
                result.add(rnd[12], where, f"differs from what {entry[1]} recorded (its "
                                           f"cards, stakes, nets or fields were changed)")
        if progress is not None:
            progress("rounds", result.rounds, None)
    for table_id, numbers in serials.items():
        ordered = np.sort(np.array(numbers, dtype=np.int64))
        start = 1 if since is None else int(ordered[0])
        expected = np.arange(start, start + len(ordered))
        if not np.array_equal(ordered, expected):
            pos = int(np.flatnonzero(ordered != expected)[0])
            name = tables.get(table_id, f"id {table_id}")
            if pos > 0 and ordered[pos] == ordered[pos - 1]:
                what = f"serial #{ordered[pos]} appears twice"
            else:
                what = f"round #{expected[pos]} is missing (serials jump to #{ordered[pos]})"
            result.add(stamps.get((table_id, int(ordered[pos])), ""), f"table {name}", what)
    for round_id, (_, where, _, at) in recorded.items():
        if round_id not in seen:
            result.add(at, f"round id {round_id}",
                       f"was logged by {where} but is missing from the rounds table (deleted)")


def _check_records(session: orm.Session, table_ids: list[int] | None, since: datetime | None,
                   recorded: dict[str, dict[Any, tuple[str, str, int, datetime]]],
                   result: VerifyResult) -> None:
    """Voids, corrections, misdeals, shifts and chip movements against their events."""
    def check(kind: str, key: Any, at: datetime, where: str, digest: str) -> None:
        entry = recorded[kind].pop(key, None)
        if entry is None:
            result.add(at, where, "has no audit event (inserted behind the log's back)")
        elif entry[0] != digest:
            result.add(at, where, f"differs from what {entry[1]} recorded (it was changed)")

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
        for key, (_, where, _, at) in recorded[kind].items():
            result.add(at, f"{label} {key}", f"was logged by {where} but is missing "
                                             f"(deleted or changed)")


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
                                               rnd[2], rnd[12], seat, NET_COLUMNS[col], stored,
                                               fresh))
                if progress is not None:
                    progress("rounds", count, None)
        finally:
            session.rollback()
    return count, mismatches


__all__ = ["Mismatch", "Problem", "VerifyResult", "resettle", "verify_log"]
