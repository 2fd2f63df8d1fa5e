"""The best five of six cards (RULES.md §3), for the six card bonus.

The category is read straight from rank and suit counts of the six cards; a
five-of-six enumeration would give the same answer six times slower.

>>> best_five(parse_cards("10H JH QH KH AH 2C"))
<FiveCardCategory.ROYAL_FLUSH: 'royal_flush'>
>>> best_five(parse_cards("2C 2S 2D 2H 7D 9H"))
<FiveCardCategory.FOUR_OF_A_KIND: 'four_of_a_kind'>
>>> best_five(parse_cards("AC 2D 3S 4H 5C 9D"))
<FiveCardCategory.STRAIGHT: 'straight'>
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import StrEnum

from .cards import Card, parse_cards
from .errors import RoundError

__all__ = ["SIX_CARD_COUNTS", "SIX_CARD_SETS", "FiveCardCategory", "best_five", "parse_cards",
           "straight_top"]


class FiveCardCategory(StrEnum):
    ROYAL_FLUSH = "royal_flush"
    STRAIGHT_FLUSH = "straight_flush"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    THREE_OF_A_KIND = "three_of_a_kind"
    TWO_PAIR = "two_pair"
    PAIR = "pair"
    HIGH_CARD = "high_card"

    @property
    def order(self) -> int:
        """0 for high card up to 9 for a royal flush."""
        return FIVE_CARD_ORDER.index(self)

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")


#: Lowest first.
FIVE_CARD_ORDER: tuple[FiveCardCategory, ...] = tuple(reversed(FiveCardCategory))

_ROYAL_MASK = sum(1 << r for r in range(10, 15))


def straight_top(rank_mask: int) -> int:
    """The top rank of the best five-card straight in a mask of ranks (bit r = rank r), or 0.

    >>> straight_top(sum(1 << r for r in (14, 2, 3, 4, 5)))
    5
    """
    for top in range(14, 5, -1):
        run = 0b11111 << (top - 4)
        if rank_mask & run == run:
            return top
    wheel = (1 << 14) | 0b111100
    return 5 if rank_mask & wheel == wheel else 0


def best_five(cards: Sequence[Card]) -> FiveCardCategory:
    """Category of the best five-card hand among six distinct cards."""
    if len(cards) != 6:
        raise RoundError(f"the six card bonus needs 6 cards, got {len(cards)}")
    by_suit: dict[str, int] = {}
    for card in cards:
        by_suit[card.suit] = by_suit.get(card.suit, 0) | (1 << card.rank)
    flush_mask = next((m for m in by_suit.values() if m.bit_count() >= 5), 0)
    if flush_mask:
        if flush_mask & _ROYAL_MASK == _ROYAL_MASK:
            return FiveCardCategory.ROYAL_FLUSH
        if straight_top(flush_mask):
            return FiveCardCategory.STRAIGHT_FLUSH
    counts = sorted(Counter(c.rank for c in cards).values(), reverse=True)
    if counts[0] == 4:
        return FiveCardCategory.FOUR_OF_A_KIND
    if counts[0] == 3 and counts[1] >= 2:
        return FiveCardCategory.FULL_HOUSE
    if flush_mask:
        return FiveCardCategory.FLUSH
    rank_mask = 0
    for card in cards:
        rank_mask |= 1 << card.rank
    if straight_top(rank_mask):
        return FiveCardCategory.STRAIGHT
    if counts[0] == 3:
        return FiveCardCategory.THREE_OF_A_KIND
    if counts[0] == 2 and counts[1] == 2:
        return FiveCardCategory.TWO_PAIR
    if counts[0] == 2:
        return FiveCardCategory.PAIR
    return FiveCardCategory.HIGH_CARD


#: How many of all C(52, 6) = 20,358,520 six-card sets make each best five. A test
#: recounts every set; the analysis prices the six card bonus from these counts.
SIX_CARD_COUNTS: dict[FiveCardCategory, int] = {
    FiveCardCategory.ROYAL_FLUSH: 188,
    FiveCardCategory.STRAIGHT_FLUSH: 1_656,
    FiveCardCategory.FOUR_OF_A_KIND: 14_664,
    FiveCardCategory.FULL_HOUSE: 165_984,
    FiveCardCategory.FLUSH: 205_792,
    FiveCardCategory.STRAIGHT: 361_620,
    FiveCardCategory.THREE_OF_A_KIND: 732_160,
    FiveCardCategory.TWO_PAIR: 2_532_816,
    FiveCardCategory.PAIR: 9_730_740,
    FiveCardCategory.HIGH_CARD: 6_612_900,
}
SIX_CARD_SETS = 20_358_520
