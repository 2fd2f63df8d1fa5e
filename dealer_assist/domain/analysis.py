"""Exact game math for any rule set (RULES.md §5): house edge, element of risk, optimal play.

Every figure is an exact :class:`~fractions.Fraction` over every combination of cards; floats
appear only where a square root is taken (standard deviation). The figures:

* **Ante/play** (with the ante bonus): the player follows the per-hand optimum, playing a
  hand exactly when playing loses less than folding given the three cards held (card removal
  included). ``house_edge`` is the loss per unit ante, ``element_of_risk`` the loss per unit
  staked in total (ante plus play when played), ``play_frequency`` the share of hands played.
  Outcomes are the combined net of ante + play + ante bonus per unit ante.
* **Pair plus**, **six card bonus**, **prime**: ``house_edge`` is the loss per unit staked
  on that bet alone (the published convention: the bet is judged as if the seat never folds).
  ``house_edge_with_folds`` is the same bet for a seat that also follows the ante/play
  strategy above, so a fold forfeits it when the rule set says so.

Which options move which figure: ``dealer_qualifier`` and ``ante_bonus`` move ante/play (and,
through the strategy, the ``*_with_folds`` figures); ``fold_forfeits_pair_plus``,
``fold_forfeits_prime`` and ``six_card_pays_after_fold`` move only the ``*_with_folds``
figures; ``pair_plus_without_ante``, ``limits`` and ``max_payout`` move nothing here (a payout
cap is in money, not in units staked). An empty pay table for pair plus, six card or prime means
the bet is not offered; an empty ante bonus table means no ante bonus. As in settlement, a hand
that a pair plus or six card table does not name, or names at 0, loses the stake; the ante
bonus never loses; a prime pay of 0 loses the stake too.

How it is fast: the 22,100 hands are sorted by strength once. For a player hand, the dealer
hands below a strength that share no card with it are counted by inclusion-exclusion over
prefix counts (all hands, minus hands holding each of the player's cards, plus hands holding
each pair of them, minus the player's hand itself) with ``numpy.searchsorted``, for all
player hands at once. The six card bonus uses the exact category counts of all 20,358,520
six-card sets. Results are cached per rule-set content hash.

>>> a = analyze(DEFAULT_RULES)
>>> f"{float(a.ante_play.house_edge):.4%}", a.ante_play.strategy.description
('3.3730%', 'play Q-6-4 or better')
>>> a.dealer_qualifies, a.prime.house_edge
(Fraction(769, 1105), Fraction(405, 11186))
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from .cards import Card, Rank
from .errors import RoundError
from .rulesets import DEFAULT_RULES, MINI_ROYAL, RuleSet
from .six_card import FIVE_CARD_ORDER, SIX_CARD_COUNTS
from .three_card import CATEGORY_ORDER, ThreeCardCategory

__all__ = [
    "DEALER_HANDS",
    "SIX_CARD_SETS",
    "TOTAL_HANDS",
    "AnalysisResult",
    "AntePlayFigures",
    "BetFigures",
    "HandDecision",
    "Strategy",
    "analyze",
    "clear_cache",
    "dealer_counts",
    "hand_decision",
    "hand_table",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Three-card hands from 52 cards, and dealer hands left once the player holds three.
TOTAL_HANDS = math.comb(52, 3)
DEALER_HANDS = math.comb(49, 3)
SIX_CARD_SETS = math.comb(52, 6)
_HANDS_PER_CARD = math.comb(51, 2)
_HANDS_PER_PAIR = 50
_KEY = 1 << 16  # above every strength (category 5 * 16**3 + ...), so card/pair keys never mix

# --------------------------------------------------------------------------- the hand table


@dataclass(frozen=True)
class HandTable:
    """Every three-card hand with its strength (as ``ThreeCardHand.strength``), rule-free."""

    cards: IntArray  # (22100, 3) card indices, ascending
    strength: IntArray  # (22100,)
    category: IntArray  # CATEGORY_ORDER index: 0 high card .. 5 straight flush
    mini_royal: BoolArray
    one_color: BoolArray
    sorted_strength: IntArray
    card_keys: IntArray  # sorted card * _KEY + strength, 1,275 per card
    pair_keys: IntArray  # sorted pair id * _KEY + strength, 50 per pair of cards
    pair_ids: IntArray  # (22100, 3) ids of the pairs (a,b), (a,c), (b,c)

    def count_below(self, threshold: IntArray) -> IntArray:
        """Per player hand: dealer hands sharing no card with it whose strength < threshold."""
        count = np.searchsorted(self.sorted_strength, threshold).astype(np.int64)
        for k in range(3):
            base = self.cards[:, k] * _KEY
            count -= np.searchsorted(self.card_keys, base + threshold)
            count += self.cards[:, k] * _HANDS_PER_CARD
        for k in range(3):
            base = self.pair_ids[:, k] * _KEY
            count += np.searchsorted(self.pair_keys, base + threshold)
            count -= self.pair_ids[:, k] * _HANDS_PER_PAIR
        count -= (self.strength < threshold).astype(np.int64)
        return count


def _strengths(cards: IntArray) -> tuple[IntArray, IntArray]:
    """Strength and category order of each hand, vectorised (tested equal to rank_hand)."""
    ranks = cards // 4 + 2
    suits = cards % 4
    low, mid, high = ranks[:, 0], ranks[:, 1], ranks[:, 2]
    flush = (suits[:, 0] == suits[:, 1]) & (suits[:, 1] == suits[:, 2])
    run = (high - mid == 1) & (mid - low == 1)
    wheel = (high == Rank.ACE) & (mid == 3) & (low == 2)
    straight = run | wheel
    trips = low == high
    pair = ~trips & ((low == mid) | (mid == high))
    order = {c: CATEGORY_ORDER.index(c) for c in ThreeCardCategory}
    category = np.full(len(cards), order[ThreeCardCategory.HIGH_CARD], dtype=np.int64)
    category[flush] = order[ThreeCardCategory.FLUSH]
    category[pair] = order[ThreeCardCategory.PAIR]
    category[straight] = order[ThreeCardCategory.STRAIGHT]
    category[straight & flush] = order[ThreeCardCategory.STRAIGHT_FLUSH]
    category[trips] = order[ThreeCardCategory.THREE_OF_A_KIND]
    t0, t1, t2 = high.copy(), mid.copy(), low.copy()
    top = np.where(wheel, 3, high)
    t0[straight], t1[straight], t2[straight] = top[straight], 0, 0
    t1[trips], t2[trips] = 0, 0
    kicker = np.where(mid == high, low, high)
    t0[pair], t1[pair], t2[pair] = mid[pair], kicker[pair], 0
    strength = ((category * 16 + t0) * 16 + t1) * 16 + t2
    return strength.astype(np.int64), category


@cache
def hand_table() -> HandTable:
    """All 22,100 hands, built once per process (rule-independent)."""
    cards = np.array(list(itertools.combinations(range(52), 3)), dtype=np.int64)
    strength, category = _strengths(cards)
    suits = cards % 4
    red = (suits == 1) | (suits == 2)  # suits C D H S: diamonds and hearts are red
    one_color = red.all(axis=1) | (~red).all(axis=1)
    # Suited A-K-Q: the straight flush whose top card is the ace (A-2-3 suited is 3 high).
    mini_royal = (category == CATEGORY_ORDER.index(ThreeCardCategory.STRAIGHT_FLUSH)) & (
        (strength >> 8) & 15 == Rank.ACE
    )
    pair_index = np.full((52, 52), -1, dtype=np.int64)
    for i, (a, b) in enumerate(itertools.combinations(range(52), 2)):
        pair_index[a, b] = i
    pair_ids = np.stack(
        [
            pair_index[cards[:, 0], cards[:, 1]],
            pair_index[cards[:, 0], cards[:, 2]],
            pair_index[cards[:, 1], cards[:, 2]],
        ],
        axis=1,
    )
    card_keys = np.sort((cards * _KEY + strength[:, None]).ravel())
    pair_keys = np.sort((pair_ids * _KEY + strength[:, None]).ravel())
    return HandTable(
        cards=cards,
        strength=strength,
        category=category,
        mini_royal=mini_royal,
        one_color=one_color,
        sorted_strength=np.sort(strength),
        card_keys=card_keys,
        pair_keys=pair_keys,
        pair_ids=pair_ids,
    )


@dataclass(frozen=True)
class DealerCounts:
    """Per player hand: how many of the 18,424 dealer hands fall in each ante/play result."""

    no_qualify: IntArray
    player_wins: IntArray
    tie: IntArray
    dealer_wins: IntArray


def dealer_counts(qualifier_strength: int) -> DealerCounts:
    """Count, for every player hand, the dealer hands by result (exact, card removal included)."""
    return _dealer_counts(qualifier_strength)


@cache
def _dealer_counts(qualifier_strength: int) -> DealerCounts:
    table = hand_table()
    q = np.full(TOTAL_HANDS, qualifier_strength, dtype=np.int64)
    below_q = table.count_below(q)
    below_s = table.count_below(np.maximum(q, table.strength))
    at_or_below_s = table.count_below(np.maximum(q, table.strength + 1))
    return DealerCounts(
        no_qualify=below_q,
        player_wins=below_s - below_q,
        tie=at_or_below_s - below_s,
        dealer_wins=DEALER_HANDS - at_or_below_s,
    )


# --------------------------------------------------------------------------- results


def _fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


@dataclass(frozen=True)
class BetFigures:
    """One bet's exact figures, per unit staked (per unit ante for ante/play).

    ``outcomes`` maps each possible net result (in units) to its probability, and
    ``hit_frequency`` each paying hand to the probability it is paid.
    """

    name: str
    offered: bool
    house_edge: Fraction
    outcomes: Mapping[int, Fraction]
    hit_frequency: Mapping[str, Fraction]
    house_edge_with_folds: Fraction | None = None
    pays: str = ""

    @property
    def expected_return(self) -> Fraction:
        return -self.house_edge

    @property
    def variance(self) -> Fraction:
        mean = sum((net * p for net, p in self.outcomes.items()), Fraction(0))
        square = sum((net * net * p for net, p in self.outcomes.items()), Fraction(0))
        return square - mean * mean

    @property
    def std_dev(self) -> float:
        """Standard deviation of the bet's net result per unit staked."""
        return math.sqrt(self.variance)

    def to_json(self) -> dict[str, Any]:
        if not self.offered:
            return {"offered": False, "house_edge": None, "house_edge_exact": None}
        data: dict[str, Any] = {
            "offered": True,
            "pays": self.pays,
            "house_edge": float(self.house_edge),
            "house_edge_exact": _fraction_text(self.house_edge),
        }
        if self.house_edge_with_folds is not None:
            data["house_edge_with_folds"] = float(self.house_edge_with_folds)
            data["house_edge_with_folds_exact"] = _fraction_text(self.house_edge_with_folds)
        data["std_dev"] = self.std_dev
        data["variance_exact"] = _fraction_text(self.variance)
        data["outcomes"] = [
            {"net": net, "probability": float(p), "probability_exact": _fraction_text(p)}
            for net, p in sorted(self.outcomes.items())
        ]
        data["hit_frequency"] = {
            hand: {"probability": float(p), "probability_exact": _fraction_text(p)}
            for hand, p in self.hit_frequency.items()
        }
        return data


@dataclass(frozen=True)
class Strategy:
    """The per-hand optimal ante/play decision, described as a cutoff when it is one."""

    description: str
    is_cutoff: bool
    cutoff: str | None  # the weakest hand played, when the decision is a cutoff
    hands_played: int
    #: With no simple cutoff: the closest one and how many hands disagree with it.
    nearest_cutoff: str | None = None
    exceptions: int = 0
    play: BoolArray = field(default_factory=lambda: np.zeros(0, dtype=bool), repr=False,
                            compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "is_cutoff": self.is_cutoff,
            "cutoff": self.cutoff,
            "hands_played": self.hands_played,
            "hands": TOTAL_HANDS,
            "nearest_cutoff": self.nearest_cutoff,
            "exceptions": self.exceptions,
        }


@dataclass(frozen=True)
class AntePlayFigures(BetFigures):
    """Ante and play with the ante bonus; ``house_edge`` is per unit ante."""

    element_of_risk: Fraction = Fraction(0)
    play_frequency: Fraction = Fraction(0)
    strategy: Strategy = field(default_factory=lambda: Strategy("", False, None, 0))
    ante_bonus_return: Fraction = Fraction(0)

    def to_json(self) -> dict[str, Any]:
        data = {
            "house_edge": float(self.house_edge),
            "house_edge_exact": _fraction_text(self.house_edge),
            "element_of_risk": float(self.element_of_risk),
            "element_of_risk_exact": _fraction_text(self.element_of_risk),
            "play_frequency": float(self.play_frequency),
            "play_frequency_exact": _fraction_text(self.play_frequency),
            "strategy": self.strategy.description,
            "strategy_detail": self.strategy.to_json(),
            "ante_bonus_pays": self.pays,
            "ante_bonus_return": float(self.ante_bonus_return),
            "ante_bonus_return_exact": _fraction_text(self.ante_bonus_return),
        }
        rest = super().to_json()
        for key in ("offered", "pays", "house_edge", "house_edge_exact"):
            rest.pop(key, None)
        return data | rest


@dataclass(frozen=True)
class AnalysisResult:
    """Every bet's figures for one rule set."""

    rules_hash: str
    dealer_qualifier: str
    dealer_qualifies: Fraction
    dealer_qualifying_hands: int
    ante_play: AntePlayFigures
    pair_plus: BetFigures
    six_card: BetFigures
    prime: BetFigures

    def to_json(self) -> dict[str, Any]:
        """The stable machine form (DESIGN.md): floats plus exact fraction strings."""
        return {
            "rules_hash": self.rules_hash,
            "ante_play": self.ante_play.to_json(),
            "pair_plus": self.pair_plus.to_json(),
            "six_card": self.six_card.to_json(),
            "prime": self.prime.to_json(),
            "dealer_qualifier": self.dealer_qualifier,
            "dealer_qualifies": float(self.dealer_qualifies),
            "dealer_qualifies_exact": _fraction_text(self.dealer_qualifies),
            "dealer_qualifying_hands": self.dealer_qualifying_hands,
            "hands": TOTAL_HANDS,
        }


# --------------------------------------------------------------------------- the math


def _outcomes(nets: IntArray, weights: IntArray, total: int) -> dict[int, Fraction]:
    """Probability of each distinct net, from per-case nets and integer weights."""
    values, inverse = np.unique(nets, return_inverse=True)
    sums = np.zeros(len(values), dtype=np.int64)
    np.add.at(sums, inverse.ravel(), weights)
    return {int(v): Fraction(int(s), total) for v, s in zip(values, sums, strict=True) if s}


def _three_card_pays(pays: Mapping[str, int], default: int) -> tuple[IntArray, IntArray]:
    """Per hand: the pay (``default`` where the table pays nothing) and the hand's key index."""
    table = hand_table()
    keys = [c.value for c in CATEGORY_ORDER]
    key_index = table.category.copy()
    if MINI_ROYAL in pays:
        key_index[table.mini_royal] = len(keys)
    lookup = np.array([pays.get(k, 0) or default for k in [*keys, MINI_ROYAL]], dtype=np.int64)
    return lookup[key_index], key_index


def _hits(key_index: IntArray, mask: BoolArray, pays: Mapping[str, int]) -> dict[str, Fraction]:
    keys = [c.value for c in CATEGORY_ORDER] + [MINI_ROYAL]
    counts = np.bincount(key_index[mask], minlength=len(keys))
    return {
        key: Fraction(int(counts[keys.index(key)]), TOTAL_HANDS) for key in pays if key in keys
    }


def _hand_label(strength: int) -> tuple[str, str]:
    """A hand's name for a strategy line, and its category key."""
    category = CATEGORY_ORDER[strength >> 12]
    ranks = [(strength >> s) & 15 for s in (8, 4, 0)]
    sym = [Rank(r).symbol for r in ranks if r]
    match category:
        case ThreeCardCategory.HIGH_CARD:
            return "-".join(sym), category.value
        case ThreeCardCategory.PAIR:
            return f"a pair of {sym[0]}s with a {sym[1]} kicker", category.value
        case ThreeCardCategory.FLUSH:
            return f"a {'-'.join(sym)} flush", category.value
        case ThreeCardCategory.THREE_OF_A_KIND:
            return f"three {sym[0]}s", category.value
        case _:
            return f"a {category.label}, {sym[0]} high", category.value


def _cutoff_text(strength: int, lowest: IntArray) -> str:
    """``Q-6-4 or better``; ``any pair or better`` when the cutoff is a category's lowest."""
    category = CATEGORY_ORDER[strength >> 12]
    if strength == int(lowest[category.order]):
        return f"any {category.label} or better"
    return f"{_hand_label(strength)[0]} or better"


def _strategy(play: BoolArray) -> Strategy:
    table = hand_table()
    played = int(play.sum())
    if played == TOTAL_HANDS:
        return Strategy("play every hand", True, "any hand", played, play=play)
    if played == 0:
        return Strategy("fold every hand", True, None, 0, play=play)
    order = np.argsort(table.strength, kind="stable")
    strengths = table.strength[order]
    plays = play[order]
    lowest = np.full(len(CATEGORY_ORDER), -1, dtype=np.int64)
    for cat in range(len(CATEGORY_ORDER)):
        lowest[cat] = strengths[np.searchsorted(strengths >> 12, cat)]
    # A cutoff at hand i (in strength order, only where strength changes): hands below fold.
    starts = np.flatnonzero(np.r_[True, strengths[1:] != strengths[:-1]])
    played_below = np.r_[0, np.cumsum(plays)][starts]
    folded_at_or_above = (~plays)[::-1].cumsum()[::-1][starts]
    wrong = played_below + folded_at_or_above
    best = int(np.argmin(wrong))
    cut = int(strengths[starts[best]])
    text = _cutoff_text(cut, lowest)
    if int(wrong[best]) == 0:
        return Strategy(f"play {text}", True, _hand_label(cut)[0], played, play=play)
    differ = int(wrong[best])
    description = (
        f"not a simple cutoff: play {played:,} of {TOTAL_HANDS:,} hands, each where playing "
        f"loses less than folding (nearest cutoff {text}, "
        f"{differ:,} {'hand differs' if differ == 1 else 'hands differ'})"
    )
    return Strategy(description, False, None, played, _hand_label(cut)[0], int(wrong[best]),
                    play=play)


def _play_values(rules: RuleSet) -> tuple[IntArray, BoolArray, IntArray]:
    """Per hand: the return of playing (in 1/18,424 ante), whether to play, the ante bonus."""
    counts = dealer_counts(rules.dealer_qualifier.strength)
    bonus, _ = _three_card_pays(rules.ante_bonus, 0)
    d = DEALER_HANDS
    # Bonus always, +1 dealer does not qualify, +2 player wins, 0 tie, -2 dealer wins.
    play_value = bonus * d + counts.no_qualify + 2 * counts.player_wins - 2 * counts.dealer_wins
    play = play_value > -d  # play only when it loses strictly less than folding (-1 ante)
    return play_value, play, bonus


def _ante_play(rules: RuleSet) -> AntePlayFigures:
    counts = dealer_counts(rules.dealer_qualifier.strength)
    _, key_index = _three_card_pays(rules.ante_bonus, 0)
    play_value, play, bonus = _play_values(rules)
    d = DEALER_HANDS
    value = np.where(play, play_value, -d)
    total = TOTAL_HANDS * d
    house_edge = -Fraction(int(value.sum()), total)
    play_frequency = Fraction(int(play.sum()), TOTAL_HANDS)
    n_play = int(play.sum())
    fold_count = np.array([(TOTAL_HANDS - n_play) * d], dtype=np.int64)
    p = play
    nets = np.concatenate([
        np.array([-1], dtype=np.int64),
        bonus[p] + 1, bonus[p] + 2, bonus[p], bonus[p] - 2,
    ])
    weights = np.concatenate([
        fold_count,
        counts.no_qualify[p], counts.player_wins[p], counts.tie[p], counts.dealer_wins[p],
    ])
    outcomes = _outcomes(nets, weights, total)
    hits = _hits(key_index, play, {k: v for k, v in rules.ante_bonus.items() if v})
    bonus_return = Fraction(int((bonus * play).sum()), TOTAL_HANDS)
    return AntePlayFigures(
        name="ante_play",
        offered=True,
        house_edge=house_edge,
        outcomes=MappingProxyType(outcomes),
        hit_frequency=MappingProxyType(hits),
        pays=rules.pays_label("ante_bonus"),
        element_of_risk=house_edge / (1 + play_frequency),
        play_frequency=play_frequency,
        strategy=_strategy(play),
        ante_bonus_return=bonus_return,
    )


def _not_offered(name: str) -> BetFigures:
    return BetFigures(name, False, Fraction(0), MappingProxyType({}), MappingProxyType({}),
                      pays="none")


def _pair_plus(rules: RuleSet, play: BoolArray) -> BetFigures:
    if not rules.pair_plus:
        return _not_offered("pair_plus")
    pays, key_index = _three_card_pays(rules.pair_plus, -1)
    ones = np.ones(TOTAL_HANDS, dtype=np.int64)
    outcomes = _outcomes(pays, ones, TOTAL_HANDS)
    edge = -Fraction(int(pays.sum()), TOTAL_HANDS)
    folded = np.where(play, pays, -1) if rules.fold_forfeits_pair_plus else pays
    return BetFigures(
        name="pair_plus",
        offered=True,
        house_edge=edge,
        outcomes=MappingProxyType(outcomes),
        hit_frequency=MappingProxyType(_hits(key_index, np.ones(TOTAL_HANDS, bool),
                                             {k: v for k, v in rules.pair_plus.items() if v})),
        house_edge_with_folds=-Fraction(int(folded.sum()), TOTAL_HANDS),
        pays=rules.pays_label("pair_plus"),
    )


def _six_card(rules: RuleSet) -> BetFigures:
    if not rules.six_card_bonus:
        return _not_offered("six_card")
    counts = SIX_CARD_COUNTS
    outcomes: dict[int, Fraction] = {}
    hits: dict[str, Fraction] = {}
    total = 0
    for category, n in counts.items():
        net = rules.six_card_bonus.get(category.value, 0) or -1
        outcomes[net] = outcomes.get(net, Fraction(0)) + Fraction(n, SIX_CARD_SETS)
        total += net * n
        if rules.six_card_bonus.get(category.value):
            hits[category.value] = Fraction(n, SIX_CARD_SETS)
    edge = -Fraction(total, SIX_CARD_SETS)
    # Folding only matters when the six card bet does not pay after a fold; that needs the
    # six-card distribution per player hand, which this module does not compute (None).
    with_folds = edge if rules.six_card_pays_after_fold else None
    return BetFigures(
        name="six_card",
        offered=True,
        house_edge=edge,
        outcomes=MappingProxyType(outcomes),
        hit_frequency=MappingProxyType(
            {k.value: hits[k.value] for k in FIVE_CARD_ORDER[::-1] if k.value in hits}
        ),
        house_edge_with_folds=with_folds,
        pays=rules.pays_label("six_card_bonus"),
    )


def _prime(rules: RuleSet, play: BoolArray) -> BetFigures:
    if not rules.prime:
        return _not_offered("prime")
    table = hand_table()
    # A pay of 0 loses the stake, as settlement has it.
    three, six = (rules.prime[k] or -1 for k in ("three_same_color", "six_same_color"))
    # The dealer's three match a one-colour player's colour from the 23 cards of it left.
    match = math.comb(23, 3)
    d = DEALER_HANDS
    per_hand = np.where(table.one_color, three * (d - match) + six * match, -d)
    total = TOTAL_HANDS * d
    n_one = int(table.one_color.sum())
    p_three = Fraction(n_one * (d - match), total)  # player one colour, dealer not that colour
    p_six = Fraction(n_one * match, total)  # all six cards one colour
    merged: dict[int, Fraction] = {-1: Fraction(TOTAL_HANDS - n_one, TOTAL_HANDS)}
    for net, p in ((three, p_three), (six, p_six)):
        merged[net] = merged.get(net, Fraction(0)) + p
    folded = np.where(play, per_hand, -d) if rules.fold_forfeits_prime else per_hand
    return BetFigures(
        name="prime",
        offered=True,
        house_edge=-Fraction(int(per_hand.sum()), total),
        outcomes=MappingProxyType(merged),
        hit_frequency=MappingProxyType({k: p for k, p, pay in (("three_same_color", p_three, three),
                                                                ("six_same_color", p_six, six))
                                        if pay > 0}),
        house_edge_with_folds=-Fraction(int(folded.sum()), total),
        pays=rules.pays_label("prime"),
    )


@dataclass(frozen=True)
class HandDecision:
    """One player hand under a rule set: dealer results counted, and whether to play it.

    >>> from dealer_assist.domain.cards import parse_cards
    >>> d = hand_decision(parse_cards("QS 6H 4D"))
    >>> d.play, d.no_qualify + d.player_wins + d.tie + d.dealer_wins
    (True, 18424)
    >>> hand_decision(parse_cards("QS 6H 3D")).play
    False
    """

    cards: tuple[Card, Card, Card]
    no_qualify: int
    player_wins: int
    tie: int
    dealer_wins: int
    #: Expected net of ante + play + ante bonus per unit ante when the hand is played.
    play_return: Fraction
    play: bool


@cache
def _hand_index() -> dict[tuple[int, int, int], int]:
    return {
        (int(a), int(b), int(c)): i for i, (a, b, c) in enumerate(hand_table().cards.tolist())
    }


def hand_decision(cards: Sequence[Card], rules: RuleSet = DEFAULT_RULES) -> HandDecision:
    """The exact ante/play figures of one player hand (card removal included)."""
    if len(cards) != 3 or len({c.index for c in cards}) != 3:
        raise RoundError("a hand needs exactly 3 different cards")
    a, b, c = sorted(card.index for card in cards)
    i = _hand_index()[(a, b, c)]
    counts = dealer_counts(rules.dealer_qualifier.strength)
    play_value, play, _ = _play_values(rules)
    return HandDecision(
        cards=(cards[0], cards[1], cards[2]),
        no_qualify=int(counts.no_qualify[i]),
        player_wins=int(counts.player_wins[i]),
        tie=int(counts.tie[i]),
        dealer_wins=int(counts.dealer_wins[i]),
        play_return=Fraction(int(play_value[i]), DEALER_HANDS),
        play=bool(play[i]),
    )


def _compute(rules: RuleSet) -> AnalysisResult:
    table = hand_table()
    ante_play = _ante_play(rules)
    play = ante_play.strategy.play
    qualifying = int((table.strength >= rules.dealer_qualifier.strength).sum())
    return AnalysisResult(
        rules_hash=rules.content_hash,
        dealer_qualifier=rules.dealer_qualifier.label,
        dealer_qualifies=Fraction(qualifying, TOTAL_HANDS),
        dealer_qualifying_hands=qualifying,
        ante_play=ante_play,
        pair_plus=_pair_plus(rules, play),
        six_card=_six_card(rules),
        prime=_prime(rules, play),
    )


_CACHE: dict[str, AnalysisResult] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 256


def analyze(rules: RuleSet = DEFAULT_RULES) -> AnalysisResult:
    """Exact figures of every bet under ``rules``, cached per rule-set content hash."""
    key = rules.content_hash
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit
    result = _compute(rules)
    with _CACHE_LOCK:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = result
    return result


def clear_cache(*, tables: bool = False) -> None:
    """Forget cached results (and, with ``tables``, the rule-free hand tables too)."""
    with _CACHE_LOCK:
        _CACHE.clear()
    if tables:
        hand_table.cache_clear()
        _dealer_counts.cache_clear()
