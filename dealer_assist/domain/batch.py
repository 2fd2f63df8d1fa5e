"""Vectorised settlement: many seat-hands at once with numpy, for re-verifying the log.

It must agree with :func:`settle_round` on every seat-hand (a test checks it on
random rounds); it computes nets only, not reasons. Cards are indices 0..51
(:attr:`Card.index`), one row per seat-hand.

>>> import numpy as np
>>> from .cards import parse_cards
>>> idx = lambda text: np.array([[c.index for c in parse_cards(text)]])
>>> nets = settle_batch(DEFAULT_RULES, dealer=idx("KH AH 2C"), player=idx("10H JH QH"),
...     ante=np.array([1000]), play=np.array([True]), pair_plus=np.array([500]),
...     six_card=np.array([500]), prime=np.array([500]))
>>> nets.tolist()
[[1000, 1000, 5000, 20000, 500000, 1500]]
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from .rulesets import DEFAULT_RULES, MINI_ROYAL, RuleSet
from .settlement import BETS, Bet, BetResult, Outcome, apply_payout_cap
from .six_card import FIVE_CARD_ORDER, straight_top
from .three_card import CATEGORY_ORDER

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Column order of the nets :func:`settle_batch` returns.
NET_COLUMNS: tuple[str, ...] = tuple(b.value for b in BETS)
_RED = np.array([False, True, True, False])  # suits in index order C, D, H, S


def three_card_strength(cards: npt.ArrayLike) -> tuple[IntArray, IntArray, BoolArray]:
    """Strength (as :attr:`ThreeCardHand.strength`), category order and mini royal flag.

    >>> s, cat, mini = three_card_strength([[48, 44, 40]])  # AC KC QC
    >>> int(cat[0]), bool(mini[0])
    (5, True)
    """
    idx = np.asarray(cards, dtype=np.int64)
    ranks = np.sort(idx // 4 + 2, axis=1)[:, ::-1]
    suits = idx % 4
    r0, r1, r2 = ranks[:, 0], ranks[:, 1], ranks[:, 2]
    flush = (suits[:, 0] == suits[:, 1]) & (suits[:, 1] == suits[:, 2])
    wheel = (r0 == 14) & (r1 == 3) & (r2 == 2)
    straight = ((r0 - r1 == 1) & (r1 - r2 == 1)) | wheel
    trips = r0 == r2
    pair = ~trips & ((r0 == r1) | (r1 == r2))
    cat = np.zeros(len(idx), dtype=np.int64)
    cat[flush] = 2
    cat[pair] = 1
    cat[straight] = 3
    cat[trips] = 4
    cat[straight & flush] = 5
    top = np.where(wheel, 3, r0)
    kicker = np.where(r0 == r1, r2, r0)
    t0 = np.where(straight, top, np.where(pair, r1, r0))
    t1 = np.where(straight | trips, 0, np.where(pair, kicker, r1))
    t2 = np.where(straight | trips | pair, 0, r2)
    strength = ((cat * 16 + t0) * 16 + t1) * 16 + t2
    mini = (cat == 5) & (top == 14)
    return strength, cat, mini


@cache
def _three_card_tables() -> tuple[IntArray, IntArray, BoolArray]:
    """Lookup of every ordered triple of card indices (52**3 entries; repeats are unused)."""
    grid = np.indices((52, 52, 52)).reshape(3, -1).T
    return three_card_strength(grid)


def lookup_three_card(cards: npt.ArrayLike) -> tuple[IntArray, IntArray, BoolArray]:
    """As :func:`three_card_strength`, by table lookup (faster for large batches)."""
    idx = np.asarray(cards, dtype=np.int64)
    key = (idx[:, 0] * 52 + idx[:, 1]) * 52 + idx[:, 2]
    strength, cat, mini = _three_card_tables()
    return strength[key], cat[key], mini[key]


@cache
def _rank_multiset_table() -> npt.NDArray[np.int8]:
    """Best-five category (ignoring suits) of every six-rank multiset, keyed 4 bits a rank."""
    table = np.full(1 << 24, -1, dtype=np.int8)
    for ranks in combinations_with_replacement(range(13), 6):
        counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
        if counts[0] > 4:
            continue
        mask = sum(1 << (r + 2) for r in set(ranks))
        if counts[0] == 4:
            cat = 7
        elif counts[0] == 3 and counts[1] >= 2:
            cat = 6
        elif straight_top(mask):
            cat = 4
        elif counts[0] == 3:
            cat = 3
        elif counts[0] == 2 and counts[1] == 2:
            cat = 2
        elif counts[0] == 2:
            cat = 1
        else:
            cat = 0
        key = sum(r << (4 * i) for i, r in enumerate(ranks))
        table[key] = cat
    return table


@cache
def _straight_mask_table() -> BoolArray:
    """For every 13-bit mask of ranks (bit 0 = deuce), whether it holds a five-card straight."""
    return np.array([bool(straight_top(m << 2)) for m in range(1 << 13)])


_ROYAL_BITS = 0b11111 << 8


def six_card_category(cards: npt.ArrayLike) -> IntArray:
    """Best-five category order (0 high card .. 9 royal flush) of each row of six cards.

    >>> six_card_category([[32, 36, 40, 44, 48, 0]]).tolist()  # 10C JC QC KC AC 2C
    [9]
    """
    # Small integer types keep the sorts and lookups in cache: this is the hot loop of
    # re-verifying a month of the log.
    idx = np.asarray(cards, dtype=np.int16)
    ranks = idx >> 2
    suits = idx & 3
    ordered = np.sort(ranks, axis=1).astype(np.int32)
    key = ordered[:, 0]
    for i in range(1, 6):
        key = key | (ordered[:, i] << (4 * i))
    cat = _rank_multiset_table()[key].astype(np.int64)
    # Five or more of one suit among six sorted suits puts that suit in both the first
    # five or the last five places, and always in the middle.
    by_suit = np.sort(suits, axis=1)
    flush_rows = np.flatnonzero((by_suit[:, 0] == by_suit[:, 4]) | (by_suit[:, 1] == by_suit[:, 5]))
    if flush_rows.size:
        fsuit = by_suit[flush_rows, 2]
        in_suit = suits[flush_rows] == fsuit[:, None]
        mask = (in_suit * (1 << ranks[flush_rows].astype(np.int32))).sum(axis=1)
        flush_cat = np.where(_straight_mask_table()[mask], 8, 5)
        flush_cat[(mask & _ROYAL_BITS) == _ROYAL_BITS] = 9
        cat[flush_rows] = np.maximum(cat[flush_rows], flush_cat)
    return cat


def _odds_by_order(table: Mapping[str, int], order: tuple[str, ...]) -> IntArray:
    """Pays indexed by category order, 0 where the table pays nothing."""
    return np.array([table.get(name, 0) for name in order], dtype=np.int64)


#: Rows settled at a time: small enough that the working arrays stay in the CPU cache.
CHUNK_ROWS = 1 << 16


def settle_batch(rules: RuleSet, *, dealer: npt.ArrayLike, player: npt.ArrayLike,
                 ante: npt.ArrayLike, play: npt.ArrayLike, pair_plus: npt.ArrayLike,
                 six_card: npt.ArrayLike, prime: npt.ArrayLike,
                 misdeal: npt.ArrayLike | None = None) -> IntArray:
    """Nets (N, 6) in :data:`NET_COLUMNS` order for N validated seat-hands."""
    columns = [np.asarray(a) for a in (dealer, player, ante, play, pair_plus, six_card, prime)]
    flags = None if misdeal is None else np.asarray(misdeal, dtype=bool)
    total = len(columns[2])
    out = np.empty((total, 6), dtype=np.int64)
    for start in range(0, total, CHUNK_ROWS):
        part = slice(start, start + CHUNK_ROWS)
        d, p, a, pl, pp, six, pr = (c[part] for c in columns)
        out[part] = _settle_chunk(rules, d, p, a, pl, pp, six, pr,
                                  None if flags is None else flags[part])
    return out


def _settle_chunk(rules: RuleSet, dealer: npt.ArrayLike, player: npt.ArrayLike,
                  ante: npt.ArrayLike, play: npt.ArrayLike, pair_plus: npt.ArrayLike,
                  six_card: npt.ArrayLike, prime: npt.ArrayLike,
                  misdeal: npt.ArrayLike | None) -> IntArray:
    dealer_idx = np.asarray(dealer, dtype=np.int64)
    player_idx = np.asarray(player, dtype=np.int64)
    ante_a = np.asarray(ante, dtype=np.int64)
    pp = np.asarray(pair_plus, dtype=np.int64)
    six = np.asarray(six_card, dtype=np.int64)
    prime_a = np.asarray(prime, dtype=np.int64)
    played = np.asarray(play, dtype=bool) & (ante_a > 0)
    folded = (ante_a > 0) & ~played

    p_strength, p_cat, p_mini = lookup_three_card(player_idx)
    d_strength, _, _ = lookup_three_card(dealer_idx)
    qualifies = d_strength >= rules.dealer_qualifier.strength
    wins = played & (~qualifies | (p_strength > d_strength))
    loses = played & qualifies & (p_strength < d_strength)

    nets = np.zeros((len(ante_a), 6), dtype=np.int64)
    nets[:, 0] = np.where(wins, ante_a, 0) - np.where(loses | folded, ante_a, 0)
    nets[:, 1] = np.where(wins & qualifies, ante_a, 0) - np.where(loses, ante_a, 0)

    three_names = tuple(c.value for c in CATEGORY_ORDER)
    ab_odds = _odds_by_order(rules.ante_bonus, three_names)[p_cat]
    if MINI_ROYAL in rules.ante_bonus:
        ab_odds = np.where(p_mini, rules.ante_bonus[MINI_ROYAL], ab_odds)
    nets[:, 2] = np.where(played, ante_a * ab_odds, 0)

    pp_odds = _odds_by_order(rules.pair_plus, three_names)[p_cat]
    if MINI_ROYAL in rules.pair_plus:
        pp_odds = np.where(p_mini, rules.pair_plus[MINI_ROYAL], pp_odds)
    pp_net = np.where(pp_odds > 0, pp * pp_odds, -pp)
    if rules.fold_forfeits_pair_plus:
        pp_net = np.where(folded, -pp, pp_net)
    nets[:, 3] = pp_net

    if six.any():
        five_names = tuple(c.value for c in FIVE_CARD_ORDER)
        six_cat = six_card_category(np.concatenate([player_idx, dealer_idx], axis=1))
        six_odds = _odds_by_order(rules.six_card_bonus, five_names)[six_cat]
        six_net = np.where(six_odds > 0, six * six_odds, -six)
        if not rules.six_card_pays_after_fold:
            six_net = np.where(folded, -six, six_net)
        nets[:, 4] = six_net

    if prime_a.any():
        p_red = _RED[player_idx % 4]
        d_red = _RED[dealer_idx % 4]
        p_one = p_red.all(axis=1) | ~p_red.any(axis=1)
        d_match = np.where(p_red[:, 0], d_red.all(axis=1), ~d_red.any(axis=1))
        if rules.prime:
            odds = np.where(d_match, rules.prime["six_same_color"],
                            rules.prime["three_same_color"])
        else:
            odds = np.zeros(len(prime_a), dtype=np.int64)
        won = p_one & (odds > 0)
        if rules.fold_forfeits_prime:
            won &= ~folded
        nets[:, 5] = np.where(won, prime_a * odds, -prime_a)

    if misdeal is not None:
        nets[np.asarray(misdeal, dtype=bool)] = 0
    if rules.max_payout is not None:
        _cap_rows(nets, rules.max_payout)
    return nets


def _cap_rows(nets: IntArray, cap: int) -> None:
    """Apply the payout cap in place, by the same rule as the one-round path (rare rows)."""
    over = np.flatnonzero(np.where(nets > 0, nets, 0).sum(axis=1) > cap)
    for row in over:
        results = [BetResult(bet, Outcome.WIN, 0, int(net), "") for bet, net in
                   zip(BETS, nets[row], strict=True)]
        capped, _ = apply_payout_cap(results, cap)
        nets[row] = [r.net for r in capped]


__all__ = ["DEFAULT_RULES", "NET_COLUMNS", "Bet", "lookup_three_card", "settle_batch", "six_card_category",
           "three_card_strength"]
