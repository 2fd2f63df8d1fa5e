"""Hand-history search: rounds by table, shift, time, seat, card, bet, pay-out and status.

Newest first, a page at a time with a keyset cursor (the last row's time and id), so the
hundredth page costs what the first does. Counting every match of a broad search over a
million rounds is not affordable at the screen, so a page says only whether more follow.

Speed on a large log (``benchmarks/queries.py``): a filter on table or shift walks the
``(table_id, at, id)`` / ``(shift_id, at, id)`` indexes newest first; a rare match (a void,
a correction, a misdeal, a pay-out over a high amount) is found from its own index instead
of by walking the rounds: :func:`_driver` asks the index how many there are (up to
:data:`PROBE`) and picks the plan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.domain.cards import parse_card
from dealer_assist.domain.errors import CardError
from dealer_assist.store.models import GamingTable, Round, RoundEvent, SeatEntry, User

from ._base import find_table, read
from .errors import InvalidInput

#: Statuses a round can have in the history.
STATUSES = ("settled", "voided", "corrected", "misdeal")
#: Bets a search can ask for (a seat staked it; ``play``: the seat played).
BET_TYPES = ("ante", "play", "pair_plus", "six_card", "prime")
#: Rows per page at most.
MAX_LIMIT = 500
#: Below this many matching index entries a rare filter drives the query.
PROBE = 2_000
#: Candidate rounds a page checks a card, bet or seat condition on, at most.
SCAN = 10_000

_STATUS_OF_KIND = {"void": "voided", "correction": "corrected", "misdeal": "misdeal"}
_KIND_OF_STATUS = {"voided": "void", "corrected": "correction"}


@dataclass(frozen=True)
class HistoryQuery:
    """What to look for; every field is optional. Times are aware datetimes, [since, until)."""

    table: str | None = None
    shift_id: int | None = None
    since: datetime | None = None
    until: datetime | None = None
    seat: int | None = None
    card: str | None = None
    bet: str | None = None
    min_payout: int | None = None
    status: str | None = None
    entered_by: str | None = None
    #: Keyset cursor: rounds strictly older than this (time, id) pair.
    before: tuple[datetime, int] | None = None
    limit: int = 50

    def checked(self) -> HistoryQuery:
        """The query with its values validated (InvalidInput names the field)."""
        if self.seat is not None and not 1 <= self.seat <= 7:
            raise InvalidInput("seat is 1 to 7")
        if self.bet is not None and self.bet not in BET_TYPES:
            raise InvalidInput(f"bet is one of {', '.join(BET_TYPES)}")
        if self.status is not None and self.status not in STATUSES:
            raise InvalidInput(f"status is one of {', '.join(STATUSES)}")
        if self.min_payout is not None and self.min_payout < 0:
            raise InvalidInput("payout at least: an amount of 0 or more")
        for name in ("since", "until"):
            value = getattr(self, name)
            if value is not None and value.tzinfo is None:
                raise InvalidInput(f"{name}: give a time with its zone (UTC)")
        if self.card is not None:
            try:
                parse_card(self.card)
            except CardError as exc:
                raise InvalidInput(f"card: {exc.message}") from exc
        return replace(self, limit=max(1, min(int(self.limit), MAX_LIMIT)))


@dataclass(frozen=True)
class HistoryRow:
    round_id: int
    table: str
    serial: int
    at: datetime
    shift_id: int
    entered_by: str
    source: str
    dealer_cards: str
    seats: int
    total: int
    largest_pay: int
    status: str
    replaces_round_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"round_id": self.round_id, "table": self.table, "serial": self.serial,
                "at": self.at.isoformat(), "shift_id": self.shift_id,
                "entered_by": self.entered_by, "source": self.source,
                "dealer_cards": self.dealer_cards.split(), "seats": self.seats,
                "total": self.total, "largest_pay": self.largest_pay, "status": self.status,
                "replaces_round_id": self.replaces_round_id}


@dataclass(frozen=True)
class HistoryPage:
    rows: list[HistoryRow]
    #: The cursor for the next (older) page, or None when this is the last.
    next_before: tuple[datetime, int] | None
    plan: list[str] = field(default_factory=list)
    #: Set when the page is short because the search stopped after :data:`SCAN` candidate
    #: rounds: everything newer than this time was searched; ``next_before`` goes on.
    scanned_to: datetime | None = None


def _count_upto(session: orm.Session, query: sa.Select[Any]) -> int:
    sub = query.limit(PROBE).subquery()
    return int(session.scalar(sa.select(sa.func.count()).select_from(sub)) or 0)


def _seat_conditions(q: HistoryQuery, card_index: int | None,
                     s: Any = SeatEntry) -> list[sa.ColumnElement[bool]]:
    conds: list[sa.ColumnElement[bool]] = []
    if q.seat is not None:
        conds.append(s.seat == q.seat)
    if q.bet is not None:
        conds.append(s.play.is_(True) if q.bet == "play" else getattr(s, q.bet) > 0)
    if q.min_payout is not None:
        conds.append(s.pay >= q.min_payout)
    if card_index is not None and q.seat is not None:
        conds.append(sa.or_(s.c1 == card_index, s.c2 == card_index, s.c3 == card_index))
    return conds


def _any_row(query: sa.Select[Any]) -> sa.ColumnElement[bool]:
    """True when ``query`` (correlated to the round) has a row: a scalar subquery with
    LIMIT 1 rather than EXISTS, so PostgreSQL probes the primary key per candidate round
    instead of hashing the whole seat table (its plan for an EXISTS under an OR)."""
    return query.limit(1).scalar_subquery().is_not(None)


#: A condition checked on each candidate round, built on the round's columns ``r``.
Check = Callable[[Any], sa.ColumnElement[bool]]


def _ids(session: orm.Session, query: sa.Select[Any]) -> set[int]:
    return {int(i) for i in session.scalars(query)}


def search(session: orm.Session, query: HistoryQuery) -> HistoryPage:
    """One page of rounds matching ``query``, newest first.

    The conditions an index answers (table, shift, time) choose the candidate rounds; a
    rare match (a pay-out over a high amount, a void, a correction, a misdeal: fewer than
    :data:`PROBE` entries in its own index) is read from that index first, as a list of
    round ids. The other conditions (a card, a bet, a seat) are checked on at most
    :data:`SCAN` candidates per page. When that stretch holds fewer matches than a page,
    the page is short and ``next_before`` continues the search from where it stopped
    (``scanned_to``), so no single request walks the whole log.
    """
    q = query.checked()
    r = Round
    card_index = parse_card(q.card).index if q.card is not None else None
    plan: list[str] = []
    with read(session):
        indexed: list[sa.ColumnElement[bool]] = []
        checks: list[Check] = []
        rare: set[int] | None = None

        def narrow(ids: set[int]) -> None:
            nonlocal rare
            rare = ids if rare is None else rare & ids

        if q.table is not None:
            indexed.append(r.table_id == find_table(session, q.table).id)
        if q.shift_id is not None:
            indexed.append(r.shift_id == q.shift_id)
        if q.since is not None:
            indexed.append(r.at >= q.since)
        if q.until is not None:
            indexed.append(r.at < q.until)
        if q.entered_by is not None:
            user_id = session.scalar(sa.select(User.id).where(User.name == q.entered_by))
            indexed.append(r.entered_by_id == (user_id if user_id is not None else -1))
        if q.before is not None:
            indexed.append(sa.tuple_(r.at, r.id) < sa.tuple_(*q.before))

        seat_conds = _seat_conditions(q, card_index)
        if seat_conds:
            rare_pay = q.min_payout is not None and _count_upto(
                session, sa.select(SeatEntry.round_id).where(SeatEntry.pay >= q.min_payout)
            ) < PROBE
            if rare_pay:
                plan.append("pay-out index")
                narrow(_ids(session, sa.select(SeatEntry.round_id).where(*seat_conds)))
            else:
                def seat_check(rr: Any) -> sa.ColumnElement[bool]:
                    return _any_row(sa.select(SeatEntry.round_id).where(
                        SeatEntry.round_id == rr.id, *_seat_conditions(q, card_index)))
                checks.append(seat_check)
        if card_index is not None and q.seat is None:
            def card_check(rr: Any) -> sa.ColumnElement[bool]:
                in_seat = _any_row(sa.select(SeatEntry.round_id).where(
                    SeatEntry.round_id == rr.id, sa.or_(
                        SeatEntry.c1 == card_index, SeatEntry.c2 == card_index,
                        SeatEntry.c3 == card_index)))
                return sa.or_(rr.dealer_c1 == card_index, rr.dealer_c2 == card_index,
                              rr.dealer_c3 == card_index, in_seat)
            checks.append(card_check)

        if q.status == "settled":
            checks.append(lambda rr: sa.and_(
                ~_any_row(sa.select(RoundEvent.round_id).where(RoundEvent.round_id == rr.id)),
                rr.misdeal.is_(False)))
        elif q.status in _KIND_OF_STATUS:
            kind = _KIND_OF_STATUS[q.status]
            event_ids = sa.select(RoundEvent.round_id).where(RoundEvent.kind == kind)
            if _count_upto(session, event_ids) < PROBE:
                plan.append("round events index")
                narrow(_ids(session, event_ids))
            else:
                checks.append(lambda rr: _any_row(sa.select(RoundEvent.round_id).where(
                    RoundEvent.round_id == rr.id, RoundEvent.kind == kind)))
        elif q.status == "misdeal":
            declared = sa.select(RoundEvent.round_id).where(RoundEvent.kind == "misdeal")
            # Written as the partial index's own predicate, so both engines use it.
            logged = sa.select(r.id).where(sa.text("rounds.misdeal"))
            if _count_upto(session, declared) + _count_upto(session, logged) < PROBE:
                plan.append("misdeal indexes")
                narrow(_ids(session, declared) | _ids(session, logged))
            else:
                checks.append(lambda rr: sa.or_(rr.misdeal.is_(True), _any_row(
                    sa.select(RoundEvent.round_id).where(RoundEvent.round_id == rr.id,
                                                         RoundEvent.kind == "misdeal"))))

        pg = session.get_bind().dialect.name == "postgresql"
        if pg and q.shift_id is not None:
            # A shift's rounds are few and close together in time; PostgreSQL takes them
            # to be spread over the whole log and walks the time index from the newest
            # round looking for them. Ordered by an expression no index has, it reads the
            # shift's own index and sorts what it found.
            order: tuple[sa.ColumnElement[Any], ...] = (sa.func.coalesce(r.at, r.at).desc(),
                                                        r.id.desc())
        else:
            order = (r.at.desc(), r.id.desc())
        scanned_to = None
        if rare is not None:
            # At most a few thousand rounds: read them by their ids and order them here
            # (an ORDER BY ... LIMIT would tempt the planner into walking the time index).
            found_all: list[tuple[int, datetime]] = []
            ids = sorted(rare)
            for start in range(0, len(ids), 1000):
                found_all.extend((int(i), at) for i, at in session.execute(
                    sa.select(r.id, r.at).where(r.id.in_(ids[start:start + 1000]), *indexed,
                                                *(c(r) for c in checks))))
            found_all.sort(key=lambda f: (f[1], f[0]), reverse=True)
            found: list[Any] = found_all[:q.limit + 1]
        elif checks and not pg:
            # SQLite walks the time-ordered index and checks each round as it goes; the
            # SCAN-th candidate, from the index alone, is where the search stops.
            edge = session.execute(sa.select(r.at, r.id).where(*indexed).order_by(*order)
                                   .offset(SCAN - 1).limit(1)).one_or_none()
            if edge is not None:
                plan.append(f"checked on {SCAN} candidates")
                scanned_to = (edge[0], int(edge[1]))
                indexed.append(sa.tuple_(r.at, r.id) >= sa.tuple_(*scanned_to))
            found = list(session.execute(sa.select(r.id, r.at)
                                         .where(*indexed, *(c(r) for c in checks))
                                         .order_by(*order).limit(q.limit + 1)).all())
        elif checks:
            # PostgreSQL: the newest SCAN candidates from the index alone (only its columns, so an
            # index-only scan), checked one by one, newest first, until a page is full.
            extra = [r.dealer_c1, r.dealer_c2, r.dealer_c3] if card_index is not None else []
            if q.status is not None:
                extra.append(r.misdeal)
            cand = (sa.select(r.id, r.at, *extra).where(*indexed).order_by(*order)
                    .limit(SCAN).subquery("candidates"))
            rr = cand.c
            found = list(session.execute(
                sa.select(rr.id, rr.at).where(*(c(rr) for c in checks))
                .order_by(rr.at.desc(), rr.id.desc()).limit(q.limit + 1)).all())
            if len(found) <= q.limit:
                # A short page: the search stopped at the SCAN-th candidate, if there is one.
                edge = session.execute(sa.select(r.at, r.id).where(*indexed).order_by(*order)
                                       .offset(SCAN - 1).limit(1)).one_or_none()
                if edge is not None:
                    plan.append(f"checked on {SCAN} candidates")
                    scanned_to = (edge[0], int(edge[1]))
        else:
            found = list(session.execute(sa.select(r.id, r.at).where(*indexed)
                                         .order_by(*order).limit(q.limit + 1)).all())
        more = len(found) > q.limit
        found = found[:q.limit]
        rows = _rows(session, [int(f[0]) for f in found])
        if more:
            next_before: tuple[datetime, int] | None = (found[-1][1], int(found[-1][0]))
        else:
            next_before = scanned_to
        return HistoryPage(rows, next_before, plan,
                           scanned_to=scanned_to[0] if scanned_to and not more else None)


def _rows(session: orm.Session, ids: list[int]) -> list[HistoryRow]:
    if not ids:
        return []
    r = Round
    seats = (sa.select(sa.func.count()).where(SeatEntry.round_id == r.id)
             .correlate(r).scalar_subquery())
    largest = (sa.select(sa.func.coalesce(sa.func.max(SeatEntry.pay), 0))
               .where(SeatEntry.round_id == r.id).correlate(r).scalar_subquery())
    first_kind = (sa.select(RoundEvent.kind).where(RoundEvent.round_id == r.id)
                  .order_by(RoundEvent.id).limit(1).correlate(r).scalar_subquery())
    replaces = (sa.select(RoundEvent.round_id).where(RoundEvent.replacement_round_id == r.id)
                .limit(1).correlate(r).scalar_subquery())
    query = (sa.select(r.id, GamingTable.name, r.serial, r.at, r.shift_id, User.name,
                       r.source, r.dealer_cards, seats, r.total, largest, first_kind,
                       replaces, r.misdeal)
             .join(GamingTable, GamingTable.id == r.table_id)
             .join(User, User.id == r.entered_by_id)
             .where(r.id.in_(ids)).order_by(r.at.desc(), r.id.desc()))
    out = []
    for row in session.execute(query):
        status = _STATUS_OF_KIND[row[11]] if row[11] else ("misdeal" if row[13] else "settled")
        out.append(HistoryRow(int(row[0]), str(row[1]), int(row[2]), row[3], int(row[4]),
                              str(row[5]), str(row[6]), str(row[7]), int(row[8]), int(row[9]),
                              int(row[10]), status, row[12]))
    return out


__all__ = ["BET_TYPES", "MAX_LIMIT", "SCAN", "STATUSES", "HistoryPage", "HistoryQuery", "HistoryRow",
           "search"]
