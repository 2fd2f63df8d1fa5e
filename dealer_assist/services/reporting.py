"""The figures of the shift and daily floor reports, read from the hand log in one pass.

The rounds and seat entries are streamed (``yield_per``: a server-side cursor on
PostgreSQL, ``fetchmany`` on SQLite) and added up as they go by, so memory does not grow
with the number of rounds: only per-shift and per-dealer running sums are kept, plus the
short lists a report prints in full (voids, corrections, misdeals, large payouts) and a
chart series thinned to at most :data:`MAX_CHART_POINTS` points.

What counts (DESIGN.md, Reports): a round with no void, correction or misdeal counts; a
voided round, the original of a corrected round and a misdeal (logged as one, or declared
afterwards) are listed but count for nothing (a misdeal returns every stake). The
replacement of a corrected round is logged as a new round and counts once, as corrected.
The arithmetic (hold, theoretical win, SD band, inventory win) is
:mod:`dealer_assist.domain.shift_math`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from fractions import Fraction
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.domain.analysis import AnalysisResult, BetFigures, analyze
from dealer_assist.domain.rulesets import RuleSet, ruleset_from_json
from dealer_assist.domain.shift_math import (
    BetAsPlayed,
    ShiftSchedule,
    ShiftWindow,
    VarianceTerms,
    ante_play_seat_covariance,
    bets_as_played,
    deviation_in_sd,
    hold_percent,
    inventory_win,
    parse_clock,
)
from dealer_assist.store.models import (
    AuditEvent,
    CasinoSettings,
    GamingTable,
    Round,
    RoundEvent,
    RuleSetVersion,
    SeatEntry,
    Shift,
    ShiftDrop,
    ShiftMovement,
    User,
    table_chain,
    utcnow,
)

from ._base import read
from .drops import drops_of
from .errors import InvalidInput, NotFound
from .shifts import inventory_value
from .verify import verify_log

#: The bet types of a report, in print order, and their names.
BETS = ("ante_play", "pair_plus", "six_card", "prime")
BET_NAMES = {"ante_play": "Ante / Play + ante bonus", "pair_plus": "Pair Plus",
             "six_card": "Six Card Bonus", "prime": "Prime"}
#: Payout threshold used when the casino settings set none (matches the web's default).
DEFAULT_LARGE_WIN = 500_000
#: Rows fetched per batch from the database.
YIELD_PER = 5_000
MAX_CHART_POINTS = 600

_R = Round.__table__.c
_S = SeatEntry.__table__.c


# --------------------------------------------------------------------------- figures


@dataclass
class BetLine:
    """One bet type's sums over the counted rounds (all money in cents)."""

    bets: int = 0
    handle: int = 0
    paid: int = 0
    collected: int = 0
    #: Stakes the exact house edge applies to (the ante for ante/play), per rule-set version.
    edge_stakes: dict[int, int] = field(default_factory=dict)
    variance_terms: dict[int, VarianceTerms] = field(default_factory=dict)

    @property
    def house_win(self) -> int:
        return self.collected - self.paid

    @property
    def hold(self) -> Fraction | None:
        return hold_percent(self.house_win, self.handle)

    def merge(self, other: BetLine) -> None:
        self.bets += other.bets
        self.handle += other.handle
        self.paid += other.paid
        self.collected += other.collected
        for v, s in other.edge_stakes.items():
            self.edge_stakes[v] = self.edge_stakes.get(v, 0) + s
        for v, t in other.variance_terms.items():
            self.variance_terms.setdefault(v, VarianceTerms()).merge(t)


@dataclass
class MoneyLine:
    """Sums over all bet types (a per-dealer line, a total line)."""

    rounds: int = 0
    seats: int = 0
    bets: dict[str, BetLine] = field(default_factory=lambda: {b: BetLine() for b in BETS})

    @property
    def handle(self) -> int:
        return sum(b.handle for b in self.bets.values())

    @property
    def paid(self) -> int:
        return sum(b.paid for b in self.bets.values())

    @property
    def collected(self) -> int:
        return sum(b.collected for b in self.bets.values())

    @property
    def house_win(self) -> int:
        return self.collected - self.paid

    @property
    def hold(self) -> Fraction | None:
        return hold_percent(self.house_win, self.handle)

    @property
    def bet_count(self) -> int:
        return sum(b.bets for b in self.bets.values())

    def merge(self, other: MoneyLine) -> None:
        self.rounds += other.rounds
        self.seats += other.seats
        for name, line in other.bets.items():
            self.bets[name].merge(line)


@dataclass(frozen=True)
class Edge:
    """A rule-set version's exact figures as the report uses them."""

    version_id: int
    content_hash: str
    label: str
    rules: RuleSet
    analysis: AnalysisResult
    as_played: dict[str, BetAsPlayed]
    seat_covariance: float

    def published_edge(self, bet: str) -> Fraction:
        """The bet's published house edge (pair plus, six card, prime: a seat never folds)."""
        figures: BetFigures = getattr(self.analysis, bet)
        return figures.house_edge

    def house_edge(self, bet: str) -> Fraction:
        """The edge the theoretical win uses: optimal play, folds forfeiting as the rules say."""
        return self.as_played[bet].house_edge

    def variance(self, bet: str) -> Fraction:
        return self.as_played[bet].variance

    def offered(self, bet: str) -> bool:
        return bet == "ante_play" or getattr(self.analysis, bet).offered is True


class Edges:
    """Rule-set versions by id, analysed once each (the analysis is cached per hash)."""

    def __init__(self, session: orm.Session) -> None:
        self.session = session
        self._by_id: dict[int, Edge] = {}

    def __getitem__(self, version_id: int) -> Edge:
        edge = self._by_id.get(version_id)
        if edge is None:
            version = self.session.get(RuleSetVersion, version_id)
            if version is None:
                raise NotFound(f"no rule-set version {version_id}")
            rules = ruleset_from_json(json.loads(version.rules_json))
            label = version.label or (f"pair plus {rules.pays_label('pair_plus')}, ante bonus "
                                      f"{rules.pays_label('ante_bonus')}")
            edge = Edge(version.id, version.content_hash, label, rules, analyze(rules),
                        bets_as_played(rules), ante_play_seat_covariance(rules))
            self._by_id[version_id] = edge
        return edge

    def load(self, version_id: int) -> None:
        self[version_id]

    def values(self) -> list[Edge]:
        return list(self._by_id.values())


def theoretical(line: BetLine, bet: str, edges: Edges) -> Fraction:
    """Exact theoretical house win of a bet line (stakes x house edge, per version)."""
    return sum((s * edges[v].house_edge(bet) for v, s in line.edge_stakes.items()), Fraction(0))


def variance(line: BetLine, bet: str, edges: Edges) -> float:
    total = 0.0
    for v, terms in line.variance_terms.items():
        edge = edges[v]
        cov = edge.seat_covariance if bet == "ante_play" else 0.0
        total += terms.variance(edge.variance(bet), cov)
    return total


def deviation(line: BetLine, bet: str, edges: Edges) -> float | None:
    return deviation_in_sd(line.house_win, theoretical(line, bet, edges),
                           variance(line, bet, edges))


def total_theoretical(line: MoneyLine, edges: Edges) -> Fraction:
    return sum((theoretical(b, n, edges) for n, b in line.bets.items()), Fraction(0))


@dataclass(frozen=True)
class RoundNote:
    """A void, correction or misdeal, for the list the report prints."""

    round_id: int
    serial: int
    at: datetime
    kind: str  # void, correction, misdeal (declared), misdeal_logged
    reason: str
    actor: str
    event_at: datetime | None
    #: The players' net as logged (what leaving the round out of the totals removes).
    players_net: int
    replacement_round_id: int | None = None
    replacement_serial: int | None = None
    replacement_shift_id: int | None = None


@dataclass(frozen=True)
class LargeWin:
    round_id: int
    serial: int
    at: datetime
    seat: int
    cards: str
    dealer_cards: str
    payout: int
    bets: tuple[tuple[str, int], ...]
    entered_by: str


@dataclass(frozen=True)
class Movement:
    kind: str
    amount: int
    at: datetime
    by: str
    chips: dict[str, int]


@dataclass(frozen=True)
class DropRecord:
    """One count of the shift's drop box (the last one nothing supersedes counts)."""

    id: int
    cash: int
    markers: int
    amount: int
    at: datetime
    by: str
    reason: str
    supersedes_id: int | None
    superseded_by: int | None


@dataclass(frozen=True)
class ChainState:
    chain: str
    last_seq: int | None
    last_hash: str | None
    verified: bool | None
    verify_summary: str
    verify_head: str


@dataclass
class ShiftFigures:
    """Everything the shift report prints about one shift."""

    shift_id: int
    table: str
    table_id: int
    opened_at: datetime
    closed_at: datetime | None
    opened_by: str
    closed_by: str | None
    dealers: list[str]
    opening_inventory: dict[str, int]
    closing_inventory: dict[str, int] | None
    movements: list[Movement]
    threshold: int
    total: MoneyLine = field(default_factory=MoneyLine)
    per_dealer: dict[str, MoneyLine] = field(default_factory=dict)
    settled: int = 0
    voided: int = 0
    corrected: int = 0
    misdeals: int = 0
    replacements: int = 0
    first_serial: int | None = None
    last_serial: int | None = None
    first_round_at: datetime | None = None
    last_round_at: datetime | None = None
    notes: list[RoundNote] = field(default_factory=list)
    large_wins: list[LargeWin] = field(default_factory=list)
    version_ids: list[int] = field(default_factory=list)
    #: (seconds since opening, cumulative house win, cumulative theoretical), floats: chart only.
    series: list[tuple[float, float, float]] = field(default_factory=list)
    chain: ChainState | None = None
    #: Every count of the drop box, oldest first (:mod:`dealer_assist.services.drops`).
    drops: list[DropRecord] = field(default_factory=list)
    #: The gaming day the shift opened in and its scheduled window (casino settings).
    gaming_day: date | None = None
    scheduled: ShiftWindow | None = None
    #: How long the shift ran past its scheduled window (closing, or when read if open).
    overrun: timedelta | None = None

    @property
    def logged_rounds(self) -> int:
        return self.settled + self.voided + self.corrected + self.misdeals

    @property
    def no_activity(self) -> bool:
        return self.logged_rounds == 0

    @property
    def opening_value(self) -> int:
        return inventory_value(self.opening_inventory)

    @property
    def closing_value(self) -> int | None:
        return None if self.closing_inventory is None else inventory_value(self.closing_inventory)

    @property
    def fills(self) -> int:
        return sum(m.amount for m in self.movements if m.kind == "fill")

    @property
    def credits(self) -> int:
        return sum(m.amount for m in self.movements if m.kind == "credit")

    @property
    def recorded_drop(self) -> DropRecord | None:
        """The drop as counted (the record no recount superseded), or None."""
        current = [d for d in self.drops if d.superseded_by is None]
        return current[-1] if current else None

    def drop_amount(self, drop: int | None = None) -> int:
        """The drop the win uses: ``drop`` if given (a printing's override), else the
        recorded one, else 0 (players bought their chips at the cage)."""
        if drop is not None:
            return drop
        recorded = self.recorded_drop
        return 0 if recorded is None else recorded.amount

    def inventory_win(self, drop: int | None = None) -> int | None:
        """closing - opening + credits - fills + drop (see :meth:`drop_amount`)."""
        if self.closing_value is None:
            return None
        return inventory_win(opening=self.opening_value, closing=self.closing_value,
                             fills=self.fills, credits=self.credits,
                             drop=self.drop_amount(drop))

    def inventory_difference(self, drop: int | None = None) -> int | None:
        win = self.inventory_win(drop)
        return None if win is None else win - self.total.house_win

    def table_hold(self, drop: int | None = None) -> Fraction | None:
        """Inventory win / drop in percent (the table-games hold); None without a drop."""
        win = self.inventory_win(drop)
        return None if win is None else hold_percent(win, self.drop_amount(drop))


@dataclass
class Casino:
    name: str
    time_zone: str
    currency: str
    shift_hours: int
    large_win_threshold: int | None
    #: When the gaming day starts and the custom shift starts (none: regular shifts).
    day_start: time = time(0)
    shift_starts: tuple[time, ...] = ()

    @property
    def schedule(self) -> ShiftSchedule:
        """The scheduled shifts the settings describe (see ShiftSchedule)."""
        try:
            return ShiftSchedule(self.time_zone, self.day_start, self.shift_hours,
                                 self.shift_starts)
        except ValueError:  # settings stored before they were checked as a whole
            return ShiftSchedule(self.time_zone, self.day_start, 24)


def casino(session: orm.Session) -> Casino:
    settings = session.get(CasinoSettings, 1)
    if settings is None:
        return Casino("Casino", "UTC", "USD", 8, None)
    return Casino(settings.name, settings.time_zone, settings.currency, settings.shift_hours,
                  settings.large_win_threshold, settings.gaming_day_start or time(0),
                  tuple(parse_clock(t) for t in settings.shift_starts or ()))


# --------------------------------------------------------------------------- streaming


class _Thinner:
    """Keeps every k-th point of a growing series, doubling k so at most ``limit`` stay."""

    def __init__(self, out: list[tuple[float, float, float]], limit: int) -> None:
        self.out = out
        self.limit = limit
        self.stride = 1
        self.seen = 0
        self.last: tuple[float, float, float] | None = None

    def add(self, point: tuple[float, float, float]) -> None:
        self.last = point
        if self.seen % self.stride == 0:
            self.out.append(point)
            if len(self.out) > self.limit:
                del self.out[1::2]
                self.stride *= 2
        self.seen += 1

    def finish(self) -> None:
        if self.last is not None and (not self.out or self.out[-1] is not self.last):
            self.out.append(self.last)


_ROUND_COLS = (_R.id, _R.shift_id, _R.serial, _R.at, _R.ruleset_version_id, _R.misdeal,
               _R.entered_by_id, _R.total, _R.dealer_cards, _R.misdeal_reason)
_SEAT_COLS = (_S.round_id, _S.seat, _S.cards, _S.ante, _S.play, _S.pair_plus, _S.six_card,
              _S.prime, _S.net_ante, _S.net_play, _S.net_ante_bonus, _S.net_pair_plus,
              _S.net_six_card, _S.net_prime)


def _stream(session: orm.Session, query: sa.Select[Any]) -> Iterator[Sequence[Any]]:
    result = session.execute(query, execution_options={"yield_per": YIELD_PER,
                                                       "stream_results": True})
    for partition in result.partitions():
        yield from partition


def _rounds(session: orm.Session, shift_ids: Sequence[int]
            ) -> Iterator[tuple[Sequence[Any], list[Sequence[Any]]]]:
    """Every round of the shifts (by shift, then as logged) with its seat rows, streamed:
    two cursors in the same order, merged (the round's columns are read once, not once per
    seat)."""
    ids = list(shift_ids)
    rounds = _stream(session, sa.select(*_ROUND_COLS).where(_R.shift_id.in_(ids))
                     .order_by(_R.shift_id, _R.id))
    seats = _stream(session, sa.select(*_SEAT_COLS).join(Round.__table__, _R.id == _S.round_id)
                    .where(_R.shift_id.in_(ids)).order_by(_R.shift_id, _R.id, _S.seat))
    pending = next(seats, None)
    for head in rounds:
        own: list[Sequence[Any]] = []
        while pending is not None and pending[0] == head[0]:
            own.append(pending)
            pending = next(seats, None)
        yield head, own


def _events(session: orm.Session, shift_ids: Sequence[int]
            ) -> tuple[dict[int, RoundEvent], dict[int, tuple[int, int]]]:
    """The first void/correction/misdeal of each round of the shifts, and for replacement
    rounds logged in the shifts: replacement id -> (original round id, original serial)."""
    ids = list(shift_ids)
    first: dict[int, RoundEvent] = {}
    for ev in session.scalars(sa.select(RoundEvent).join(Round, Round.id == RoundEvent.round_id)
                              .where(Round.shift_id.in_(ids)).order_by(RoundEvent.id)
                              .options(orm.joinedload(RoundEvent.actor))):
        first.setdefault(ev.round_id, ev)
    replacement = orm.aliased(Round)
    replaces: dict[int, tuple[int, int]] = {}
    for rep_id, orig_id, orig_serial in session.execute(  # replacement id is not None here
            sa.select(RoundEvent.replacement_round_id, Round.id, Round.serial)
            .join(Round, Round.id == RoundEvent.round_id)
            .join(replacement, replacement.id == RoundEvent.replacement_round_id)
            .where(replacement.shift_id.in_(ids))):
        replaces[int(rep_id or 0)] = (int(orig_id), int(orig_serial))
    return first, replaces


#: Where each bet's net is in a seat row (:data:`_SEAT_COLS`).
_NET_INDEX = {"ante": 8, "play": 9, "ante_bonus": 10, "pair_plus": 11, "six_card": 12,
              "prime": 13}


#: Per bet in an accumulator: bets, handle, paid, collected, edge stakes, sum of squared
#: stakes, cross products of one round's stakes (see shift_math.VarianceTerms).
_FIELDS = 7
#: The side bets in a seat row: (bet index, stake column, net column, accumulator offset).
#: Pair plus, six card, prime; the ante (with play and ante bonus) is summed apart.
_SIDE_BET_COLUMNS = ((1, 5, 11, 2 + _FIELDS), (2, 6, 12, 2 + 2 * _FIELDS),
                     (3, 7, 13, 2 + 3 * _FIELDS))


class _Accumulator:
    """Adds up the streamed rows of many shifts at once into flat integer sums per
    (shift, dealer, rule-set version), turned into :class:`ShiftFigures` lines at the end."""

    def __init__(self, session: orm.Session, figures: dict[int, ShiftFigures], edges: Edges,
                 users: dict[int, str], *, chart: bool) -> None:
        self.session = session
        self.figures = figures
        self.edges = edges
        self.users = users
        self.chart = chart
        self.thinners = {sid: _Thinner(f.series, MAX_CHART_POINTS) for sid, f in figures.items()}
        self.cum: dict[int, tuple[float, float]] = {}
        self.sums: dict[tuple[int, str, int], list[int]] = {}
        self.rates: dict[int, tuple[float, float, float, float]] = {}

    def run(self, rounds: Iterable[tuple[Sequence[Any], list[Sequence[Any]]]],
            events: dict[int, RoundEvent], replaces: dict[int, tuple[int, int]],
            replacement_info: dict[int, tuple[int, int]]) -> None:
        for head, seats in rounds:
            self._round(head, seats, events, replaces, replacement_info)
        for thinner in self.thinners.values():
            thinner.finish()
        self._finish()

    def _finish(self) -> None:
        for (shift_id, dealer, version), acc in self.sums.items():
            fig = self.figures[shift_id]
            line = MoneyLine()
            line.rounds, line.seats = acc[0], acc[1]
            for k, bet in enumerate(BETS):
                o = 2 + _FIELDS * k
                b = line.bets[bet]
                b.bets, b.handle, b.paid, b.collected = acc[o], acc[o + 1], acc[o + 2], \
                    acc[o + 3]
                if acc[o]:
                    b.edge_stakes[version] = acc[o + 4]
                    b.variance_terms[version] = VarianceTerms(acc[o + 5], acc[o + 6], acc[o])
            fig.total.merge(line)
            per_dealer = fig.per_dealer.get(dealer)
            if per_dealer is None:
                per_dealer = fig.per_dealer[dealer] = MoneyLine()
            per_dealer.merge(line)

    def _round(self, head: Sequence[Any], rows: list[Sequence[Any]],
               events: dict[int, RoundEvent], replaces: dict[int, tuple[int, int]],
               replacement_info: dict[int, tuple[int, int]]) -> None:
        round_id, shift_id, serial, at, version_id, misdeal, entered_by_id, total = head[:8]
        fig = self.figures[shift_id]
        if fig.first_serial is None:
            fig.first_serial = serial
            fig.first_round_at = at
        fig.last_serial = serial
        fig.last_round_at = at
        if version_id not in fig.version_ids:
            fig.version_ids.append(version_id)
        if round_id in replaces:
            fig.replacements += 1
        ev = events.get(round_id)
        if ev is not None:
            if ev.kind == "void":
                fig.voided += 1
            elif ev.kind == "correction":
                fig.corrected += 1
            else:
                fig.misdeals += 1
            rep = replacement_info.get(ev.replacement_round_id or -1)
            fig.notes.append(RoundNote(
                round_id, serial, at, ev.kind, ev.reason, ev.actor.name, ev.at, int(total),
                ev.replacement_round_id, rep[0] if rep else None, rep[1] if rep else None))
            return
        if misdeal:
            fig.misdeals += 1
            fig.notes.append(RoundNote(round_id, serial, at, "misdeal_logged", head[9] or "",
                                       self.users.get(entered_by_id, "?"), None, int(total)))
            return
        fig.settled += 1
        dealer = self.users.get(entered_by_id, f"user {entered_by_id}")
        key = (shift_id, dealer, version_id)
        acc = self.sums.get(key)
        if acc is None:
            acc = self.sums[key] = [0] * (2 + _FIELDS * len(BETS))
        acc[0] += 1
        win = 0
        # Per bet this round: sum of stakes and sum of squared stakes (ante first).
        stakes = [0, 0, 0, 0]
        squares = [0, 0, 0, 0]
        threshold = fig.threshold
        for row in rows:
            acc[1] += 1
            payout = 0
            ante = row[3]
            if ante:
                acc[2] += 1
                acc[3] += ante + ante if row[4] else ante
                stakes[0] += ante
                squares[0] += ante * ante
                for net in (row[8], row[9], row[10]):
                    if net > 0:
                        acc[4] += net
                        payout += net
                    elif net < 0:
                        acc[5] -= net
            for bet, stake_col, net_col, o in _SIDE_BET_COLUMNS:
                stake = row[stake_col]
                if stake:
                    acc[o] += 1
                    acc[o + 1] += stake
                    stakes[bet] += stake
                    squares[bet] += stake * stake
                    net = row[net_col]
                    if net > 0:
                        acc[o + 2] += net
                        payout += net
                    elif net < 0:
                        acc[o + 3] -= net
            win -= row[8] + row[9] + row[10] + row[11] + row[12] + row[13]
            if payout > threshold:
                fig.large_wins.append(LargeWin(
                    round_id, serial, at, row[1], row[2], head[8], payout,
                    tuple((k, row[i]) for k, i in _NET_INDEX.items() if row[i]), dealer))
        for bet, o in enumerate((2, 9, 16, 23)):
            acc[o + 4] += stakes[bet]
            acc[o + 5] += squares[bet]
            acc[o + 6] += stakes[bet] * stakes[bet] - squares[bet]
        if self.chart:
            rates = self.rates.get(version_id)
            if rates is None:
                edge = self.edges[version_id]
                r = [float(edge.house_edge(b)) for b in BETS]
                rates = self.rates[version_id] = (r[0], r[1], r[2], r[3])
            theo = sum(rate * stake for rate, stake in zip(rates, stakes, strict=True))
            cum_win, cum_theo = self.cum.get(shift_id, (0.0, 0.0))
            cum_win += win
            cum_theo += theo
            self.cum[shift_id] = (cum_win, cum_theo)
            self.thinners[shift_id].add(((at - fig.opened_at).total_seconds(), cum_win,
                                         cum_theo))


def _shift_figures(session: orm.Session, shift: Shift, users: dict[int, str],
                   threshold: int) -> ShiftFigures:
    moves = [Movement(m.kind, m.amount, m.at, users.get(m.by_id, "?"), dict(m.chips))
             for m in session.scalars(sa.select(ShiftMovement)
                                      .where(ShiftMovement.shift_id == shift.id)
                                      .order_by(ShiftMovement.at, ShiftMovement.id))]
    return ShiftFigures(
        shift_id=shift.id, table=shift.table.name, table_id=shift.table_id,
        opened_at=shift.opened_at, closed_at=shift.closed_at,
        opened_by=users.get(shift.opened_by_id, "?"),
        closed_by=users.get(shift.closed_by_id, "?") if shift.closed_by_id else None,
        dealers=list(shift.dealers or []), opening_inventory=dict(shift.opening_inventory or {}),
        closing_inventory=None if shift.closing_inventory is None
        else dict(shift.closing_inventory), movements=moves, threshold=threshold)


def _users(session: orm.Session) -> dict[int, str]:
    return {int(i): str(n) for i, n in session.execute(sa.select(User.id, User.name))}


def _drop_records(records: Sequence[ShiftDrop]) -> list[DropRecord]:
    superseded_by = {r.supersedes_id: r.id for r in records if r.supersedes_id is not None}
    return [DropRecord(r.id, r.cash, r.markers, r.amount, r.at, r.by.name, r.reason,
                       r.supersedes_id, superseded_by.get(r.id)) for r in records]


def _schedule(figures: dict[int, ShiftFigures], schedule: ShiftSchedule) -> None:
    now = utcnow()
    for fig in figures.values():
        fig.gaming_day = schedule.day_of(fig.opened_at)
        fig.scheduled = schedule.window_for(fig.opened_at)
        fig.overrun = schedule.overrun(fig.opened_at, fig.closed_at or now)


def _collect(session: orm.Session, shifts: Sequence[Shift], threshold: _Threshold,
             edges: Edges, schedule: ShiftSchedule, *,
             chart: bool) -> dict[int, ShiftFigures]:
    users = _users(session)
    figures = {s.id: _shift_figures(session, s, users, threshold.for_shift(s)) for s in shifts}
    if not figures:
        return figures
    ids = list(figures)
    for shift_id, records in drops_of(session, ids).items():
        figures[shift_id].drops = _drop_records(records)
    _schedule(figures, schedule)
    events, replaces = _events(session, ids)
    # Where each replacement round went (it may be in a later shift).
    rep_ids = [e.replacement_round_id for e in events.values() if e.replacement_round_id]
    replacement_info: dict[int, tuple[int, int]] = {}
    for start in range(0, len(rep_ids), 1000):
        for rid, serial, shift_id in session.execute(
                sa.select(Round.id, Round.serial, Round.shift_id)
                .where(Round.id.in_(rep_ids[start:start + 1000]))):
            replacement_info[int(rid)] = (int(serial), int(shift_id))
    _Accumulator(session, figures, edges, users, chart=chart).run(
        _rounds(session, ids), events, replaces, replacement_info)
    return figures


def _chain_state(session: orm.Session, fig: ShiftFigures, verify: bool) -> ChainState:
    chain = table_chain(fig.table_id)
    last = session.execute(sa.select(AuditEvent.seq, AuditEvent.hash)
                           .where(AuditEvent.chain == chain, AuditEvent.shift_id == fig.shift_id)
                           .order_by(AuditEvent.seq.desc()).limit(1)).one_or_none()
    if not verify:
        return ChainState(chain, None if last is None else int(last[0]),
                          None if last is None else str(last[1]), None, "not verified", "")
    # The whole chain of the table (and the floor's), from its first event: verify_log's
    # ``since`` would be cheaper but reports a chain with no event since then as cut short.
    result = verify_log(session, table=fig.table)
    return ChainState(chain, None if last is None else int(last[0]),
                      None if last is None else str(last[1]), result.ok, result.summary(),
                      result.head)


def shift_figures(session: orm.Session, shift_id: int, *, verify: bool = True,
                  large_win_threshold: int | None = None) -> tuple[ShiftFigures, Casino, Edges]:
    """The figures of shift ``shift_id``: sums streamed from the log, the audit chain's state
    at the shift's last event, and (``verify``) a verification of the table's chain and
    rounds from the shift's opening on. NotFound if there is no such shift."""
    with read(session):
        shift = session.get(Shift, shift_id)
        if shift is None:
            raise NotFound(f"no shift {shift_id}")
        info = casino(session)
        threshold = _threshold(info, large_win_threshold)
        edges = Edges(session)
        edges.load(shift.table.ruleset_version_id)  # the table's rules, even when idle
        fig = _collect(session, [shift], threshold, edges, info.schedule,
                       chart=True)[shift.id]
        for v in fig.version_ids:
            edges.load(v)
    fig.chain = _chain_state(session, fig, verify)
    if not fig.version_ids:
        fig.version_ids.append(shift.table.ruleset_version_id)
    return fig, info, edges


@dataclass(frozen=True)
class _Threshold:
    """The large-payout threshold: one given for this printing, else the table's own,
    else the casino's, else :data:`DEFAULT_LARGE_WIN`."""

    given: int | None
    casino: int | None

    def for_shift(self, shift: Shift) -> int:
        if self.given is not None:
            return self.given
        own = getattr(shift.table, "large_payout_threshold", None)
        if own is not None:
            return int(own)
        return self.casino if self.casino is not None else DEFAULT_LARGE_WIN


def _threshold(info: Casino, given: int | None) -> _Threshold:
    return _Threshold(given, info.large_win_threshold)


@dataclass
class DayFigures:
    """The daily floor report's figures: each shift opened in the gaming day, by table."""

    day: date
    window: ShiftWindow
    windows: list[ShiftWindow]
    shifts: list[ShiftFigures]
    window_labels: dict[int, str]
    total: MoneyLine
    verified: bool | None
    verify_summary: str
    verify_head: str
    #: Per table of the day: its chain, whether it verified, the summary and chain head.
    chains: list[ChainState] = field(default_factory=list)
    generated_at: datetime = field(default_factory=utcnow)
    #: The schedule the day was cut by (the casino's, or a printing's overrides).
    schedule: ShiftSchedule = field(default_factory=ShiftSchedule)

    def by_table(self) -> dict[str, list[ShiftFigures]]:
        out: dict[str, list[ShiftFigures]] = {}
        for fig in self.shifts:
            out.setdefault(fig.table, []).append(fig)
        return out


def day_schedule(info: Casino, *, day_start: time | None = None,
                 shift_hours: int | None = None,
                 shift_starts: Sequence[time] | None = None) -> ShiftSchedule:
    """The casino's schedule with a printing's overrides (InvalidInput if they do not make
    one: a length not dividing 24, a day start that is not one of the custom starts)."""
    try:
        return info.schedule.overridden(day_start=day_start, hours=shift_hours,
                                        starts=shift_starts)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def day_figures(session: orm.Session, day: date, *, day_start: time | None = None,
                shift_hours: int | None = None, shift_starts: Sequence[time] | None = None,
                verify: bool = True, large_win_threshold: int | None = None
                ) -> tuple[DayFigures, Casino, Edges]:
    """Every shift opened during gaming day ``day``, streamed in one pass, with the
    scheduled window each falls in, and (``verify``) the chain and rounds of every table
    of the day verified. The gaming day and its shifts are the casino's settings (time zone,
    gaming-day start, shift length or custom starts); ``day_start``, ``shift_hours`` and
    ``shift_starts`` override them for this printing."""
    with read(session):
        info = casino(session)
        schedule = day_schedule(info, day_start=day_start, shift_hours=shift_hours,
                                shift_starts=shift_starts)
        window = schedule.gaming_day(day)
        windows = schedule.windows(day)
        threshold = _threshold(info, large_win_threshold)
        shifts = list(session.scalars(
            sa.select(Shift).join(GamingTable, GamingTable.id == Shift.table_id)
            .where(Shift.opened_at >= window.start, Shift.opened_at < window.end)
            .order_by(GamingTable.name, Shift.opened_at, Shift.id)))
        edges = Edges(session)
        figures = _collect(session, shifts, threshold, edges, schedule, chart=False)
        for fig in figures.values():
            for v in fig.version_ids:
                edges.load(v)
        ordered = [figures[s.id] for s in shifts]
        labels = {fig.shift_id: fig.scheduled.label if fig.scheduled else "unscheduled"
                  for fig in ordered}
        total = MoneyLine()
        for fig in ordered:
            total.merge(fig.total)
    verified: bool | None = None
    summary, head = "not verified", ""
    chains: list[ChainState] = []
    if verify:
        # Each table of the day: its whole chain and rounds (and the floor chain), not the
        # whole floor's history.
        tables = {f.table: f.table_id for f in ordered}
        for name, table_id in sorted(tables.items()):
            result = verify_log(session, table=name)
            chains.append(ChainState(f"{name} ({table_chain(table_id)})", result.chains.get(
                table_chain(table_id), (0, ""))[0], result.head, result.ok, result.summary(),
                result.head))
        verified = all(c.verified for c in chains)
        failed = [c for c in chains if not c.verified]
        summary = (f"OK: {len(chains)} table chains and the floor chain"
                   if not failed else f"{len(failed)} of {len(chains)} table chains FAIL; "
                   f"first: {failed[0].chain}: {failed[0].verify_summary}")
    return (DayFigures(day, window, windows, ordered, labels, total, verified, summary, head,
                       chains, schedule=schedule), info, edges)


def naive_shift_totals(session: orm.Session, shift_id: int) -> dict[str, int]:
    """House win and handle of a shift by loading every row as ORM objects at once (the
    baseline the benchmark compares streaming against; also an independent check)."""
    rounds = list(session.scalars(sa.select(Round).where(Round.shift_id == shift_id)))
    events = {e.round_id for e in session.scalars(
        sa.select(RoundEvent).join(Round, Round.id == RoundEvent.round_id)
        .where(Round.shift_id == shift_id))}
    seats = list(session.scalars(sa.select(SeatEntry).join(Round, Round.id == SeatEntry.round_id)
                                 .where(Round.shift_id == shift_id)))
    counted = {r.id for r in rounds if r.id not in events and not r.misdeal}
    handle = win = 0
    for s in seats:
        if s.round_id in counted:
            handle += (s.ante * 2 if s.play else s.ante) + s.pair_plus + s.six_card + s.prime
            win -= s.total
    session.rollback()
    return {"handle": handle, "house_win": win, "rounds": len(counted)}


__all__ = ["BETS", "BET_NAMES", "DEFAULT_LARGE_WIN", "BetLine", "Casino", "ChainState",
           "DayFigures", "DropRecord", "Edge", "Edges", "LargeWin", "MoneyLine", "Movement",
           "RoundNote", "ShiftFigures", "casino", "day_figures", "day_schedule", "deviation", "naive_shift_totals",
           "shift_figures", "theoretical", "total_theoretical", "variance"]
