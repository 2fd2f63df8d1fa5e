"""Cards: ranks, suits, parsing every notation a dealer types or a camera reads.

>>> parse_card("as")
Card('AS')
>>> parse_card("10h"), parse_card("Th"), parse_card("t♥")
(Card('10H'), Card('10H'), Card('10H'))
>>> [str(c) for c in parse_cards("A♠, kd 10c")]
['AS', 'KD', '10C']
>>> parse_card("1X")
Traceback (most recent call last):
...
dealer_assist.domain.errors.CardError: "1X" is not a card (rank 2-10, J, Q, K, A then suit C, D, H, S)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from functools import lru_cache

from .errors import CardError, shown


class Rank(IntEnum):
    """Card ranks; the value orders them with the ace high (2 lowest, 14 ace)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        """The canonical symbol: ``2``..``10``, ``J``, ``Q``, ``K``, ``A``."""
        return _RANK_SYMBOLS[self]


_RANK_SYMBOLS = {
    **{Rank(v): str(v) for v in range(2, 11)},
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
}


class Suit(StrEnum):
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def symbol(self) -> str:
        """The printed suit symbol, for screens and reports."""
        return _SUIT_SYMBOLS[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)


_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
SUITS: tuple[Suit, ...] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
RANKS: tuple[Rank, ...] = tuple(Rank)

_RANK_TOKENS: dict[str, Rank] = {
    **{str(v): Rank(v) for v in range(2, 11)},
    "T": Rank.TEN,
    "J": Rank.JACK,
    "Q": Rank.QUEEN,
    "K": Rank.KING,
    "A": Rank.ACE,
}
_SUIT_TOKENS: dict[str, Suit] = {
    "C": Suit.CLUBS,
    "D": Suit.DIAMONDS,
    "H": Suit.HEARTS,
    "S": Suit.SPADES,
    "♣": Suit.CLUBS,
    "♧": Suit.CLUBS,
    "♦": Suit.DIAMONDS,
    "♢": Suit.DIAMONDS,
    "♥": Suit.HEARTS,
    "♡": Suit.HEARTS,
    "♠": Suit.SPADES,
    "♤": Suit.SPADES,
}
_SEPARATORS = re.compile(r"[\s,;]+")
_CARD_FORMAT = "rank 2-10, J, Q, K, A then suit C, D, H, S"


@dataclass(frozen=True, order=False, slots=True)
class Card:
    """One card of the 52. ``index`` (0..51) is rank-major: ``(rank - 2) * 4 + suit``."""

    rank: Rank
    suit: Suit

    def __str__(self) -> str:
        return f"{self.rank.symbol}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Card('{self}')"

    @property
    def index(self) -> int:
        return (self.rank - 2) * 4 + SUITS.index(self.suit)

    @property
    def pretty(self) -> str:
        """The card with its suit symbol, as printed on a screen: ``A♠``."""
        return f"{self.rank.symbol}{self.suit.symbol}"

    @staticmethod
    def from_index(index: int) -> Card:
        """The card with this index (0..51).

        >>> Card.from_index(51), Card.from_index(0)
        (Card('AS'), Card('2C'))
        """
        return DECK[index]


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for rank in RANKS for suit in SUITS)


# Bounded: a server parses hostile tokens all shift; an unbounded cache would keep every one.
@lru_cache(maxsize=4096)
def _parse_token(token: str) -> Card:
    text = token.strip().upper()
    if len(text) < 2:
        raise CardError(f'"{token}" is not a card ({_CARD_FORMAT})')
    rank = _RANK_TOKENS.get(text[:-1])
    suit = _SUIT_TOKENS.get(text[-1])
    if rank is None or suit is None:
        raise CardError(f'"{token}" is not a card ({_CARD_FORMAT})')
    return Card(rank, suit)


def parse_card(token: str | Card) -> Card:
    """Parse one card in any accepted notation (case, ``T`` or ``10``, suit letters or symbols)."""
    if isinstance(token, Card):
        return token
    if not isinstance(token, str):
        raise CardError(f"{shown(token)} is not a card ({_CARD_FORMAT})")
    return _parse_token(token)


def parse_cards(text: str | list[str] | tuple[str, ...] | list[Card]) -> list[Card]:
    """Parse cards given as one string (spaces or commas between) or as a list of tokens.

    >>> parse_cards(["QS", "7h", "2♣"])
    [Card('QS'), Card('7H'), Card('2C')]
    >>> parse_cards("")
    []
    """
    if isinstance(text, str):
        tokens: list[str | Card] = [t for t in _SEPARATORS.split(text.strip()) if t]
    elif isinstance(text, (list, tuple)):
        tokens = list(text)
    else:
        raise CardError(f"cards must be a list or a string, not {type(text).__name__}")
    return [parse_card(t) for t in tokens]
