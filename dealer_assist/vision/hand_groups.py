"""Hands found in pieces: a dealer who lays a hand's three cards side by side, apart or
barely touching, or spreads them so wide that the card-white between them is thin, leaves
one hand in two or three regions. Regions holding fewer than three cards that lie side by
side, as the cards of one hand do, are joined when together they hold three.

Cards are given by their four corners (image pixels, clockwise from the top-left of the
upright index, as the reader returns them). Two cards lie side by side when they are turned
alike and alike in size, the second lies along the first's width (not above or below it)
and their centres are at most ``REACH`` card heights apart. A piece whose region holds more
than its cards (``holds_more``) is no piece of a hand laid apart. Only pieces holding three
cards in all are joined: a chain of more (the hands of neighbouring seats laid apart close
together) is left as it is, and each piece is confirmed by the dealer as a hand that is not
three cards.
"""

from __future__ import annotations

import math

import numpy as np

#: Centres of neighbouring cards of one hand at most this many card heights apart: a card is
#: 0.71 card heights wide, so this leaves gaps up to about 0.6 card widths between them (the
#: hands of neighbouring seats lie several card heights apart on a real table). 1.35 joined
#: 5 more of 480 hands laid apart, but on one printed tuning photo it joined pieces of two
#: hands and a wrong read lost the flag that had kept it from passing as sure.
REACH = 1.15
#: ... no more than this share of a card height above or below each other,
OFFSET = 0.35
#: ... turned alike, within this many degrees,
TURN = 25.0
#: ... and alike in size: the smaller card at least this share of the larger's height (the
#: cards of one hand lie at one distance from the camera; a card read in a box the wrong
#: size, as where two hands touch and their region was cut wrong, is not joined to another
#: hand's card: on one printed tuning photo that made a hand of pieces of two).
SIZE = 0.8
#: A piece whose region reaches this many card heights farther along its cards' width than
#: its cards do holds cards not read (``holds_more``): it is not joined. The pieces of
#: hands laid apart joined right reached at most 0.32 farther (383 pieces, 72 photos of
#: nine designs laid apart and spread wide, seeds 770000), most under 0.07; a fan of three
#: cards read as one reaches two spreads (0.38-0.54) farther. Before it, a hand of which
#: one index was seen was joined to a neighbour's two cards read of three: a hand of two
#: seats' cards nothing flagged (nicu-white 770501 under "floor and rail").
UNREAD = 0.35
#: A card's width in card heights (poker size, 63 x 88 mm). A card seen at a slant is
#: foreshortened along one of its sides: its size is taken as the larger of its height
#: and its width over CARD_W (``_size``).
CARD_W = 0.71


def _axes(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A card's centre and its unit width and height directions."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    across = c[1] - c[0]
    down = c[3] - c[0]
    return (c.mean(axis=0), across / max(float(np.linalg.norm(across)), 1e-9),
            down / max(float(np.linalg.norm(down)), 1e-9))


def _height(corners: np.ndarray) -> float:
    c = np.asarray(corners, np.float64).reshape(4, 2)
    return float(np.linalg.norm(c[3] - c[0]))


def _size(corners: np.ndarray) -> float:
    """A card's height as it would be seen square on: the larger of its height and its
    width over ``CARD_W`` (a camera at a slant shortens a card along one side only: cards
    seen 150 pixels high and 132 wide, 188 and 134 on the table plane).

    >>> round(_size(np.array([[0, 0], [71, 0], [71, 100], [0, 100]], float)), 6)
    100.0
    >>> round(_size(np.array([[0, 0], [71, 0], [71, 80], [0, 80]], float)), 6)  # shortened
    100.0
    >>> _size(np.array([[0, 0], [50, 0], [50, 100], [0, 100]], float))  # narrowed: its height
    100.0
    """
    c = np.asarray(corners, np.float64).reshape(4, 2)
    return max(float(np.linalg.norm(c[3] - c[0])), float(np.linalg.norm(c[1] - c[0])) / CARD_W)


def side_by_side(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether cards ``a`` and ``b`` (corners) lie side by side as in one hand.

    >>> card = np.array([[0, 0], [71, 0], [71, 100], [0, 100]], float)
    >>> side_by_side(card, card + [80, 5])      # laid apart, a little lower
    True
    >>> side_by_side(card, card + [0, 110])     # below it: another hand
    False
    >>> side_by_side(card, card + [130, 0])     # too far
    False
    >>> side_by_side(card, card[[2, 3, 0, 1]] + [80, 0])   # read at its other index
    True
    >>> side_by_side(card, card * 1.5 + [80, 0])  # read in a box half as large again
    False
    """
    ca, ua, va = _axes(a)
    cb, ub, _ = _axes(b)
    d = cb - ca
    ha, hb = _height(a), _height(b)
    card_h = (_size(a) + _size(b)) / 2
    # a card read upside down (at its other index) is turned alike
    turn = math.degrees(math.acos(float(np.clip(abs(ua @ ub), 0.0, 1.0))))
    return bool(float(np.linalg.norm(d)) <= REACH * card_h
                and abs(float(d @ va)) <= OFFSET * card_h and turn <= TURN
                and min(ha, hb) >= SIZE * max(ha, hb))


def holds_more(cards: list[np.ndarray], region: np.ndarray) -> bool:
    """Whether ``region`` (the points of the region ``cards`` were read in: its hull)
    reaches farther along the cards' width than the cards do, by more than ``UNREAD``
    card heights: cards lie in it that were not read (a hand whose other indices went
    unseen), so it is no piece of a hand laid apart.

    >>> card = np.array([[0, 0], [71, 0], [71, 100], [0, 100]], float)
    >>> holds_more([card], card)                    # a card alone in its region
    False
    >>> holds_more([card], card + [[0, 0], [50, 0], [50, 0], [0, 0]])  # a hand, one seen
    True
    >>> holds_more([card, card + [25, 0]], card + [[0, 0], [25, 0], [25, 0], [0, 0]])
    False
    """
    _, across, _ = _axes(cards[0])
    corners = np.concatenate([np.asarray(c, np.float64).reshape(4, 2) for c in cards])
    along = corners @ across
    reach = np.asarray(region, np.float64).reshape(-1, 2) @ across
    card_h = float(np.mean([_height(c) for c in cards]))
    return bool(float(reach.max() - reach.min()) - float(along.max() - along.min())
                > UNREAD * card_h)


def joined(pieces: list[list[np.ndarray]],
           regions: list[np.ndarray | None] | None = None) -> list[list[int]]:
    """Groups of ``pieces`` (each a region's cards, their corners) to read as one hand: the
    pieces of fewer than three cards that lie side by side (``side_by_side``, through any
    of their cards), where a group of them holds three cards in all; every other piece
    alone, in the order of their first pieces. A piece whose region (``regions``, its
    points; none where not known) holds more than its cards (``holds_more``) stays alone.

    >>> card = np.array([[0, 0], [71, 0], [71, 100], [0, 100]], float)
    >>> apart = [[card], [card + [80, 0]], [card + [160, 0]], [card + [0, 400]]]
    >>> joined(apart)        # three laid apart, and a card alone far below
    [[0, 1, 2], [3]]
    >>> joined([[card, card + [25, 0]], [card + [110, 0]]])  # two fanned and one
    [[0, 1]]
    >>> joined([[card], [card + [80, 0]]])   # two cards in all: left apart
    [[0], [1]]
    """
    n = len(pieces)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    known = regions if regions is not None else [None] * n
    small = [i for i in range(n) if 0 < len(pieces[i]) < 3
             and ((region := known[i]) is None or not holds_more(pieces[i], region))]
    # each card's centre and size, to pass over pairs farther apart than REACH times the
    # larger card's size before testing them (``side_by_side`` says no to those): a table
    # laid apart has some 25 pieces, 300 pairs
    seen = {i: [(tuple(_axes(c)[0].tolist()), _size(c)) for c in pieces[i]] for i in small}
    for x, i in enumerate(small):
        for j in small[x + 1 :]:
            if any(side_by_side(a, b)
                   for a, (ca, sa) in zip(pieces[i], seen[i], strict=True)
                   for b, (cb, sb) in zip(pieces[j], seen[j], strict=True)
                   if math.dist(ca, cb) <= REACH * max(sa, sb)):
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    out: list[list[int]] = []
    for i in range(n):
        group = groups[root(i)]
        if group[0] != i:
            continue
        if len(group) > 1 and sum(len(pieces[k]) for k in group) != 3:
            out += [[k] for k in group]
        else:
            out.append(group)
    return out
