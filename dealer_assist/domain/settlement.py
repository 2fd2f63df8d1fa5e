"""Settling a round (RULES.md §4): every bet of every seat, with a reason a dealer can read aloud.

Nets are from the player's side in minor units: +1000 means the house pays 1000 on top
of returning the stake, -1000 means the stake is collected, 0 a push (stake returned).

>>> from .round_entry import parse_round
>>> round_ = parse_round({"dealer": ["JH", "9C", "4D"],
...     "seats": [{"seat": 1, "cards": ["AS", "KD", "3C"], "ante": 1000, "play": True}]})
>>> seat = settle_round(round_).seats[0]
>>> seat.net["ante"], seat.net["play"], seat.total
(1000, 0, 1000)
>>> seat.result(Bet.ANTE).reason
'Dealer does not qualify (J-9-4): ante pays 1 to 1, play returned'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from .cards import Card
from .round_entry import RoundEntry, SeatEntry
from .rulesets import DEFAULT_RULES, MINI_ROYAL, RuleSet
from .six_card import FiveCardCategory, best_five
from .three_card import ThreeCardCategory, ThreeCardHand, is_mini_royal, rank_hand


class Bet(StrEnum):
    ANTE = "ante"
    PLAY = "play"
    ANTE_BONUS = "ante_bonus"
    PAIR_PLUS = "pair_plus"
    SIX_CARD = "six_card"
    PRIME = "prime"

    @property
    def label(self) -> str:
        return _BET_LABELS[self]


_BET_LABELS = {Bet.ANTE: "ante", Bet.PLAY: "play", Bet.ANTE_BONUS: "ante bonus",
               Bet.PAIR_PLUS: "pair plus", Bet.SIX_CARD: "six card bonus", Bet.PRIME: "prime"}
BETS: tuple[Bet, ...] = tuple(Bet)


class Outcome(StrEnum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    #: A bonus that pays nothing and takes nothing (the ante bonus on a hand below its table).
    NO_ACTION = "no_action"


class Decision(StrEnum):
    PLAY = "play"
    FOLD = "fold"
    #: No ante, so nothing to decide (a pair plus alone, where the table allows it).
    NONE = "none"


@dataclass(frozen=True, slots=True)
class BetResult:
    """One bet's settlement. ``capped`` is what the payout cap took off a win."""

    bet: Bet
    outcome: Outcome
    stake: int
    net: int
    reason: str
    odds: int | None = None
    capped: int = 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"bet": self.bet.value, "outcome": self.outcome.value,
                                "stake": self.stake, "net": self.net, "reason": self.reason}
        if self.odds is not None:
            data["odds"] = self.odds
        if self.capped:
            data["capped"] = self.capped
        return data


@dataclass(frozen=True, slots=True)
class SeatSettlement:
    seat: int
    cards: tuple[Card, ...]
    decision: Decision
    hand: ThreeCardHand | None
    six_card_hand: FiveCardCategory | None
    results: tuple[BetResult, ...]
    cap_reduction: int = 0

    @property
    def net(self) -> dict[str, int]:
        """Net per bet, every bet present (0 where there was no bet)."""
        nets = {bet.value: 0 for bet in BETS}
        for result in self.results:
            nets[result.bet.value] += result.net
        return nets

    @property
    def total(self) -> int:
        return sum(r.net for r in self.results)

    @property
    def staked(self) -> int:
        return sum(r.stake for r in self.results)

    def result(self, bet: Bet) -> BetResult:
        for result in self.results:
            if result.bet is bet:
                return result
        raise KeyError(f"seat {self.seat} has no {bet.label} result")

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "cards": [str(c) for c in self.cards],
            "decision": self.decision.value,
            "hand": None if self.hand is None else {"category": self.hand.category.value,
                                                    "name": self.hand.name},
            "six_card_hand": None if self.six_card_hand is None else self.six_card_hand.value,
            "bets": [r.to_json() for r in self.results],
            "net": self.net,
            "total": self.total,
            "payout_cap_applied": self.cap_reduction,
        }


@dataclass(frozen=True, slots=True)
class RoundSettlement:
    dealer: tuple[Card, ...]
    dealer_hand: ThreeCardHand | None
    dealer_qualifies: bool | None
    seats: tuple[SeatSettlement, ...]
    rules_hash: str
    misdeal: bool = False
    misdeal_reason: str = ""

    @property
    def total(self) -> int:
        """Net to all players together; the house wins the negative of it."""
        return sum(s.total for s in self.seats)

    def seat(self, number: int) -> SeatSettlement:
        for seat in self.seats:
            if seat.seat == number:
                return seat
        raise KeyError(f"no seat {number} in this round")

    def to_json(self) -> dict[str, Any]:
        return {
            "dealer": {
                "cards": [str(c) for c in self.dealer],
                "hand": None if self.dealer_hand is None else {
                    "category": self.dealer_hand.category.value, "name": self.dealer_hand.name},
                "qualifies": self.dealer_qualifies,
            },
            "misdeal": self.misdeal,
            **({"misdeal_reason": self.misdeal_reason} if self.misdeal else {}),
            "seats": [s.to_json() for s in self.seats],
            "total": self.total,
            "rules_hash": self.rules_hash,
        }


def _pays(stake: int, odds: int) -> int:
    return stake * odds


def _ante_and_play(seat: SeatEntry, hand: ThreeCardHand, dealer: ThreeCardHand,
                   qualifies: bool, rules: RuleSet) -> list[BetResult]:
    ante, play = seat.ante, seat.play_stake
    if not seat.play:
        return [BetResult(Bet.ANTE, Outcome.LOSE, ante, -ante, "Folded: ante loses")]
    if not qualifies:
        reason = (f"Dealer does not qualify ({dealer.short}): ante pays 1 to 1, play returned")
        return [BetResult(Bet.ANTE, Outcome.WIN, ante, ante, reason, 1),
                BetResult(Bet.PLAY, Outcome.PUSH, play, 0, reason)]
    if hand.strength > dealer.strength:
        reason = f"Player {hand.name} beats dealer {dealer.name}: ante and play pay 1 to 1"
        return [BetResult(Bet.ANTE, Outcome.WIN, ante, ante, reason, 1),
                BetResult(Bet.PLAY, Outcome.WIN, play, play, reason, 1)]
    if hand.strength < dealer.strength:
        reason = f"Dealer {dealer.name} beats player {hand.name}: ante and play lose"
        return [BetResult(Bet.ANTE, Outcome.LOSE, ante, -ante, reason),
                BetResult(Bet.PLAY, Outcome.LOSE, play, -play, reason)]
    reason = f"Tie with the dealer ({hand.name}): ante and play push"
    return [BetResult(Bet.ANTE, Outcome.PUSH, ante, 0, reason),
            BetResult(Bet.PLAY, Outcome.PUSH, play, 0, reason)]


def _table_odds(table: Mapping[str, int], hand: ThreeCardHand) -> tuple[int | None, str]:
    """The pays for a three-card hand in a table (mini royal first where the table has it)."""
    if is_mini_royal(hand) and MINI_ROYAL in table:
        return table[MINI_ROYAL], "mini royal"
    return table.get(hand.category.value), hand.category.label


def _ante_bonus(seat: SeatEntry, hand: ThreeCardHand, rules: RuleSet) -> BetResult:
    odds, label = _table_odds(rules.ante_bonus, hand)
    if odds:
        return BetResult(Bet.ANTE_BONUS, Outcome.WIN, 0, _pays(seat.ante, odds),
                         f"Ante bonus: {label} pays {odds} to 1 on the ante", odds)
    return BetResult(Bet.ANTE_BONUS, Outcome.NO_ACTION, 0, 0,
                     f"No ante bonus for {hand.category.label}")


def _pair_plus(seat: SeatEntry, hand: ThreeCardHand, folded: bool,
               rules: RuleSet) -> BetResult:
    stake = seat.pair_plus
    if folded and rules.fold_forfeits_pair_plus:
        return BetResult(Bet.PAIR_PLUS, Outcome.LOSE, stake, -stake,
                         "Pair plus lost: the seat folded")
    odds, label = _table_odds(rules.pair_plus, hand)
    if odds:
        return BetResult(Bet.PAIR_PLUS, Outcome.WIN, stake, _pays(stake, odds),
                         f"Pair plus: {label} pays {odds} to 1", odds)
    return BetResult(Bet.PAIR_PLUS, Outcome.LOSE, stake, -stake,
                     f"Pair plus loses: {hand.name} does not pay")


def _six_card(seat: SeatEntry, category: FiveCardCategory, folded: bool,
              rules: RuleSet) -> BetResult:
    stake = seat.six_card
    if folded and not rules.six_card_pays_after_fold:
        return BetResult(Bet.SIX_CARD, Outcome.LOSE, stake, -stake,
                         "Six card bonus lost: the seat folded")
    odds = rules.six_card_bonus.get(category.value)
    if odds:
        return BetResult(Bet.SIX_CARD, Outcome.WIN, stake, _pays(stake, odds),
                         f"Six card bonus: {category.label} with the dealer's cards "
                         f"pays {odds} to 1", odds)
    return BetResult(Bet.SIX_CARD, Outcome.LOSE, stake, -stake,
                     f"Six card bonus loses: best five is {category.label}")


def _colour(cards: Iterable[Card]) -> str | None:
    reds = {c.suit.is_red for c in cards}
    if len(reds) != 1:
        return None
    return "red" if reds.pop() else "black"


def _prime(seat: SeatEntry, dealer_cards: tuple[Card, ...], folded: bool,
           rules: RuleSet) -> BetResult:
    stake = seat.prime
    if folded and rules.fold_forfeits_prime:
        return BetResult(Bet.PRIME, Outcome.LOSE, stake, -stake, "Prime lost: the seat folded")
    colour = _colour(seat.cards)
    key = "six_same_color" if colour and _colour(dealer_cards) == colour else "three_same_color"
    odds = rules.prime.get(key, 0) if colour else 0
    if not odds:
        # A pay of 0 (or no prime table) means the hand does not pay, as in every table.
        return BetResult(Bet.PRIME, Outcome.LOSE, stake, -stake,
                         "Prime loses: the player's cards are not all one colour" if not colour
                         else f"Prime loses: this table pays nothing for all {colour}")
    where = f"all six cards {colour}" if key == "six_same_color" else \
        f"player's three cards all {colour}"
    return BetResult(Bet.PRIME, Outcome.WIN, stake, _pays(stake, odds),
                     f"Prime: {where} pays {odds} to 1", odds)


def apply_payout_cap(results: list[BetResult], cap: int | None) -> tuple[list[BetResult], int]:
    """Pay a seat's aggregate win at the cap: the excess comes off the largest wins first.

    >>> wins = [BetResult(Bet.PAIR_PLUS, Outcome.WIN, 500, 20000, "x", 40),
    ...         BetResult(Bet.ANTE, Outcome.WIN, 1000, 1000, "y", 1)]
    >>> capped, cut = apply_payout_cap(wins, 15000)
    >>> [r.net for r in capped], cut
    ([14000, 1000], 6000)
    """
    if cap is None:
        return results, 0
    excess = sum(r.net for r in results if r.net > 0) - cap
    if excess <= 0:
        return results, 0
    reduction = excess
    order = sorted(range(len(results)), key=lambda i: -results[i].net)
    capped = list(results)
    for i in order:
        if excess <= 0 or capped[i].net <= 0:
            break
        cut = min(excess, capped[i].net)
        excess -= cut
        capped[i] = replace(capped[i], net=capped[i].net - cut, capped=cut,
                            reason=f"{capped[i].reason} (paid at the table's cap of {cap} "
                                   f"per seat per round: {cut} withheld)")
    return capped, reduction


def settle_seat(seat: SeatEntry, dealer_cards: tuple[Card, ...], dealer: ThreeCardHand,
                qualifies: bool, rules: RuleSet) -> SeatSettlement:
    hand = rank_hand(seat.cards)
    folded = seat.ante > 0 and not seat.play
    results: list[BetResult] = []
    if seat.ante:
        results += _ante_and_play(seat, hand, dealer, qualifies, rules)
        if seat.play and rules.ante_bonus:
            results.append(_ante_bonus(seat, hand, rules))
    if seat.pair_plus:
        results.append(_pair_plus(seat, hand, folded, rules))
    six: FiveCardCategory | None = None
    if seat.six_card:
        six = best_five(seat.cards + dealer_cards)
        results.append(_six_card(seat, six, folded, rules))
    if seat.prime:
        results.append(_prime(seat, dealer_cards, folded, rules))
    results, cut = apply_payout_cap(results, rules.max_payout)
    decision = Decision.NONE if seat.ante == 0 else (Decision.PLAY if seat.play else Decision.FOLD)
    return SeatSettlement(seat.seat, seat.cards, decision, hand, six, tuple(results), cut)


def _misdeal_seat(seat: SeatEntry, reason: str) -> SeatSettlement:
    why = f"Misdeal ({reason}): stake returned" if reason else "Misdeal: stake returned"
    stakes = ((Bet.ANTE, seat.ante), (Bet.PLAY, seat.play_stake), (Bet.PAIR_PLUS, seat.pair_plus),
              (Bet.SIX_CARD, seat.six_card), (Bet.PRIME, seat.prime))
    results = tuple(BetResult(bet, Outcome.PUSH, stake, 0, why) for bet, stake in stakes if stake)
    decision = Decision.NONE if seat.ante == 0 else (Decision.PLAY if seat.play else Decision.FOLD)
    return SeatSettlement(seat.seat, seat.cards, decision, None, None, results)


def settle_round(entry: RoundEntry, rules: RuleSet = DEFAULT_RULES) -> RoundSettlement:
    """Settle a validated round (see :func:`parse_round`); seats come back in seat order."""
    ordered = sorted(entry.seats, key=lambda s: s.seat)
    if entry.misdeal:
        return RoundSettlement(entry.dealer, None, None,
                               tuple(_misdeal_seat(s, entry.misdeal_reason) for s in ordered),
                               rules.content_hash, True, entry.misdeal_reason)
    dealer = rank_hand(entry.dealer)
    qualifies = dealer.strength >= rules.dealer_qualifier.strength
    seats = tuple(settle_seat(s, entry.dealer, dealer, qualifies, rules) for s in ordered)
    return RoundSettlement(entry.dealer, dealer, qualifies, seats, rules.content_hash)


__all__ = ["BETS", "Bet", "BetResult", "Decision", "Outcome", "RoundSettlement",
           "SeatSettlement", "ThreeCardCategory", "apply_payout_cap", "settle_round"]
