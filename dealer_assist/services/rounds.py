"""Logging rounds, reading them back, voids and corrections.

:func:`log_round` is the one way a round enters the log: validate and settle through the
domain, then in one transaction take the table's next serial, write the round, its seats
and its audit event, and commit. It is logged completely or not at all. A retried call
with the same idempotency key returns the first result and writes nothing.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy import orm

from dealer_assist.domain.cards import Card
from dealer_assist.domain.errors import DomainError, RoundError
from dealer_assist.domain.round_entry import RoundEntry, SeatEntry, parse_round
from dealer_assist.domain.rulesets import RuleSet, ruleset_from_json
from dealer_assist.domain.settlement import RoundSettlement, settle_round
from dealer_assist.store.audit import (
    append_event,
    canonical_json,
    connection_of,
    lock_head,
    record_digest,
    round_digest,
    sha256_text,
)
from dealer_assist.store.models import (
    SOURCES,
    AuditEvent,
    GamingTable,
    Round,
    RoundEvent,
    RuleSetVersion,
    Shift,
    User,
    table_chain,
    utcnow,
)
from dealer_assist.store.models import (
    SeatEntry as SeatRow,
)

from ._base import (
    UserRef,
    acting_user,
    check_actor,
    find_table,
    guard,
    read,
    rules_from_text,
    write,
)
from .errors import Conflict, InvalidInput, NotFound

#: Roles that may log a round.
LOG_ROLES = ("dealer", "supervisor")
#: Roles that may void or correct a logged round.
REVIEW_ROLES = ("supervisor",)
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class LoggedRound:
    """What :func:`log_round` returns: where the round went and its settlement JSON."""

    round_id: int
    serial: int
    table: str
    shift_id: int
    at: datetime
    settlement_json: dict[str, Any]
    #: True when an earlier call with the same idempotency key logged it (nothing written now).
    replayed: bool = False
    audit_hash: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"round_id": self.round_id, "serial": self.serial, "table": self.table,
                "shift_id": self.shift_id, "at": self.at.isoformat(),
                "replayed": self.replayed, "audit_hash": self.audit_hash,
                "settlement": self.settlement_json}


@dataclass(frozen=True)
class _TableInfo:
    id: int
    name: str
    seats: int
    active: bool
    version_id: int
    rules_json: str
    rules_hash: str


_TABLE_INFO = (
    sa.select(GamingTable.id, GamingTable.name, GamingTable.seats, GamingTable.active,
              RuleSetVersion.id, RuleSetVersion.rules_json, RuleSetVersion.content_hash)
    .join(RuleSetVersion, RuleSetVersion.id == GamingTable.ruleset_version_id)
    .where(GamingTable.name == sa.bindparam("name")))
_OPEN_SHIFT = sa.select(Shift.id).where(Shift.table_id == sa.bindparam("table_id"),
                                        Shift.closed_at.is_(None))
_ROUNDS = cast(sa.Table, Round.__table__)
_INSERT_ROUND = sa.insert(_ROUNDS).returning(_ROUNDS.c.id)
_INSERT_SEATS = sa.insert(cast(sa.Table, SeatRow.__table__))
_KEYED = orm.aliased(Round, name="keyed")
#: Read once the table's chain head is locked: the table as it is now, its open shift, the
#: user logging, and the round an idempotency key already logged (one statement).
_LOCKED_READ = (
    sa.select(GamingTable.id, GamingTable.name, GamingTable.seats, GamingTable.active,
              RuleSetVersion.id, RuleSetVersion.rules_json, RuleSetVersion.content_hash,
              Shift.id, User.id, User.role_list, User.active, _KEYED.id,
              _KEYED.request_sha256)
    .select_from(GamingTable)
    .join(RuleSetVersion, RuleSetVersion.id == GamingTable.ruleset_version_id)
    .outerjoin(Shift, sa.and_(Shift.table_id == GamingTable.id, Shift.closed_at.is_(None)))
    .outerjoin(User, User.name == sa.bindparam("user"))
    .outerjoin(_KEYED, _KEYED.idempotency_key == sa.bindparam("key"))
    .where(GamingTable.name == sa.bindparam("name")))


@dataclass(frozen=True)
class _Who:
    id: int
    name: str


def _table_info(session: orm.Session, name: str) -> _TableInfo:
    row = session.connection().execute(_TABLE_INFO, {"name": name}).one_or_none()
    if row is None:
        raise NotFound(f"no table named {name!r}")
    return _TableInfo(*row)


#: Each table's settings as this process last read them, per engine: what a round is
#: settled by before its write transaction opens. That transaction reads them again under
#: the table's lock and settles again if they changed, and a refusal is never made on a
#: remembered value alone, so an outdated one costs time, never a wrong round.
_SEEN: weakref.WeakKeyDictionary[sa.Engine, dict[str, _TableInfo]] = (
    weakref.WeakKeyDictionary())


def _seen(session: orm.Session) -> dict[str, _TableInfo]:
    engine = session.get_bind().engine
    seen = _SEEN.get(engine)
    if seen is None or len(seen) > 10_000:
        seen = _SEEN[engine] = {}
    return seen


def _cards_text(cards: Sequence[Card]) -> str:
    return " ".join(str(c) for c in cards)


def _indices(cards: Sequence[Card]) -> tuple[int | None, int | None, int | None]:
    if len(cards) != 3:
        return None, None, None
    return cards[0].index, cards[1].index, cards[2].index


def _seat_values(seat: SeatEntry, net: Mapping[str, int]) -> dict[str, Any]:
    c1, c2, c3 = _indices(seat.cards)
    return {"seat": seat.seat, "cards": _cards_text(seat.cards), "c1": c1, "c2": c2, "c3": c3,
            "ante": seat.ante, "play": seat.play, "pair_plus": seat.pair_plus,
            "six_card": seat.six_card, "prime": seat.prime, "net_ante": net["ante"],
            "net_play": net["play"], "net_ante_bonus": net["ante_bonus"],
            "net_pair_plus": net["pair_plus"], "net_six_card": net["six_card"],
            "net_prime": net["prime"]}


_SEAT_ORDER = ("seat", "cards", "c1", "c2", "c3", "ante", "play", "pair_plus", "six_card",
               "prime", "net_ante", "net_play", "net_ante_bonus", "net_pair_plus",
               "net_six_card", "net_prime")


def _settle(round_json: Mapping[str, Any], info: _TableInfo) -> tuple[RoundEntry,
                                                                      RoundSettlement]:
    data = dict(round_json)
    raw_rules = data.pop("rules", None)
    rules: RuleSet = rules_from_text(info.rules_json)
    if raw_rules is not None:
        given = ruleset_from_json(raw_rules)
        if given.content_hash != rules.content_hash:
            raise RoundError(f"rules: table {info.name} settles by its own rule set "
                             f"(version {info.version_id}); a round cannot bring other rules",
                             "rules")
    entry = parse_round(data, rules, info.seats)
    return entry, settle_round(entry, rules)


def _request_hash(table: str, round_json: Mapping[str, Any], source: str,
                  photo: str | None) -> str:
    try:
        text = canonical_json({"table": table, "round": round_json, "source": source,
                               "photo_sha256": photo})
        # UnicodeEncodeError (a ValueError): a lone surrogate ("\ud800") in some text.
        return sha256_text(text)
    except (TypeError, ValueError) as exc:
        raise RoundError(f"the round is not JSON data: {exc}") from exc


_BY_KEY = sa.select(Round.id, Round.request_sha256).where(
    Round.idempotency_key == sa.bindparam("key"))


def _replayed(session: orm.Session, key: str, round_id: int, round_sha: str,
              request_sha: str) -> LoggedRound:
    """What an earlier call with ``key`` logged (round ``round_id``, request ``round_sha``)."""
    if round_sha != request_sha:
        raise Conflict(f"idempotency key {key!r} was already used for a different round "
                       f"(round id {round_id}); nothing was logged")
    return _logged_from_store(session, round_id, replayed=True)


def _replay(session: orm.Session, key: str, request_sha: str) -> LoggedRound | None:
    row = session.connection().execute(_BY_KEY, {"key": key}).one_or_none()
    if row is None:
        return None
    return _replayed(session, key, int(row[0]), str(row[1]), request_sha)


def _entry_from_rows(rnd: Round, seats: Sequence[SeatRow]) -> RoundEntry:
    from dealer_assist.domain.cards import parse_cards

    return RoundEntry(
        dealer=tuple(parse_cards(rnd.dealer_cards)),
        seats=tuple(SeatEntry(seat=s.seat, cards=tuple(parse_cards(s.cards)), ante=s.ante,
                              play=s.play, pair_plus=s.pair_plus, six_card=s.six_card,
                              prime=s.prime) for s in seats),
        misdeal=rnd.misdeal, misdeal_reason=rnd.misdeal_reason)


def _settlement_of(session: orm.Session, rnd: Round) -> tuple[RoundSettlement, bool]:
    """A fresh settlement of the stored round, and whether it equals the stored nets."""
    seats = list(session.scalars(sa.select(SeatRow).where(SeatRow.round_id == rnd.id)
                                 .order_by(SeatRow.seat)))
    version = session.get(RuleSetVersion, rnd.ruleset_version_id)
    assert version is not None
    settlement = settle_round(_entry_from_rows(rnd, seats), rules_from_text(version.rules_json))
    stored = {s.seat: s.net for s in seats}
    fresh = {s.seat: s.net for s in settlement.seats}
    return settlement, stored == fresh


def _logged_from_store(session: orm.Session, round_id: int, *, replayed: bool) -> LoggedRound:
    rnd = session.get(Round, round_id)
    assert rnd is not None
    settlement, _ = _settlement_of(session, rnd)
    event_hash = session.scalar(sa.select(AuditEvent.hash).where(
        AuditEvent.round_id == rnd.id, AuditEvent.action == "round.logged")) or ""
    table_name = session.scalar(sa.select(GamingTable.name).where(GamingTable.id == rnd.table_id))
    return LoggedRound(rnd.id, rnd.serial, str(table_name), rnd.shift_id, rnd.at,
                       settlement.to_json(), replayed, event_hash)


def _insert_round(session: orm.Session | sa.Connection, *, info: _TableInfo, entry: RoundEntry,
                  settlement: RoundSettlement, user: _Who | User, source: str,
                  photo_sha256: str | None, idempotency_key: str | None, request_sha: str,
                  head: tuple[int, str, int], at: datetime | None = None,
                  action: str = "round.logged",
                  extra_payload: dict[str, Any] | None = None,
                  shift_id: int | None = None,
                  settlement_json: dict[str, Any] | None = None,
                  ) -> tuple[LoggedRound, tuple[int, str, int]]:
    """Write one settled round inside the caller's write transaction (head locked).

    ``shift_id``: the table's open shift if the caller read it under the lock;
    ``settlement_json``: ``settlement.to_json()`` if already made (outside the lock).
    """
    conn = connection_of(session)
    if shift_id is None:
        shift_id = conn.execute(_OPEN_SHIFT, {"table_id": info.id}).scalar()
    if shift_id is None:
        raise Conflict(f"table {info.name!r} has no open shift: a supervisor must open one "
                       f"before rounds are logged")
    serial = head[2] + 1
    at = at or utcnow()
    d1, d2, d3 = _indices(entry.dealer)
    values = {"table_id": info.id, "serial": serial, "shift_id": shift_id,
              "ruleset_version_id": info.version_id, "dealer_cards": _cards_text(entry.dealer),
              "dealer_c1": d1, "dealer_c2": d2, "dealer_c3": d3, "misdeal": entry.misdeal,
              "misdeal_reason": entry.misdeal_reason, "entered_by_id": user.id, "at": at,
              "source": source, "photo_sha256": photo_sha256,
              "idempotency_key": idempotency_key, "request_sha256": request_sha,
              "total": settlement.total}
    round_id = int(conn.execute(_INSERT_ROUND, values).scalar_one())
    nets = {s.seat: s.net for s in settlement.seats}
    seat_rows = [_seat_values(seat, nets[seat.seat]) for seat in entry.seats]
    if seat_rows:
        conn.execute(_INSERT_SEATS, [{"round_id": round_id, **row} for row in seat_rows])
    digest = round_digest(
        (round_id, info.id, serial, shift_id, info.version_id, values["dealer_cards"], d1, d2,
         d3, entry.misdeal, entry.misdeal_reason, user.id, at, source, photo_sha256,
         idempotency_key, settlement.total),
        [[row[k] for k in _SEAT_ORDER] for row in seat_rows])
    appended = append_event(
        conn, chain=table_chain(info.id), actor=user.name, action=action, table_id=info.id,
        shift_id=shift_id, round_id=round_id, digest=digest, at=at, head=head,
        round_serial=serial,
        payload={"serial": serial, "total": settlement.total, "seats": len(seat_rows),
                 "misdeal": entry.misdeal, "source": source, **(extra_payload or {})})
    if settlement_json is None:
        settlement_json = settlement.to_json()
    logged = LoggedRound(round_id, serial, info.name, shift_id, at, settlement_json, False,
                         appended.hash)
    return logged, (appended.seq, appended.hash, serial)


def _check_args(source: str, photo_sha256: str | None, idempotency_key: str | None) -> None:
    if source not in SOURCES:
        raise InvalidInput(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
    if photo_sha256 is not None and not _SHA256.fullmatch(photo_sha256):
        raise InvalidInput("photo_sha256 must be 64 lowercase hex digits")
    if idempotency_key is not None and not 1 <= len(idempotency_key) <= 200:
        raise InvalidInput("an idempotency key is 1-200 characters")


@dataclass(frozen=True)
class _Settled:
    """A round settled by its table's settings, before any lock is taken."""

    info: _TableInfo
    entry: RoundEntry
    settlement: RoundSettlement
    settlement_json: dict[str, Any]


def _settled(round_json: Mapping[str, Any], info: _TableInfo) -> _Settled:
    if not info.active:
        raise Conflict(f"table {info.name!r} is closed to play (inactive)")
    entry, settlement = _settle(round_json, info)
    return _Settled(info, entry, settlement, settlement.to_json())


def _presettle(session: orm.Session, table: str, round_json: Mapping[str, Any]) -> _Settled:
    """Validate and settle by the table's settings as last seen (read if never seen).

    A refusal is never made on a remembered value alone: the table is read afresh first.
    """
    seen = _seen(session)
    info = seen.get(table)
    if info is not None:
        try:
            return _settled(round_json, info)
        except (DomainError, Conflict):
            pass  # perhaps the table changed: decide on it as it is now
    with read(session):
        info = _table_info(session, table)
    seen[table] = info
    return _settled(round_json, info)


class _TableChanged(Exception):
    """The table is not as the round was settled and checked by: settle and check again."""


def _log_locked(session: orm.Session, *, table: str, round_json: Mapping[str, Any],
                settled: _Settled, user: str, source: str, photo_sha256: str | None,
                idempotency_key: str | None, request_sha: str,
                checked: bool = False) -> LoggedRound:
    """The write transaction of :func:`log_round`: lock the table's chain head, read what
    the round depends on as it is now (one statement), write round, seats and audit event."""
    info = settled.info
    conn = session.connection()
    head = lock_head(conn, table_chain(info.id))
    row = conn.execute(
        _LOCKED_READ, {"name": table, "user": user, "key": idempotency_key}).one_or_none()
    if row is None:
        _seen(session).pop(table, None)
        raise NotFound(f"no table named {table!r}")
    now = _TableInfo(*row[:7])
    shift_id, user_id, roles, active, keyed_id, keyed_sha = row[7:]
    if now.id != info.id:  # the name belongs to another table now
        _seen(session).pop(table, None)
        raise _TableChanged(table)
    if keyed_id is not None and idempotency_key is not None:
        return _replayed(session, idempotency_key, int(keyed_id), str(keyed_sha), request_sha)
    if user_id is None:
        raise NotFound(f"no user named {user!r}")
    check_actor(user, bool(active), frozenset(r for r in str(roles).split(",") if r),
                *LOG_ROLES, doing="log a round")
    if now != info:  # the rules or seats changed since: settle again (and remember them)
        _seen(session)[table] = now
        if checked:  # the caller's check must see the settlement that is logged
            raise _TableChanged(table)
        settled = _settled(round_json, now)
    if shift_id is None:
        raise Conflict(f"table {table!r} has no open shift: a supervisor must open one "
                       f"before rounds are logged")
    logged, _ = _insert_round(
        conn, info=now, entry=settled.entry, settlement=settled.settlement,
        user=_Who(int(user_id), user), source=source, photo_sha256=photo_sha256,
        idempotency_key=idempotency_key, request_sha=request_sha, head=head,
        shift_id=int(shift_id), settlement_json=settled.settlement_json)
    return logged


def log_round(session: orm.Session, *, table: str, round_json: Mapping[str, Any],
              user: UserRef, idempotency_key: str | None = None, source: str = "manual",
              photo_sha256: str | None = None,
              check: Callable[[Mapping[str, Any]], None] | None = None,
              queue: AbstractContextManager[Any] | None = None) -> LoggedRound:
    """Validate, settle and log one round at ``table``; commit; return where it went.

    ``round_json`` is the round as the ``settle`` command takes it (its ``rules``, if
    any, must be the table's own). ``user`` (a dealer or supervisor) entered it;
    ``source`` is ``manual``, ``scan`` (with the photo's SHA-256) or ``simulated``.
    Raises DomainError for a bad round, NotFound, Forbidden, Conflict (no open shift; the
    idempotency key already used for another round), StoreUnavailable. Any transaction the
    session had open is committed first.

    One write transaction per round: the round is validated and settled first (outside
    any lock, by the table's settings as last seen); then the transaction locks the
    table's chain head, reads the table, its open shift, the user and the idempotency key
    as they are now in one statement (settling again if the table changed), inserts the
    round, its seats and its audit event, moves the head and commits.

    ``check``, if given, is called with the settlement's JSON once the round is validated
    and settled, before the write transaction (and again should the table's settings
    change before it): it may raise to refuse the round, and then nothing is written. The
    web checks a large payout's approval so, on the settlement that is logged. ``queue``
    is held around the write transaction only (a process's line for SQLite's one writer).
    """
    _check_args(source, photo_sha256, idempotency_key)
    request_sha = _request_hash(table, round_json, source, photo_sha256)
    name = user.name if isinstance(user, User) else user
    for _attempt in range(3):
        try:
            settled = _presettle(session, table, round_json)
        except (DomainError, Conflict):
            # A retried request whose round was logged before the table changed.
            if idempotency_key is not None:
                with read(session):
                    replay = _replay(session, idempotency_key, request_sha)
                if replay is not None:
                    return replay
            raise
        if check is not None:
            check(settled.settlement_json)
        try:
            with queue or nullcontext(), write(session):
                return _log_locked(session, table=table, round_json=round_json,
                                   settled=settled, user=name, source=source,
                                   photo_sha256=photo_sha256, idempotency_key=idempotency_key,
                                   request_sha=request_sha, checked=check is not None)
        except _TableChanged:
            continue
        except sa_exc.IntegrityError:
            # Another terminal logged the same idempotency key meanwhile (at another table,
            # or at this one before this transaction's snapshot).
            if idempotency_key is None:
                raise
            with read(session):
                replay = _replay(session, idempotency_key, request_sha)
            if replay is None:
                raise
            return replay
    raise Conflict(f"table {table!r} changed while the round was being logged; try again")


# ---------------------------------------------------------------- voids and corrections

def round_event_digest(ev: RoundEvent) -> str:
    return record_digest("round_event", {
        "id": ev.id, "round_id": ev.round_id, "kind": ev.kind, "reason": ev.reason,
        "actor_id": ev.actor_id, "at": ev.at, "replacement_round_id": ev.replacement_round_id})


def _reviewable(session: orm.Session, round_id: int) -> Round:
    rnd = session.get(Round, round_id)
    if rnd is None:
        raise NotFound(f"no round {round_id}")
    previous = session.scalars(sa.select(RoundEvent).where(RoundEvent.round_id == round_id)
                               ).first()
    if previous is not None:
        raise Conflict(f"round {round_id} was already {_PAST[previous.kind]} "
                       f"(event {previous.id}); review its replacement instead")
    return rnd


_ACTION = {"void": "round.voided", "correction": "round.corrected", "misdeal": "round.misdeal"}
_PAST = {"void": "voided", "correction": "corrected", "misdeal": "declared a misdeal"}


def _add_round_event(session: orm.Session, *, rnd: Round, kind: str, reason: str, who: User,
                     head: tuple[int, str, int], replacement: int | None = None,
                     payload: dict[str, Any] | None = None) -> RoundEvent:
    ev = RoundEvent(round_id=rnd.id, kind=kind, reason=reason, actor_id=who.id, at=utcnow(),
                    replacement_round_id=replacement)
    session.add(ev)
    session.flush()
    append_event(session, chain=table_chain(rnd.table_id), actor=who.name,
                 action=_ACTION[kind],
                 table_id=rnd.table_id, shift_id=rnd.shift_id, round_id=rnd.id,
                 digest=round_event_digest(ev), at=ev.at, head=head,
                 payload={"round_event_id": ev.id, "serial": rnd.serial, "kind": kind,
                          "reason": reason, "replacement_round_id": replacement,
                          **(payload or {})})
    return ev


def _reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise InvalidInput("give the reason (it is logged with your name)")
    return reason


def void_round(session: orm.Session, round_id: int, *, user: UserRef, reason: str,
               kind: str = "void") -> RoundEvent:
    """Void a logged round (supervisor, with a reason). ``kind="misdeal"`` declares it a
    misdeal instead (every stake returned). The round stays in the log, marked."""
    if kind not in ("void", "misdeal"):
        raise InvalidInput("kind is void or misdeal (a correction is correct_round)")
    reason = _reason(reason)
    with write(session):
        who = acting_user(session, user, *REVIEW_ROLES, doing="void a round")
        rnd0 = session.get(Round, round_id)
        if rnd0 is None:
            raise NotFound(f"no round {round_id}")
        head = lock_head(session, table_chain(rnd0.table_id))
        rnd = _reviewable(session, round_id)
        return _add_round_event(session, rnd=rnd, kind=kind, reason=reason, who=who, head=head)


def correct_round(session: orm.Session, round_id: int, *, round_json: Mapping[str, Any],
                  user: UserRef, reason: str) -> LoggedRound:
    """Correct a logged round (supervisor): log the right round as a new one (next serial,
    same table and shift) and link it from a correction event on the original."""
    reason = _reason(reason)
    with read(session):
        who = acting_user(session, user, *REVIEW_ROLES, doing="correct a round")
        rnd0 = session.get(Round, round_id)
        if rnd0 is None:
            raise NotFound(f"no round {round_id}")
        table_name = str(session.scalar(sa.select(GamingTable.name)
                                        .where(GamingTable.id == rnd0.table_id)))
    request_sha = _request_hash(table_name, round_json, "manual", None)
    with write(session):
        head = lock_head(session, table_chain(rnd0.table_id))
        rnd = _reviewable(session, round_id)
        info = _table_info(session, table_name)
        entry, settlement = _settle(round_json, info)
        logged, head = _insert_round(
            session, info=info, entry=entry, settlement=settlement, user=who, source="manual",
            photo_sha256=None, idempotency_key=None, request_sha=request_sha, head=head,
            extra_payload={"corrects_round_id": rnd.id, "corrects_serial": rnd.serial})
        _add_round_event(session, rnd=rnd, kind="correction", reason=reason, who=who,
                         head=head, replacement=logged.round_id,
                         payload={"replacement_serial": logged.serial})
    return logged


# ---------------------------------------------------------------- reading

@dataclass(frozen=True)
class RoundSummary:
    """One line of a round list."""

    round_id: int
    table: str
    serial: int
    at: datetime
    shift_id: int
    entered_by: str
    source: str
    misdeal: bool
    seats: int
    total: int
    #: ``settled``, ``voided``, ``corrected`` or ``misdeal`` (declared after logging).
    status: str
    dealer_cards: str

    def to_json(self) -> dict[str, Any]:
        return {"round_id": self.round_id, "table": self.table, "serial": self.serial,
                "at": self.at.isoformat(), "shift_id": self.shift_id,
                "entered_by": self.entered_by, "source": self.source, "misdeal": self.misdeal,
                "seats": self.seats, "total": self.total, "status": self.status,
                "dealer_cards": self.dealer_cards}


_STATUS = {"void": "voided", "correction": "corrected", "misdeal": "misdeal"}


@dataclass(frozen=True)
class RoundDetail:
    """A round as it was logged, with its seats, its voids/corrections and audit trail."""

    round: Round
    table: str
    status: str
    #: The settlement re-computed from the stored cards and rule set (reasons included).
    settlement_json: dict[str, Any]
    #: Whether the stored nets equal that fresh settlement (False means tampering or a bug).
    stored_matches: bool
    seats: list[SeatRow]
    events: list[RoundEvent]
    audit: list[AuditEvent]
    replaces_round_id: int | None = None
    replaced_by_round_id: int | None = None
    entered_by: str = ""
    rules_hash: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        r = self.round
        return {
            "round_id": r.id, "table": self.table, "serial": r.serial, "at": r.at.isoformat(),
            "shift_id": r.shift_id, "entered_by": self.entered_by, "source": r.source,
            "photo_sha256": r.photo_sha256, "idempotency_key": r.idempotency_key,
            "ruleset_version_id": r.ruleset_version_id, "rules_hash": self.rules_hash,
            "dealer_cards": r.dealer_cards.split() if r.dealer_cards else [],
            "misdeal": r.misdeal, "status": self.status, "total": r.total,
            "stored_matches": self.stored_matches,
            "seats": [{"seat": s.seat, "cards": s.cards.split() if s.cards else [],
                       "ante": s.ante, "play": s.play, "pair_plus": s.pair_plus,
                       "six_card": s.six_card, "prime": s.prime, "net": s.net,
                       "total": s.total} for s in self.seats],
            "settlement": self.settlement_json,
            "events": [{"id": e.id, "kind": e.kind, "reason": e.reason, "actor": e.actor.name,
                        "at": e.at.isoformat(), "replacement_round_id": e.replacement_round_id}
                       for e in self.events],
            "replaces_round_id": self.replaces_round_id,
            "replaced_by_round_id": self.replaced_by_round_id,
            "audit": [{"chain": a.chain, "seq": a.seq, "action": a.action, "actor": a.actor,
                       "at": a.at.isoformat(), "hash": a.hash} for a in self.audit],
        }


def get_round(session: orm.Session, round_id: int) -> RoundDetail:
    """One round with everything a dispute review needs. NotFound if there is none."""
    with read(session):
        rnd = session.get(Round, round_id)
        if rnd is None:
            raise NotFound(f"no round {round_id}")
        settlement, matches = _settlement_of(session, rnd)
        seats = list(session.scalars(sa.select(SeatRow).where(SeatRow.round_id == rnd.id)
                                     .order_by(SeatRow.seat)))
        events = list(session.scalars(sa.select(RoundEvent).where(RoundEvent.round_id == rnd.id)
                                      .order_by(RoundEvent.id)))
        for ev in events:
            _ = ev.actor
        audit = list(session.scalars(sa.select(AuditEvent).where(AuditEvent.round_id == rnd.id)
                                     .order_by(AuditEvent.id)))
        replaces = session.scalar(sa.select(RoundEvent.round_id).where(
            RoundEvent.replacement_round_id == rnd.id))
        table = str(session.scalar(sa.select(GamingTable.name)
                                   .where(GamingTable.id == rnd.table_id)))
        entered_by = str(session.scalar(sa.select(User.name)
                                        .where(User.id == rnd.entered_by_id)))
        rules_hash = str(session.scalar(sa.select(RuleSetVersion.content_hash)
                                        .where(RuleSetVersion.id == rnd.ruleset_version_id)))
        status = _STATUS[events[0].kind] if events else "settled"
        replaced_by = events[0].replacement_round_id if events else None
        return RoundDetail(rnd, table, status, settlement.to_json(), matches, seats, events,
                           audit, replaces, replaced_by, entered_by, rules_hash)


def _utc_bound(when: datetime | None, name: str) -> datetime | None:
    """A search bound in UTC; one whose UTC time falls outside years 1-9999 is refused."""
    if when is None or when.tzinfo is None:
        return when
    try:
        return when.astimezone(UTC)
    except OverflowError:
        raise InvalidInput(f"{name} is out of range (years 1 to 9999, in UTC)") from None


def list_rounds(session: orm.Session, *, table: str | None = None, shift_id: int | None = None,
                since: datetime | None = None, until: datetime | None = None,
                seat: int | None = None, entered_by: str | None = None,
                status: str | None = None, limit: int = 100, offset: int = 0,
                newest_first: bool = True) -> list[RoundSummary]:
    """Rounds filtered by table, shift, time [since, until), seat played, dealer, status."""
    limit = max(1, min(int(limit), 10_000))
    since, until = _utc_bound(since, "since"), _utc_bound(until, "until")
    with read(session):
        seat_count = (sa.select(sa.func.count()).where(SeatRow.round_id == Round.id)
                      .correlate(Round).scalar_subquery())
        first_event = (sa.select(RoundEvent.kind).where(RoundEvent.round_id == Round.id)
                       .order_by(RoundEvent.id).limit(1).correlate(Round).scalar_subquery())
        query = (sa.select(Round.id, GamingTable.name, Round.serial, Round.at, Round.shift_id,
                           User.name, Round.source, Round.misdeal, seat_count, Round.total,
                           first_event, Round.dealer_cards)
                 .join(GamingTable, GamingTable.id == Round.table_id)
                 .join(User, User.id == Round.entered_by_id))
        if table is not None:
            query = query.where(Round.table_id == find_table(session, table).id)
        if shift_id is not None:
            query = query.where(Round.shift_id == shift_id)
        if since is not None:
            query = query.where(Round.at >= since)
        if until is not None:
            query = query.where(Round.at < until)
        if entered_by is not None:
            query = query.where(User.name == entered_by)
        if seat is not None:
            query = query.where(sa.exists().where(SeatRow.round_id == Round.id,
                                                  SeatRow.seat == seat))
        if status is not None:
            if status == "settled":
                query = query.where(~sa.exists().where(RoundEvent.round_id == Round.id))
            elif status in ("voided", "corrected", "misdeal"):
                kind = {v: k for k, v in _STATUS.items()}[status]
                query = query.where(sa.exists().where(RoundEvent.round_id == Round.id,
                                                      RoundEvent.kind == kind))
            else:
                raise InvalidInput("status is settled, voided, corrected or misdeal")
        order = (Round.at.desc(), Round.id.desc()) if newest_first else (Round.at, Round.id)
        rows = session.execute(query.order_by(*order).limit(limit).offset(offset)).all()
        return [RoundSummary(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], int(r[8]), r[9],
                             _STATUS.get(r[10], "settled") if r[10] else "settled", r[11])
                for r in rows]


__all__ = ["LOG_ROLES", "REVIEW_ROLES", "LoggedRound", "RoundDetail", "RoundSummary",
           "correct_round", "get_round", "guard", "list_rounds", "log_round",
           "round_event_digest", "void_round"]
