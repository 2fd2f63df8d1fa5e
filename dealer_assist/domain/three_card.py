"""Ranking three-card hands (RULES.md §2): ante/play, ante bonus, pair plus, dealer qualifying.

The order of categories is a table, and every hand gets one integer ``strength`` that
compares the way the rules compare hands, so a comparison is one integer comparison.

>>> rank_hand(parse_cards("QH KH AH")).category
<ThreeCardCategory.STRAIGHT_FLUSH: 'straight_flush'>
>>> rank_hand(parse_cards("AC 2D 3S")).name
'straight, 3 high'
>>> rank_hand(parse_cards("4H 4C 6D")) > rank_hand(parse_cards("2S 2C 10D"))
True
>>> rank_hand(parse_cards("KS AD 2C")).category   # K-A-2 is not a straight
<ThreeCardCategory.HIGH_CARD: 'high_card'>
>>> rank_hand(parse_cards("AS KS"))
Traceback (most recent call last):
...
dealer_assist.domain.errors.RoundError: a hand needs exactly 3 cards, got 2
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .cards import Card, Rank, parse_cards
from .errors import RoundError

__all__ = ["ThreeCardCategory", "ThreeCardHand", "is_mini_royal", "parse_cards", "rank_hand"]


class ThreeCardCategory(StrEnum):
    STRAIGHT_FLUSH = "straight_flush"
    THREE_OF_A_KIND = "three_of_a_kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    PAIR = "pair"
    HIGH_CARD = "high_card"

    @property
    def order(self) -> int:
        """0 for high card up to 5 for a straight flush."""
        return CATEGORY_ORDER.index(self)

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")


#: Lowest first. A straight beats a flush because three cards make a flush more often.
CATEGORY_ORDER: tuple[ThreeCardCategory, ...] = (
    ThreeCardCategory.HIGH_CARD,
    ThreeCardCategory.PAIR,
    ThreeCardCategory.FLUSH,
    ThreeCardCategory.STRAIGHT,
    ThreeCardCategory.THREE_OF_A_KIND,
    ThreeCardCategory.STRAIGHT_FLUSH,
)


@dataclass(frozen=True, slots=True)
class ThreeCardHand:
    """A ranked hand: its category, the ranks that break ties (most significant first)."""

    cards: tuple[Card, Card, Card]
    category: ThreeCardCategory
    tiebreak: tuple[int, ...]

    @property
    def strength(self) -> int:
        """One integer ordering all hands: category first, then the tie-break ranks."""
        value = self.category.order
        for rank in self.tiebreak + (0,) * (3 - len(self.tiebreak)):
            value = value * 16 + rank
        return value

    @property
    def top_rank(self) -> int:
        return self.tiebreak[0]

    @property
    def name(self) -> str:
        """What a dealer calls the hand: ``pair of 4s, 6 kicker``, ``Q-8-3 high``."""
        sym = [Rank(r).symbol for r in self.tiebreak]
        match self.category:
            case ThreeCardCategory.STRAIGHT_FLUSH:
                if self.tiebreak[0] == Rank.ACE:
                    return "mini royal (A-K-Q suited)"
                return f"straight flush, {sym[0]} high"
            case ThreeCardCategory.THREE_OF_A_KIND:
                return f"three {sym[0]}s"
            case ThreeCardCategory.STRAIGHT:
                return f"straight, {sym[0]} high"
            case ThreeCardCategory.FLUSH:
                return f"flush {'-'.join(sym)}"
            case ThreeCardCategory.PAIR:
                return f"pair of {sym[0]}s, {sym[1]} kicker"
            case _:
                return f"{'-'.join(sym)} high"

    @property
    def short(self) -> str:
        """Ranks high to low for a reason line: ``J-9-4``."""
        ranks = sorted((c.rank for c in self.cards), reverse=True)
        return "-".join(Rank(r).symbol for r in ranks)

    def __lt__(self, other: ThreeCardHand) -> bool:
        return self.strength < other.strength

    def __le__(self, other: ThreeCardHand) -> bool:
        return self.strength <= other.strength

    def __gt__(self, other: ThreeCardHand) -> bool:
        return self.strength > other.strength

    def __ge__(self, other: ThreeCardHand) -> bool:
        return self.strength >= other.strength


def _straight_top(ranks_desc: Sequence[int]) -> int | None:
    """The top card of a three-card straight, or None. A-2-3 counts as 3 high."""
    if ranks_desc[0] - ranks_desc[1] == 1 and ranks_desc[1] - ranks_desc[2] == 1:
        return ranks_desc[0]
    if tuple(ranks_desc) == (Rank.ACE, 3, 2):
        return 3
    return None


def rank_hand(cards: Sequence[Card]) -> ThreeCardHand:
    """Rank exactly three distinct cards."""
    if len(cards) != 3:
        raise RoundError(f"a hand needs exactly 3 cards, got {len(cards)}")
    if len(set(cards)) != 3:
        raise RoundError("a hand cannot hold the same card twice")
    ranks = sorted((int(c.rank) for c in cards), reverse=True)
    flush = len({c.suit for c in cards}) == 1
    top = _straight_top(ranks)
    counts = Counter(ranks)
    triple = (cards[0], cards[1], cards[2])
    if top is not None:
        category = ThreeCardCategory.STRAIGHT_FLUSH if flush else ThreeCardCategory.STRAIGHT
        return ThreeCardHand(triple, category, (top,))
    if len(counts) == 1:
        return ThreeCardHand(triple, ThreeCardCategory.THREE_OF_A_KIND, (ranks[0],))
    if len(counts) == 2:
        pair = next(r for r, n in counts.items() if n == 2)
        kicker = next(r for r, n in counts.items() if n == 1)
        return ThreeCardHand(triple, ThreeCardCategory.PAIR, (pair, kicker))
    category = ThreeCardCategory.FLUSH if flush else ThreeCardCategory.HIGH_CARD
    return ThreeCardHand(triple, category, tuple(ranks))


def is_mini_royal(hand: ThreeCardHand) -> bool:
    """Suited A-K-Q: the top straight flush, which some pair plus tables pay extra."""
    return hand.category is ThreeCardCategory.STRAIGHT_FLUSH and hand.top_rank == Rank.ACE
