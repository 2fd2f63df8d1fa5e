"""Paying a seat in chips: what the dealer pays, collects, and the chips that make the payout.

A dealer pays a winning seat by cutting chips from the rack, largest denomination first
(``$245 = 2 x $100, 1 x $25, 4 x $5``). Amounts are minor units (cents), like every amount
in the domain.

>>> [f"{c.count} x {c.denomination}" for c in cut_chips(24500, (10000, 2500, 500, 100))]
['2 x 10000', '1 x 2500', '4 x 500']
>>> plan = seat_pay_plan({"seat": 3, "total": 1500,
...     "bets": [{"bet": "ante", "net": 1000}, {"bet": "play", "net": 1000},
...              {"bet": "pair_plus", "net": -500}]}, (10000, 2500, 500, 100), 100000)
>>> plan.pay, plan.collect, plan.net, plan.flagged
(2000, 500, 1500, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import DomainError, shown

#: US casino chip colours by value in cents: $1 white, $5 red, $25 green, $100 black,
#: $500 purple, $1000 orange (yellow in some houses), $5000 grey. Used where a table sets none.
DEFAULT_DENOMINATIONS: tuple[int, ...] = (500000, 100000, 50000, 10000, 2500, 500, 100)


class ChipError(DomainError):
    """Denominations that cannot be used to pay (empty, zero, negative, repeated)."""


@dataclass(frozen=True, slots=True)
class ChipCount:
    """``count`` chips of ``denomination`` (minor units)."""

    denomination: int
    count: int

    def to_json(self) -> dict[str, int]:
        return {"denomination": self.denomination, "count": self.count}


def check_denominations(denominations: Iterable[int]) -> tuple[int, ...]:
    """Validate chip values and return them largest first.

    >>> check_denominations([500, 2500, 100])
    (2500, 500, 100)
    >>> check_denominations([100, 0])
    Traceback (most recent call last):
    ...
    dealer_assist.domain.chips.ChipError: chip denominations must be positive whole cents, not 0
    """
    values = list(denominations)
    if not values:
        raise ChipError("a table needs at least one chip denomination", "denominations")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ChipError(f"chip denominations must be positive whole cents, not {shown(value)}",
                            "denominations")
    if len(set(values)) != len(values):
        raise ChipError("a chip denomination is listed twice", "denominations")
    return tuple(sorted(values, reverse=True))


def cut_chips(amount: int, denominations: Iterable[int]) -> tuple[ChipCount, ...]:
    """The chips a dealer cuts for ``amount``, largest first (greedy, as chips are cut).

    A remainder smaller than the smallest chip (paid in coin or a marker) is left out; see
    :func:`chip_remainder`.

    >>> cut_chips(0, (500, 100))
    ()
    >>> [(c.denomination, c.count) for c in cut_chips(780, (500, 100))]
    [(500, 1), (100, 2)]
    >>> cut_chips(-5, (100,))
    Traceback (most recent call last):
    ...
    dealer_assist.domain.chips.ChipError: cannot cut chips for a negative amount (-5)
    """
    if amount < 0:
        raise ChipError(f"cannot cut chips for a negative amount ({amount})", "amount")
    left = amount
    out: list[ChipCount] = []
    for value in check_denominations(denominations):
        count, left = divmod(left, value)
        if count:
            out.append(ChipCount(value, count))
    return tuple(out)


def chip_remainder(amount: int, denominations: Iterable[int]) -> int:
    """What :func:`cut_chips` cannot pay in chips.

    >>> chip_remainder(780, (500, 100))
    80
    """
    return amount - sum(c.denomination * c.count for c in cut_chips(amount, denominations))


@dataclass(frozen=True, slots=True)
class SeatPayPlan:
    """One seat's pay-out: wins paid, losing stakes collected, and the chips for the pay."""

    seat: int
    pay: int
    collect: int
    net: int
    chips: tuple[ChipCount, ...]
    remainder: int
    flagged: bool

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "pay": self.pay, "collect": self.collect, "net": self.net,
                "chips": [c.to_json() for c in self.chips], "remainder": self.remainder,
                "flagged": self.flagged}


def seat_pay_plan(seat: Mapping[str, Any], denominations: Sequence[int],
                  threshold: int | None) -> SeatPayPlan:
    """Pay plan for one seat of a settlement's JSON (``settle_json`` output).

    The dealer collects every losing stake and pays every winning bet; a push returns the
    stake and is neither. ``flagged`` is true when the pay exceeds ``threshold`` (the table's
    large-payout threshold; ``None`` flags nothing).

    >>> p = seat_pay_plan({"seat": 1, "total": 24500, "bets": [{"bet": "pair_plus", "net": 24500}]},
    ...                   (10000, 2500, 500), 20000)
    >>> [(c.denomination, c.count) for c in p.chips], p.flagged
    ([(10000, 2), (2500, 1), (500, 4)], True)
    """
    nets = [int(b["net"]) for b in seat.get("bets", ())]
    pay = sum(n for n in nets if n > 0)
    collect = -sum(n for n in nets if n < 0)
    return SeatPayPlan(
        seat=int(seat["seat"]), pay=pay, collect=collect, net=pay - collect,
        chips=cut_chips(pay, denominations), remainder=chip_remainder(pay, denominations),
        flagged=threshold is not None and pay > threshold)


def round_pay_plan(settlement: Mapping[str, Any], denominations: Sequence[int],
                   threshold: int | None) -> list[SeatPayPlan]:
    """:func:`seat_pay_plan` for every seat of a settlement, in seat order.

    >>> from .settle_json import settle_json
    >>> s = settle_json({"dealer": ["QH", "8C", "3D"], "seats": [
    ...     {"seat": 2, "cards": ["5C", "5D", "9H"], "ante": 1000, "pair_plus": 500},
    ...     {"seat": 1, "cards": ["KS", "7H", "2C"], "ante": 1000, "play": True}]})
    >>> [(p.seat, p.pay, p.collect) for p in round_pay_plan(s, DEFAULT_DENOMINATIONS, None)]
    [(1, 2000, 0), (2, 0, 1500)]
    """
    plans = [seat_pay_plan(seat, denominations, threshold) for seat in settlement["seats"]]
    return sorted(plans, key=lambda p: p.seat)


#: The most chips of one denomination an inventory, fill or credit may count.
MAX_CHIP_COUNT = 1_000_000


def chip_counts(typed: Mapping[int, str], denominations: Iterable[int]) -> dict[int, int]:
    """Chip counts typed per denomination (a supervisor's opening or closing inventory, a
    fill, a credit) as ``{denomination: count}``, largest first, without the blanks and zeros.

    Only the table's own denominations are counted; a count is a whole number of chips.

    >>> chip_counts({500: "100", 2500: " 40 ", 10000: "", 100: "0"}, (10000, 2500, 500, 100))
    {2500: 40, 500: 100}
    >>> chip_counts({500: "1,200"}, (500,))
    {500: 1200}
    >>> chip_counts({500: "-3"}, (500,))
    Traceback (most recent call last):
    ...
    dealer_assist.domain.chips.ChipError: chips of 5.00: '-3' is not a count of chips (a whole number, 0 or more)
    >>> chip_counts({700: "1"}, (500,))
    Traceback (most recent call last):
    ...
    dealer_assist.domain.chips.ChipError: chips of 7.00 are not used at this table
    """
    allowed = set(check_denominations(denominations))
    out: dict[int, int] = {}
    for denom, raw in typed.items():
        label = f"chips of {denom // 100}.{denom % 100:02d}"
        if denom not in allowed:
            raise ChipError(f"{label} are not used at this table", f"chip-{denom}")
        text = raw.strip().replace(",", "")
        if text == "":
            continue
        if not text.isdigit() or not text.isascii():
            raise ChipError(f"{label}: {shown(raw.strip())} is not a count of chips "
                            f"(a whole number, 0 or more)", f"chip-{denom}")
        count = int(text)
        if count > MAX_CHIP_COUNT:
            raise ChipError(f"{label}: {count:,} is more chips than a table holds",
                            f"chip-{denom}")
        if count:
            out[denom] = count
    return {d: out[d] for d in sorted(out, reverse=True)}


__all__ = ["DEFAULT_DENOMINATIONS", "MAX_CHIP_COUNT", "ChipCount", "ChipError", "SeatPayPlan",
           "check_denominations", "chip_counts", "chip_remainder", "cut_chips",
           "round_pay_plan", "seat_pay_plan"]
