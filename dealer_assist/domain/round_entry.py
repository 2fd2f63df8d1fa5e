"""A round as the dealer enters it: dealer cards, and per seat cards, stakes and decision.

Parsing turns untrusted JSON into a validated :class:`RoundEntry` or raises a
:class:`RoundError` whose message names the seat and the problem, and whose
``field`` points at the JSON path.

>>> entry = parse_round({"dealer": ["QS", "7H", "2C"],
...     "seats": [{"seat": 1, "cards": ["AS", "KD", "3C"], "ante": 1000, "play": True}]})
>>> entry.seats[0].play, entry.seats[0].ante
(True, 1000)
>>> parse_round({"dealer": ["QS", "7H", "2C"],
...     "seats": [{"seat": 3, "cards": ["QS", "KD", "3C"], "ante": 1000, "play": True}]})
Traceback (most recent call last):
...
dealer_assist.domain.errors.RoundError: seat 3: QS is already the dealer's card
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import Card, parse_cards
from .errors import CardError, RoundError, shown
from .rulesets import DEFAULT_RULES, RuleSet

MAX_SEATS = 7
#: No table takes a bet this large ($1 billion); the bound keeps every payout (stake x pays,
#: pays at most rulesets.MAX_PAYS) well inside a 64-bit integer in the log and the batch path.
MAX_STAKE = 100_000_000_000
STAKE_KEYS = ("ante", "pair_plus", "six_card", "prime")
_SEAT_KEYS = frozenset({"seat", "cards", "play", *STAKE_KEYS})
_ROUND_KEYS = frozenset({"dealer", "seats", "rules", "misdeal", "misdeal_reason"})
_BET_NAMES = {"ante": "ante", "pair_plus": "pair plus", "six_card": "six card bonus",
              "prime": "prime"}


@dataclass(frozen=True, slots=True)
class SeatEntry:
    """One seat's cards, stakes (minor units, 0 = no bet) and decision (play or fold)."""

    seat: int
    cards: tuple[Card, ...]
    ante: int = 0
    play: bool = False
    pair_plus: int = 0
    six_card: int = 0
    prime: int = 0

    @property
    def play_stake(self) -> int:
        return self.ante if self.play else 0

    @property
    def staked(self) -> int:
        """Everything the seat put on the layout this round."""
        return self.ante + self.play_stake + self.pair_plus + self.six_card + self.prime

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "cards": [str(c) for c in self.cards], "ante": self.ante,
                "play": self.play, "pair_plus": self.pair_plus, "six_card": self.six_card,
                "prime": self.prime}


@dataclass(frozen=True, slots=True)
class RoundEntry:
    """A whole round. A misdeal returns every stake (RULES.md §7); its cards may be partial."""

    dealer: tuple[Card, ...]
    seats: tuple[SeatEntry, ...]
    misdeal: bool = False
    misdeal_reason: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"dealer": [str(c) for c in self.dealer],
                                "seats": [s.to_json() for s in self.seats]}
        if self.misdeal:
            data["misdeal"] = True
            data["misdeal_reason"] = self.misdeal_reason
        return data


def _stake(value: object, where: str, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RoundError(f"{where}: {label} stake must be a whole number of cents, not {shown(value)}")
    if value < 0:
        raise RoundError(f"{where}: {label} stake cannot be negative ({value})")
    if value > MAX_STAKE:
        raise RoundError(f"{where}: {label} stake {shown(value)} is beyond any table "
                         f"(at most {MAX_STAKE} cents)")
    return value


def _cards(raw: object, where: str, field_path: str) -> tuple[Card, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, (str, list, tuple)):
        raise RoundError(f"{where}: cards must be a list like [\"AS\", \"KD\", \"3C\"]",
                         field_path)
    try:
        return tuple(parse_cards(raw))
    except CardError as exc:
        raise RoundError(f"{where}: {exc.message}", field_path) from exc


def _parse_seat(raw: object, index: int, seat_count: int) -> SeatEntry:
    path = f"seats[{index}]"
    if not isinstance(raw, Mapping):
        raise RoundError(f"seat entry {index + 1}: must be an object", path)
    number = raw.get("seat")
    if isinstance(number, bool) or not isinstance(number, int):
        raise RoundError(f"seat entry {index + 1}: \"seat\" must be a seat number 1-{seat_count}",
                         f"{path}.seat")
    where = f"seat {number}"
    if not 1 <= number <= seat_count:
        raise RoundError(f"{where} is not at this table (seats 1-{seat_count})", f"{path}.seat")
    unknown = sorted(set(raw) - _SEAT_KEYS)
    if unknown:
        raise RoundError(f"{where}: unknown field \"{unknown[0]}\" "
                         f"(known: {', '.join(sorted(_SEAT_KEYS))})", f"{path}.{unknown[0]}")
    stakes = {key: _stake(raw.get(key, 0), where, _BET_NAMES[key]) for key in STAKE_KEYS}
    play_raw = raw.get("play", False)
    if isinstance(play_raw, bool):
        play = play_raw
    elif isinstance(play_raw, int):
        if play_raw not in (0, stakes["ante"]):
            raise RoundError(f"{where}: play stake {play_raw} must equal the ante "
                             f"({stakes['ante']}) or be 0 for a fold", f"{path}.play")
        play = play_raw > 0
    else:
        raise RoundError(f"{where}: play must be true (play) or false (fold)", f"{path}.play")
    return SeatEntry(seat=number, cards=_cards(raw.get("cards"), where, f"{path}.cards"),
                     play=play, **stakes)


def _check_limits(seat: SeatEntry, rules: RuleSet, path: str) -> None:
    for key in STAKE_KEYS:
        limit = rules.limits.get(key)
        amount: int = getattr(seat, key)
        if limit is None or amount == 0:
            continue
        if amount < limit.minimum or (limit.maximum is not None and amount > limit.maximum):
            top = "no maximum" if limit.maximum is None else f"maximum {limit.maximum}"
            raise RoundError(f"seat {seat.seat}: {_BET_NAMES[key]} stake {amount} is outside "
                             f"the table limits (minimum {limit.minimum}, {top})",
                             f"{path}.{key}")


def _check_bets(seat: SeatEntry, rules: RuleSet, path: str) -> None:
    where = f"seat {seat.seat}"
    if seat.ante == 0 and seat.play:
        raise RoundError(f"{where}: cannot play without an ante", f"{path}.play")
    if seat.staked == 0:
        raise RoundError(f"{where}: no bet on this seat", path)
    if seat.ante == 0:
        if seat.pair_plus and not rules.pair_plus_without_ante:
            raise RoundError(f"{where}: pair plus needs an ante at this table", f"{path}.ante")
        for key in ("six_card", "prime"):
            if getattr(seat, key):
                raise RoundError(f"{where}: {_BET_NAMES[key]} needs an ante", f"{path}.ante")
    offered = {"pair_plus": rules.pair_plus, "six_card": rules.six_card_bonus,
               "prime": rules.prime}
    for key, table in offered.items():
        if getattr(seat, key) and not table:
            raise RoundError(f"{where}: {_BET_NAMES[key]} is not offered at this table",
                             f"{path}.{key}")
    _check_limits(seat, rules, path)


def validate_round(entry: RoundEntry, rules: RuleSet) -> None:
    """Check stakes against the rules and, unless a misdeal, every card count and repeat."""
    for index, seat in enumerate(entry.seats):
        _check_bets(seat, rules, f"seats[{index}]")
    if entry.misdeal:
        return
    if len(entry.dealer) != 3:
        raise RoundError(f"dealer: needs exactly 3 cards, got {len(entry.dealer)}", "dealer")
    # Where each card was seen, phrased for the message: "already in seat 1".
    seen: dict[Card, str] = {}
    for card in entry.dealer:
        if card in seen:
            raise RoundError(f"dealer: {card} is entered twice", "dealer")
        seen[card] = "the dealer's card"
    for index, seat in enumerate(entry.seats):
        where = f"seat {seat.seat}"
        if len(seat.cards) != 3:
            raise RoundError(f"{where}: needs exactly 3 cards, got {len(seat.cards)}",
                             f"seats[{index}].cards")
        for card in seat.cards:
            if card in seen:
                place = seen[card]
                problem = "entered twice" if place == f"in {where}" else f"already {place}"
                raise RoundError(f"{where}: {card} is {problem}", f"seats[{index}].cards")
            seen[card] = f"in {where}"


def parse_round(data: object, rules: RuleSet | None = None,
                seat_count: int = MAX_SEATS) -> RoundEntry:
    """Parse and validate a round's JSON (the ``rules`` key, if any, is left to the caller)."""
    if not isinstance(data, Mapping):
        raise RoundError("a round must be a JSON object with \"dealer\" and \"seats\"")
    unknown = sorted(set(data) - _ROUND_KEYS)
    if unknown:
        raise RoundError(f"unknown field \"{unknown[0]}\" in the round "
                         f"(known: {', '.join(sorted(_ROUND_KEYS))})", unknown[0])
    misdeal = data.get("misdeal", False)
    if not isinstance(misdeal, bool):
        raise RoundError("misdeal must be true or false", "misdeal")
    reason = data.get("misdeal_reason", "")
    if not isinstance(reason, str):
        raise RoundError("misdeal_reason must be text", "misdeal_reason")
    seats_raw = data.get("seats")
    if not isinstance(seats_raw, Sequence) or isinstance(seats_raw, (str, bytes)):
        raise RoundError("seats must be a list of seat entries", "seats")
    if not seats_raw:
        raise RoundError("the round has no seats: enter at least one seat with a bet", "seats")
    seats = tuple(_parse_seat(raw, i, seat_count) for i, raw in enumerate(seats_raw))
    numbers = [s.seat for s in seats]
    for i, number in enumerate(numbers):
        if number in numbers[:i]:
            raise RoundError(f"seat {number} is entered twice", f"seats[{i}].seat")
    entry = RoundEntry(dealer=_cards(data.get("dealer"), "dealer", "dealer"), seats=seats,
                       misdeal=misdeal, misdeal_reason=reason.strip())
    validate_round(entry, rules or DEFAULT_RULES)
    return entry


def seats_sorted(seats: Sequence[SeatEntry]) -> tuple[SeatEntry, ...]:
    return tuple(sorted(seats, key=lambda s: s.seat))
