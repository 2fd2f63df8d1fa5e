"""The arithmetic of a shift audit: hold, theoretical win, the standard-deviation band,
the inventory win, and shift windows in the casino's time zone.

Everything a report prints that is a rule rather than a layout lives here, pure (standard
library and numpy), so the report code only adds up logged nets and lays them out.

Money is integer minor units (cents) throughout; a figure that is not a whole number of
cents (a theoretical win) is an exact :class:`~fractions.Fraction` until it is printed, and
:func:`to_cents` rounds it once, half to even.

Definitions (per bet type, over the rounds that count: a voided round, the original of a
corrected round and a misdeal count for nothing, the replacement of a corrected round counts
like any round):

* **handle** — the money staked: the ante plus the play stake (when played) for ante/play,
  the stake for pair plus, six card bonus and prime.
* **paid** — what the house paid out on winning bets (a returned stake is not a payment);
  **collected** — what it took in on losing bets. Ante, play and ante bonus are paid and
  collected separately, as the chips move at the table.
* **house win** = collected - paid = minus the players' net.
* **hold %** = house win / handle.
* **theoretical win** = the stakes x the exact house edge of the rule set *as played*: the
  seat follows the optimal play/fold strategy, and a fold forfeits the pair plus and the
  prime when the rule set says so (:func:`bets_as_played`). With the default rules that is the
  published edge for pair plus (a hand worth a pair plus payout is always played) and six card
  (paid after a fold), but 30.31% instead of 3.62% for prime, whose published figure assumes
  the seat never folds. For pair plus, six card and prime the theoretical win is handle x
  that edge (per unit staked). For ante/play the exact
  house edge is per unit *ante* (3.3730% for 5-4-1), so the theoretical win is the ante stakes
  x that edge, not the whole handle (ante + play) x edge; it assumes the optimal play/fold
  strategy, so a table that plays badly wins more than theoretical.
* **actual - theoretical in standard deviations** (z) = (house win - theoretical win) / SD,
  where SD is the standard deviation of the house win over those bets. A bet of stake ``s``
  has variance ``s**2 * v`` (``v`` is the bet's variance per unit staked, exact from
  :mod:`.analysis`), so for independent bets the variance adds up to ``v * sum(s**2)`` — note
  ``sum(s**2)``, not ``n * mean(s)**2``: with mixed stakes, "SD per unit x sqrt(n) x average
  stake" understates the spread; the right "average" is the root-mean-square stake. Seats of
  one round share the dealer's hand, so their ante/play results are *not* independent
  (correlation about 0.2: a strong dealer hand beats everyone); two seats of one round with
  antes ``s_i``, ``s_j`` add ``2 * c * s_i * s_j``, with ``c`` the covariance per unit ante
  squared (:func:`ante_play_seat_covariance`, 0.531 for 5-4-1). Hence
  ``Var = v * sum(s**2) + c * sum_rounds((sum_i s_i)**2 - sum_i s_i**2)``. For pair plus the
  seats are independent (it ignores the dealer); for six card and prime the dealer's cards
  are shared too, but a simulation of 400,000 rounds measures their between-seat correlation
  at 1.6% and 0.3%, which this band neglects (it understates their SD by at most 5% at a
  full table). Bets on one seat are strongly correlated (a straight pays the ante bonus and
  the pair plus), so no SD is given for all bets together.
* **inventory win** = closing inventory - opening inventory + credits - fills + drop
  (the table-games win formula: chips taken to the cage are won, chips brought from it are
  not; cash and markers in the drop box are what players paid for chips at the table). The
  count team records each closed shift's drop (:mod:`dealer_assist.services.drops`); a
  shift with none recorded reconciles with a drop of 0 (players bought chips at the cage),
  and the report says so.
* **table hold %** = inventory win / drop (the table-games hold; none without a drop).
* **difference** = inventory win - logged win; any non-zero difference is flagged.

>>> from fractions import Fraction
>>> hold_percent(3_373, 100_000)
Fraction(3373, 1000)
>>> to_cents(theoretical_win(100_001, Fraction(1, 3)))
33334
>>> inventory_win(opening=100_000, closing=112_500, fills=20_000, credits=5_000)
-2500
>>> round(deviation_in_sd(12_000, Fraction(10_000), 4_000_000.0), 6)
1.0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from .analysis import DEALER_HANDS, TOTAL_HANDS, analyze, hand_table
from .rulesets import MINI_ROYAL, RuleSet
from .three_card import CATEGORY_ORDER

__all__ = [
    "SHIFT_LENGTHS",
    "BetAsPlayed",
    "ShiftSchedule",
    "ShiftWindow",
    "VarianceTerms",
    "ante_play_seat_covariance",
    "bets_as_played",
    "clock_text",
    "deviation_in_sd",
    "format_money",
    "format_percent",
    "gaming_day",
    "hold_percent",
    "inventory_win",
    "parse_clock",
    "parse_clocks",
    "shift_windows",
    "theoretical_win",
    "to_cents",
    "window_of",
]


# --------------------------------------------------------------------------- money figures


def hold_percent(win: int, handle: int) -> Fraction | None:
    """House win as a percentage of handle, exact; None when nothing was staked.

    >>> hold_percent(-250, 1_000)
    Fraction(-25, 1)
    >>> hold_percent(0, 0) is None
    True
    """
    if handle == 0:
        return None
    return Fraction(win * 100, handle)


def theoretical_win(stakes: int, house_edge: Fraction) -> Fraction:
    """Expected house win on ``stakes`` (cents) at ``house_edge`` (per unit staked), exact.

    >>> theoretical_win(200_000, Fraction(405, 11186))
    Fraction(40500000, 5593)
    """
    return stakes * house_edge


def to_cents(value: Fraction | int) -> int:
    """A money figure rounded to whole cents, half to even (the one rounding a report does).

    >>> to_cents(Fraction(5, 2)), to_cents(Fraction(7, 2)), to_cents(Fraction(-5, 2))
    (2, 4, -2)
    """
    return round(Fraction(value))


@dataclass
class VarianceTerms:
    """Running sums for the SD band of one bet type (see the module docstring).

    ``sum_sq`` is the sum of squared stakes (per unit of the bet's house edge: the ante for
    ante/play); ``cross`` the sum over rounds of ``(sum of stakes)**2 - sum of squares``,
    i.e. twice the products of stakes of different seats of one round.

    >>> t = VarianceTerms()
    >>> t.add_round([1000, 500])
    >>> t.sum_sq, t.cross, t.count
    (1250000, 1000000, 2)
    """

    sum_sq: int = 0
    cross: int = 0
    count: int = 0

    def add_round(self, stakes: Sequence[int]) -> None:
        """Add one round's stakes of this bet (zero stakes are no bet)."""
        total = 0
        squares = 0
        n = 0
        for s in stakes:
            if s:
                total += s
                squares += s * s
                n += 1
        self.sum_sq += squares
        self.cross += total * total - squares
        self.count += n

    def merge(self, other: VarianceTerms) -> None:
        self.sum_sq += other.sum_sq
        self.cross += other.cross
        self.count += other.count

    def variance(self, per_unit_variance: Fraction | float, seat_covariance: float = 0.0
                 ) -> float:
        """Variance of the house win in cents squared."""
        return float(per_unit_variance) * self.sum_sq + seat_covariance * self.cross


def deviation_in_sd(actual: int, theoretical: Fraction | int, variance: float) -> float | None:
    """(actual - theoretical) / SD; None when there is no spread (no bets).

    >>> deviation_in_sd(-5_000, 1_000, 9_000_000.0)
    -2.0
    >>> deviation_in_sd(0, 0, 0.0) is None
    True
    """
    if variance <= 0:
        return None
    return float(Fraction(actual) - Fraction(theoretical)) / math.sqrt(variance)


def inventory_win(*, opening: int, closing: int, fills: int, credits: int, drop: int = 0) -> int:
    """Table win by inventory: closing - opening + credits - fills + drop (all in cents).

    >>> inventory_win(opening=50_000, closing=50_000, fills=0, credits=0, drop=12_000)
    12000
    """
    return closing - opening + credits - fills + drop


@dataclass(frozen=True)
class BetAsPlayed:
    """A bet's house edge and variance per unit staked for a seat playing optimally.

    ``exact`` is False when the analysis has no figure for this rule (a six card bet lost on
    a fold): the never-fold figures stand in, and the report says so.
    """

    house_edge: Fraction
    variance: Fraction
    exact: bool = True

    @property
    def std_dev(self) -> float:
        return math.sqrt(self.variance)


def _moments(nets: np.ndarray[tuple[int], np.dtype[np.int64]], weights: np.ndarray[
        tuple[int], np.dtype[np.int64]], total: int) -> BetAsPlayed:
    mean = Fraction(int((nets * weights).sum()), total)
    square = Fraction(int((nets * nets * weights).sum()), total)
    return BetAsPlayed(-mean, square - mean * mean)


def _three_card_pays(pays: dict[str, int] | Any) -> np.ndarray[tuple[int], np.dtype[np.int64]]:
    table = hand_table()
    keys = [c.value for c in CATEGORY_ORDER]
    key_index = table.category.copy()
    if MINI_ROYAL in pays:
        key_index[table.mini_royal] = len(keys)
    lookup = np.array([pays.get(k, 0) or -1 for k in [*keys, MINI_ROYAL]], dtype=np.int64)
    result: np.ndarray[tuple[int], np.dtype[np.int64]] = lookup[key_index]
    return result


@lru_cache(maxsize=32)
def bets_as_played(rules: RuleSet) -> dict[str, BetAsPlayed]:
    """Each bet's exact house edge and variance per unit staked (ante/play per unit ante)
    for a seat that follows the optimal strategy, folds included.

    >>> from dealer_assist.domain.rulesets import DEFAULT_RULES
    >>> figures = bets_as_played(DEFAULT_RULES)
    >>> [f"{float(figures[b].house_edge):.4%}" for b in ("ante_play", "pair_plus", "prime")]
    ['3.3730%', '2.3167%', '30.3103%']
    >>> round(figures["prime"].std_dev, 4), figures["six_card"].exact
    (1.5439, True)
    """
    result = analyze(rules)
    out = {"ante_play": BetAsPlayed(result.ante_play.house_edge, result.ante_play.variance)}
    table = hand_table()
    play = result.ante_play.strategy.play
    ones = np.ones(TOTAL_HANDS, dtype=np.int64)
    if rules.pair_plus:
        pays = _three_card_pays(dict(rules.pair_plus))
        if rules.fold_forfeits_pair_plus:
            pays = np.where(play, pays, -1)
        out["pair_plus"] = _moments(pays, ones, TOTAL_HANDS)
    else:
        out["pair_plus"] = BetAsPlayed(Fraction(0), Fraction(0))
    six = result.six_card
    if six.house_edge_with_folds is not None or not rules.six_card_bonus:
        out["six_card"] = BetAsPlayed(six.house_edge, six.variance)
    else:
        out["six_card"] = BetAsPlayed(six.house_edge, six.variance, exact=False)
    if rules.prime:
        three, six_pay = (rules.prime[k] or -1 for k in ("three_same_color", "six_same_color"))
        d = DEALER_HANDS
        match = math.comb(23, 3)
        wins = table.one_color & (play if rules.fold_forfeits_prime else True)
        losers = TOTAL_HANDS - int(wins.sum())
        n_win = int(wins.sum())
        nets = np.array([-1, three, six_pay], dtype=np.int64)
        weights = np.array([losers * d, n_win * (d - match), n_win * match], dtype=np.int64)
        out["prime"] = _moments(nets, weights, TOTAL_HANDS * d)
    else:
        out["prime"] = BetAsPlayed(Fraction(0), Fraction(0))
    return out


@lru_cache(maxsize=32)
def _seat_covariance(rules: RuleSet) -> float:
    table = hand_table()
    play = analyze(rules).ante_play.strategy.play
    keys = [c.value for c in CATEGORY_ORDER]
    key_index = table.category.copy()
    if MINI_ROYAL in rules.ante_bonus:
        key_index[table.mini_royal] = len(keys)
    lookup = np.array([rules.ante_bonus.get(k, 0) for k in [*keys, MINI_ROYAL]],
                      dtype=np.int64)
    bonus = lookup[key_index]
    strength = table.strength
    played = np.sort(strength[play])
    n_play = int(play.sum())
    above = n_play - np.searchsorted(played, strength, side="right")
    below = np.searchsorted(played, strength, side="left")
    qualifies = strength >= rules.dealer_qualifier.strength
    # Per dealer hand: the players' total result (in antes) over every player hand.
    result = np.where(qualifies, 2 * above - 2 * below, n_play)
    result = result + int(bonus[play].sum()) - (TOTAL_HANDS - n_play)
    mean = Fraction(int(result.sum()), TOTAL_HANDS * TOTAL_HANDS)
    square = Fraction(int((result * result).sum()), TOTAL_HANDS ** 3)
    return float(square - mean * mean)


def ante_play_seat_covariance(rules: RuleSet) -> float:
    """Covariance of two seats' ante/play results in one round, per unit ante squared.

    The seats share the dealer's hand: ``c = Var_D(E[X | D])`` over the dealer's hand ``D``,
    both seats following the optimal strategy. The expectation given ``D`` is taken over
    every player hand ignoring the three cards the dealer holds (card removal), which a
    simulation puts within 2% of the true covariance.

    >>> from dealer_assist.domain.rulesets import DEFAULT_RULES
    >>> round(ante_play_seat_covariance(DEFAULT_RULES), 3)
    0.531
    """
    return _seat_covariance(rules)


# --------------------------------------------------------------------------- display


def format_money(cents: int, *, sign: bool = False) -> str:
    """Integer cents as ``12,345.67`` (exact: no float is involved).

    >>> format_money(123456789), format_money(-5), format_money(0), format_money(250, sign=True)
    ('1,234,567.89', '-0.05', '0.00', '+2.50')
    """
    negative = cents < 0
    whole, part = divmod(abs(cents), 100)
    prefix = "-" if negative else ("+" if sign and cents > 0 else "")
    return f"{prefix}{whole:,}.{part:02d}"


def format_percent(value: Fraction | None, places: int = 2) -> str:
    """A percentage rounded half to even, or an em dash for none.

    >>> format_percent(Fraction(3373, 1000)), format_percent(None), format_percent(Fraction(-1, 3))
    ('3.37%', '—', '-0.33%')
    """
    if value is None:
        return "—"
    scaled = round(value * 10 ** places)
    negative = scaled < 0
    whole, part = divmod(abs(scaled), 10 ** places)
    return f"{'-' if negative else ''}{whole}.{part:0{places}d}%"


# --------------------------------------------------------------------------- shift windows


@dataclass(frozen=True)
class ShiftWindow:
    """A scheduled shift: its label, and its start and end as aware UTC instants."""

    label: str
    start: datetime
    end: datetime

    @property
    def hours(self) -> float:
        return (self.end - self.start).total_seconds() / 3600

    def contains(self, instant: datetime) -> bool:
        return self.start <= instant < self.end


def _local(day: date, at: time, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, at, tzinfo=zone).astimezone(UTC)


def gaming_day(day: date, zone: str, day_start: time = time(0)) -> ShiftWindow:
    """The gaming day ``day`` in ``zone``: from ``day_start`` that day to ``day_start`` the
    next, as UTC instants (23 or 25 hours long when the clocks change).

    >>> d = gaming_day(date(2024, 3, 10), "America/New_York")
    >>> d.start.isoformat(), d.end.isoformat(), d.hours
    ('2024-03-10T05:00:00+00:00', '2024-03-11T04:00:00+00:00', 23.0)
    """
    tz = ZoneInfo(zone)
    return ShiftWindow(day.isoformat(), _local(day, day_start, tz),
                       _local(day + timedelta(days=1), day_start, tz))


def shift_windows(day: date, zone: str, *, hours: int | None = 8,
                  starts: Sequence[time] | None = None,
                  day_start: time = time(0)) -> list[ShiftWindow]:
    """The scheduled shifts of gaming day ``day``: every ``hours`` (8, 12, 24 or any
    divisor of 24) from ``day_start``, or custom local ``starts`` (each shift runs to the
    next start; the last to the end of the gaming day). With custom starts the gaming day
    starts at ``day_start`` if it is one of them (a start before it on the clock falls on the
    next calendar date), else at the earliest start. Times are wall-clock times in
    ``zone``, so a shift spanning a clock change is an hour shorter or longer.

    >>> [w.label for w in shift_windows(date(2024, 5, 1), "Europe/London", hours=8,
    ...                                 day_start=time(6))]
    ['06:00-14:00', '14:00-22:00', '22:00-06:00']
    >>> w = shift_windows(date(2024, 5, 1), "UTC", starts=[time(6), time(18)])
    >>> [(x.label, x.hours) for x in w]
    [('06:00-18:00', 12.0), ('18:00-06:00', 12.0)]
    >>> [w.label for w in shift_windows(date(2024, 5, 1), "UTC", day_start=time(22),
    ...                                 starts=[time(6), time(14), time(22)])]
    ['22:00-06:00', '06:00-14:00', '14:00-22:00']
    """
    tz = ZoneInfo(zone)
    if starts:
        if day_start in starts:  # in gaming-day order: from day_start round the clock
            local = sorted(set(starts), key=lambda t: (t < day_start, t))
        else:
            local = sorted(set(starts))
            day_start = local[0]
    else:
        if not hours or 24 % hours:
            raise ValueError(f"a shift length must divide 24 hours, not {hours}")
        first = datetime.combine(day, day_start)
        local = [(first + timedelta(hours=hours * k)).time() for k in range(24 // hours)]
    out: list[ShiftWindow] = []
    for k, start in enumerate(local):
        start_day = day if start >= day_start else day + timedelta(days=1)
        if k + 1 < len(local):
            end = local[k + 1]
            end_day = day if end > day_start else day + timedelta(days=1)
        else:
            end, end_day = day_start, day + timedelta(days=1)
        out.append(ShiftWindow(f"{start:%H:%M}-{end:%H:%M}", _local(start_day, start, tz),
                               _local(end_day, end, tz)))
    return out


def window_of(instant: datetime, windows: Iterable[ShiftWindow]) -> ShiftWindow | None:
    """The scheduled window an instant (a shift's opening) falls in, if any.

    >>> ws = shift_windows(date(2024, 5, 1), "UTC", hours=12)
    >>> window_of(datetime(2024, 5, 1, 13, 5, tzinfo=UTC), ws).label
    '12:00-00:00'
    """
    for window in windows:
        if window.contains(instant):
            return window
    return None


#: Regular shift lengths a casino may choose (any divisor of 24 works; these are offered).
SHIFT_LENGTHS = (8, 12, 24)


def clock_text(value: time) -> str:
    """A wall-clock time as ``HH:MM`` (how settings and labels write it).

    >>> clock_text(time(6, 30))
    '06:30'
    """
    return f"{value:%H:%M}"


@dataclass(frozen=True)
class ShiftSchedule:
    """A casino's scheduled shifts in its time zone: the gaming day starts at ``day_start``
    and is cut into shifts of ``hours`` (a divisor of 24), or at custom local ``starts``
    (then ``day_start`` must be one of them: the gaming day's first shift opens it).

    >>> s = ShiftSchedule("America/New_York", time(6), 8)
    >>> at = datetime(2024, 5, 2, 9, 30, tzinfo=UTC)          # 05:30 in New York
    >>> s.day_of(at), s.window_for(at).label
    (datetime.date(2024, 5, 1), '22:00-06:00')
    >>> s.overrun(at, datetime(2024, 5, 2, 10, 45, tzinfo=UTC))  # closed 06:45
    datetime.timedelta(seconds=2700)
    >>> ShiftSchedule("UTC", time(6), starts=(time(6), time(18))).describe()
    'custom shifts from 06:00, 18:00 (gaming day from 06:00)'
    """

    zone: str = "UTC"
    day_start: time = time(0)
    hours: int = 8
    starts: tuple[time, ...] = ()

    def __post_init__(self) -> None:
        try:
            ZoneInfo(self.zone)
        except (KeyError, ValueError) as exc:  # ZoneInfoNotFoundError is a KeyError
            raise ValueError(f"unknown time zone {self.zone!r}") from exc
        if self.day_start.second or self.day_start.microsecond or self.day_start.tzinfo:
            raise ValueError("the gaming day starts on a whole minute, local time")
        if self.starts:
            if len(set(self.starts)) != len(self.starts):
                raise ValueError("a custom shift start is given twice")
            if any(t.second or t.microsecond or t.tzinfo for t in self.starts):
                raise ValueError("custom shift starts are whole minutes, local time")
            if self.day_start not in self.starts:
                raise ValueError(f"the gaming day start {clock_text(self.day_start)} must be "
                                 f"one of the custom shift starts (the day's first shift "
                                 f"opens it)")
        elif isinstance(self.hours, bool) or not isinstance(self.hours, int) \
                or not 1 <= self.hours <= 24 or 24 % self.hours:
            raise ValueError(f"a shift length must divide 24 hours (8, 12 or 24), "
                             f"not {self.hours!r}")

    @property
    def custom(self) -> bool:
        return bool(self.starts)

    def ordered_starts(self) -> list[time]:
        """The custom starts in gaming-day order (from ``day_start`` round the clock)."""
        return sorted(self.starts, key=lambda t: (t < self.day_start, t))

    def describe(self) -> str:
        if self.starts:
            return (f"custom shifts from {', '.join(map(clock_text, self.ordered_starts()))} "
                    f"(gaming day from {clock_text(self.day_start)})")
        return f"{self.hours} h shifts from {clock_text(self.day_start)}"

    def gaming_day(self, day: date) -> ShiftWindow:
        return gaming_day(day, self.zone, self.day_start)

    def day_of(self, instant: datetime) -> date:
        """The gaming day an instant falls in (its local date, the day before if earlier
        than the day's start)."""
        local = instant.astimezone(ZoneInfo(self.zone)).date()
        for day in (local, local - timedelta(days=1), local + timedelta(days=1)):
            if self.gaming_day(day).contains(instant):
                return day
        return local  # pragma: no cover - every instant is in one of the three

    def windows(self, day: date) -> list[ShiftWindow]:
        """The scheduled shifts of gaming day ``day``."""
        return shift_windows(day, self.zone, hours=None if self.starts else self.hours,
                             starts=self.starts or None, day_start=self.day_start)

    def window_for(self, instant: datetime) -> ShiftWindow | None:
        """The scheduled shift an instant (a shift's opening) falls in."""
        return window_of(instant, self.windows(self.day_of(instant)))

    def overrun(self, opened: datetime, until: datetime) -> timedelta | None:
        """How long a shift opened at ``opened`` ran past the end of its scheduled window
        by ``until`` (its closing, or now while open); None if it did not."""
        window = self.window_for(opened)
        if window is None or until <= window.end:
            return None
        return until - window.end

    def overridden(self, *, day_start: time | None = None, hours: int | None = None,
                   starts: Sequence[time] | None = None) -> ShiftSchedule:
        """This schedule with a printing's overrides (a report's options): ``hours`` gives
        regular shifts, ``starts`` custom ones (gaming day from ``day_start`` if given,
        else from this one's if it is a start, else from the earliest start)."""
        if starts:
            chosen = tuple(sorted(set(starts)))
            first = day_start if day_start is not None else (
                self.day_start if self.day_start in chosen else chosen[0])
            return ShiftSchedule(self.zone, first, self.hours, chosen)
        if hours is not None:
            return ShiftSchedule(self.zone, self.day_start if day_start is None else day_start,
                                 hours)
        if day_start is not None:
            return ShiftSchedule(self.zone, day_start, self.hours, self.starts)
        return self


def parse_clock(text: str) -> time:
    """``06:00`` (or ``6:00``) as a wall-clock time; ValueError if it is not one.

    >>> parse_clock("6:30"), parse_clock(" 22:00 ")
    (datetime.time(6, 30), datetime.time(22, 0))
    """
    raw = text.strip()
    hour, sep, minute = raw.partition(":")
    if not sep or not hour.isdigit() or not minute.isdigit() or len(minute) != 2 \
            or len(hour) > 2 or int(hour) > 23 or int(minute) > 59:
        raise ValueError(f"a time like 06:00, not {text!r}")
    return time(int(hour), int(minute))


def parse_clocks(text: str) -> tuple[time, ...]:
    """``06:00, 14:30 22:00`` as times (commas or spaces between them).

    >>> parse_clocks("06:00, 14:30 22:00")
    (datetime.time(6, 0), datetime.time(14, 30), datetime.time(22, 0))
    """
    return tuple(parse_clock(part) for part in text.replace(",", " ").split())
