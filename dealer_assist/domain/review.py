"""Putting a settled round right: what a correction changes per seat, and the re-check.

Pure arithmetic on settlement JSON (:func:`dealer_assist.domain.settle_json.settle_json`
output, or the stored nets): no database, no web.

A correction is a new round; the chips already moved for the original. What the table
must still do for each seat is the corrected net minus the original net: pay the player
that much more when positive, collect it back when negative.

>>> original = {"seats": [{"seat": 1, "total": 2000}, {"seat": 2, "total": -1500}]}
>>> corrected = {"seats": [{"seat": 1, "total": -2000}, {"seat": 2, "total": 1500}]}
>>> [(d.seat, d.action, d.amount) for d in correction_deltas(original, corrected)]
[(1, 'collect', 4000), (2, 'pay', 3000)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Bets in the order a settlement lists them.
NET_KEYS = ("ante", "play", "ante_bonus", "pair_plus", "six_card", "prime")


@dataclass(frozen=True, slots=True)
class SeatDelta:
    """What a correction means for one seat: ``difference`` = corrected - original net."""

    seat: int
    original: int
    corrected: int

    @property
    def difference(self) -> int:
        return self.corrected - self.original

    @property
    def action(self) -> str:
        """``pay`` (the player is owed more), ``collect`` (was overpaid) or ``none``."""
        d = self.difference
        return "pay" if d > 0 else ("collect" if d < 0 else "none")

    @property
    def amount(self) -> int:
        return abs(self.difference)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "original": self.original, "corrected": self.corrected,
                "difference": self.difference, "action": self.action, "amount": self.amount}


def _seat_totals(settlement: Mapping[str, Any]) -> dict[int, int]:
    return {int(s["seat"]): int(s["total"]) for s in settlement.get("seats", ())}


def correction_deltas(original: Mapping[str, Any],
                      corrected: Mapping[str, Any]) -> list[SeatDelta]:
    """Per seat of either round (a seat missing from one counts as 0 there), seat order.

    >>> d = correction_deltas({"seats": [{"seat": 3, "total": 500}]},
    ...                       {"seats": [{"seat": 4, "total": 500}]})
    >>> [(x.seat, x.action, x.amount) for x in d]
    [(3, 'collect', 500), (4, 'pay', 500)]
    >>> correction_deltas({"seats": [{"seat": 1, "total": 7}]},
    ...                   {"seats": [{"seat": 1, "total": 7}]})[0].action
    'none'
    """
    a, b = _seat_totals(original), _seat_totals(corrected)
    return [SeatDelta(seat, a.get(seat, 0), b.get(seat, 0)) for seat in sorted(set(a) | set(b))]


def net_change(deltas: Iterable[SeatDelta]) -> int:
    """What the table still pays out in all (negative: collects).

    >>> net_change([SeatDelta(1, 0, 500), SeatDelta(2, 300, 0)])
    200
    """
    return sum(d.difference for d in deltas)


@dataclass(frozen=True, slots=True)
class NetDifference:
    """One bet of one seat where the stored net and the re-computed net differ."""

    seat: int
    bet: str
    stored: int | None
    recomputed: int | None

    def __str__(self) -> str:
        def show(v: int | None) -> str:
            return "absent" if v is None else str(v)
        return (f"seat {self.seat} {self.bet.replace('_', ' ')}: logged {show(self.stored)}, "
                f"re-computed {show(self.recomputed)}")

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "bet": self.bet, "stored": self.stored,
                "recomputed": self.recomputed}


def recheck(stored: Mapping[int, Mapping[str, int]],
            recomputed: Mapping[str, Any]) -> list[NetDifference]:
    """Where the logged nets differ from a fresh settlement (empty: they agree).

    ``stored``: seat -> {bet: net} as logged; ``recomputed``: a settlement's JSON.

    >>> fresh = {"seats": [{"seat": 1, "net": {"ante": 1000, "play": 1000}}]}
    >>> recheck({1: {"ante": 1000, "play": 1000}}, fresh)
    []
    >>> [str(d) for d in recheck({1: {"ante": 1000, "play": 0}}, fresh)]
    ['seat 1 play: logged 0, re-computed 1000']
    >>> [str(d) for d in recheck({1: {"ante": 1000, "play": 1000}, 2: {"ante": 5}}, fresh)]
    ['seat 2 ante: logged 5, re-computed absent']
    """
    fresh = {int(s["seat"]): {k: int(v) for k, v in s["net"].items()}
             for s in recomputed.get("seats", ())}
    out: list[NetDifference] = []
    for seat in sorted(set(stored) | set(fresh)):
        a, b = stored.get(seat), fresh.get(seat)
        for bet in NET_KEYS:
            x = None if a is None else int(a.get(bet, 0))
            y = None if b is None else int(b.get(bet, 0))
            if x != y:
                out.append(NetDifference(seat, bet, x, y))
    return _collapse_absent(out)


def _collapse_absent(diffs: Sequence[NetDifference]) -> list[NetDifference]:
    """A seat missing on one side differs on every bet: keep its first non-zero bet only."""
    out: list[NetDifference] = []
    seen: set[int] = set()
    for d in diffs:
        if d.stored is None or d.recomputed is None:
            if d.seat in seen:
                continue
            seen.add(d.seat)
        out.append(d)
    return out


def combined_deviation(actual: int, theoretical: float,
                       variances: Iterable[float]) -> float | None:
    """(actual - theoretical) / SD with the bets' variances added (their covariance, a
    small positive term from sharing a hand, is left out: the band is a screening aid).

    >>> combined_deviation(-6_000, 0.0, [4_000_000.0])
    -3.0
    >>> combined_deviation(0, 0.0, []) is None
    True
    """
    total = sum(variances)
    if total <= 0:
        return None
    return (actual - theoretical) / math.sqrt(total)


def beyond(z: float | None, limit: float = 3.0) -> bool:
    """True when a deviation lies outside +-``limit`` standard deviations.

    >>> beyond(-3.2), beyond(2.9), beyond(None)
    (True, False, False)
    """
    return z is not None and abs(z) > limit


__all__ = ["NET_KEYS", "NetDifference", "SeatDelta", "beyond", "combined_deviation",
           "correction_deltas", "net_change", "recheck"]
