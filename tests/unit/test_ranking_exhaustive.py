"""Every three-card hand and every six-card set, counted against RULES.md §2 and §3."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from dealer_assist.domain.batch import six_card_category, three_card_strength
from dealer_assist.domain.cards import DECK
from dealer_assist.domain.rulesets import DEFAULT_RULES
from dealer_assist.domain.six_card import (
    FIVE_CARD_ORDER,
    SIX_CARD_COUNTS,
    SIX_CARD_SETS,
    FiveCardCategory,
    best_five,
)
from dealer_assist.domain.three_card import ThreeCardCategory, rank_hand

ALL_HANDS = [rank_hand(cards) for cards in combinations(DECK, 3)]


def test_there_are_22100_hands_in_the_published_categories() -> None:
    counts = Counter(h.category for h in ALL_HANDS)
    assert len(ALL_HANDS) == 22_100
    assert counts == {
        ThreeCardCategory.STRAIGHT_FLUSH: 48,
        ThreeCardCategory.THREE_OF_A_KIND: 52,
        ThreeCardCategory.STRAIGHT: 720,
        ThreeCardCategory.FLUSH: 1_096,
        ThreeCardCategory.PAIR: 3_744,
        ThreeCardCategory.HIGH_CARD: 16_440,
    }


def test_the_dealer_qualifies_in_15380_hands() -> None:
    threshold = DEFAULT_RULES.dealer_qualifier.strength
    assert sum(h.strength >= threshold for h in ALL_HANDS) == 15_380


def test_strength_orders_categories_first() -> None:
    by_strength = sorted(ALL_HANDS, key=lambda h: h.strength)
    orders = [h.category.order for h in by_strength]
    assert orders == sorted(orders)


def test_distinct_rank_patterns_never_tie_and_suits_never_matter() -> None:
    # Two hands tie exactly when their ranks match and neither or both are flushes.
    groups: dict[int, set[tuple[tuple[int, ...], bool]]] = {}
    for hand in ALL_HANDS:
        ranks = tuple(sorted(c.rank for c in hand.cards))
        suited = len({c.suit for c in hand.cards}) == 1
        groups.setdefault(hand.strength, set()).add((ranks, suited))
    assert all(len(members) == 1 for members in groups.values())


def test_vectorised_three_card_matches_the_one_hand_path() -> None:
    rows = np.array([[c.index for c in h.cards] for h in ALL_HANDS])
    strength, cat, _ = three_card_strength(rows)
    assert strength.tolist() == [h.strength for h in ALL_HANDS]
    assert cat.tolist() == [h.category.order for h in ALL_HANDS]


def _all_six_card_sets_by_first_card() -> list[np.ndarray]:
    # All 5-card combinations once; every 6-set is a first card plus a 5-set above it.
    fives = np.array(list(combinations(range(52), 5)), dtype=np.int64)
    return [np.concatenate([np.full((int((fives[:, 0] > a).sum()), 1), a), fives[fives[:, 0] > a]],
                           axis=1) for a in range(47)]


@pytest.mark.slow
def test_every_six_card_set_gives_the_published_counts() -> None:
    counts = np.zeros(10, dtype=np.int64)
    for chunk in _all_six_card_sets_by_first_card():
        counts += np.bincount(six_card_category(chunk), minlength=10)
    found = {FIVE_CARD_ORDER[i]: int(n) for i, n in enumerate(counts)}
    assert sum(found.values()) == SIX_CARD_SETS
    assert found == SIX_CARD_COUNTS
    assert found[FiveCardCategory.ROYAL_FLUSH] == 188
    assert found[FiveCardCategory.THREE_OF_A_KIND] == 732_160


def test_vectorised_six_card_matches_the_one_hand_path_on_random_sets() -> None:
    rng = np.random.default_rng(7)
    rows = np.array([rng.choice(52, 6, replace=False) for _ in range(20_000)])
    fast = six_card_category(rows)
    slow = [best_five([DECK[i] for i in row]).order for row in rows]
    assert fast.tolist() == slow
