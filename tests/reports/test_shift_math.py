"""The SD band checked against simulated play: seats sharing a dealer hand, mixed stakes."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dealer_assist.domain.analysis import analyze, hand_table
from dealer_assist.domain.batch import settle_batch
from dealer_assist.domain.rulesets import DEFAULT_RULES
from dealer_assist.domain.shift_math import (
    VarianceTerms,
    ante_play_seat_covariance,
    bets_as_played,
    inventory_win,
    shift_windows,
)


def _deal(n: int, seats: int, seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    deck = np.argsort(rng.random((n, 52)), axis=1)
    return deck[:, :3], [deck[:, 3 + 3 * k: 6 + 3 * k] for k in range(seats)]


def test_round_variance_with_shared_dealer_matches_simulation() -> None:
    n, stakes = 120_000, (500, 1000, 2500)
    dealer, players = _deal(n, len(stakes), 11)
    table = hand_table()
    index = {tuple(c): i for i, c in enumerate(table.cards.tolist())}
    play_table = analyze(DEFAULT_RULES).ante_play.strategy.play
    zero = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.int64)
    for p, stake in zip(players, stakes, strict=True):
        hands = np.sort(p, axis=1)
        play = np.array([play_table[index[tuple(h)]] for h in hands.tolist()])
        nets = settle_batch(DEFAULT_RULES, dealer=dealer, player=p,
                            ante=np.full(n, stake, dtype=np.int64), play=play, pair_plus=zero,
                            six_card=zero, prime=zero, misdeal=np.zeros(n, dtype=bool))
        total += nets[:, :3].sum(axis=1)
    terms = VarianceTerms()
    terms.add_round(list(stakes))
    v = bets_as_played(DEFAULT_RULES)["ante_play"].variance
    predicted = terms.variance(v, ante_play_seat_covariance(DEFAULT_RULES))
    independent = terms.variance(v)
    measured = float(total.var())
    assert abs(measured / predicted - 1) < 0.04
    assert measured / independent > 1.15  # ignoring the shared dealer hand understates it
    # mean loss per round = sum of antes x the edge per ante
    edge = float(bets_as_played(DEFAULT_RULES)["ante_play"].house_edge)
    assert abs(-total.mean() - edge * sum(stakes)) < 4 * (predicted / n) ** 0.5


def test_mixed_stakes_use_the_sum_of_squares() -> None:
    t = VarianceTerms()
    for stakes in ([100], [10_000], [100, 100]):
        t.add_round(stakes)
    # n x mean^2 would be 4 x 2575^2; the right figure is the sum of squares.
    assert t.sum_sq == 100**2 + 10_000**2 + 2 * 100**2
    assert t.cross == 2 * 100 * 100
    assert t.variance(Fraction(1)) == t.sum_sq


def test_inventory_and_windows() -> None:
    assert inventory_win(opening=0, closing=0, fills=500, credits=0) == -500
    from datetime import date, time

    custom = shift_windows(date(2024, 11, 3), "America/New_York",
                           starts=[time(6), time(14, 30), time(22)])
    assert [w.label for w in custom] == ["06:00-14:30", "14:30-22:00", "22:00-06:00"]
    assert [w.hours for w in custom] == [8.5, 7.5, 8.0]
    fall_back = shift_windows(date(2024, 11, 3), "America/New_York", hours=8)
    assert [w.hours for w in fall_back] == [9.0, 8.0, 8.0]  # clocks go back at 02:00
