"""Seat-hands settled per second: the one-round path against the numpy batch path.

    .venv/bin/python benchmarks/settle.py [--hands N]

Both settle the same random seat-hands (every bet staked, 70% play) under the default
rules and must agree; the batch path is what re-verifies the hand log, so its target is
1,000,000 seat-hands per second on one core (a 100-table month is ~26 million).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from dealer_assist.domain.batch import NET_COLUMNS, settle_batch
from dealer_assist.domain.cards import DECK
from dealer_assist.domain.round_entry import RoundEntry, SeatEntry
from dealer_assist.domain.rulesets import DEFAULT_RULES
from dealer_assist.domain.settlement import settle_round


def random_hands(n: int, seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    cards = np.argsort(rng.random((n, 52)), axis=1)[:, :6]
    stakes = rng.choice([100, 500, 1000, 2500], size=(n, 4))
    return {"dealer": cards[:, :3], "player": cards[:, 3:], "ante": stakes[:, 0],
            "play": rng.random(n) < 0.7, "pair_plus": stakes[:, 1], "six_card": stakes[:, 2],
            "prime": stakes[:, 3]}


def one_round_path(h: dict[str, np.ndarray], count: int) -> tuple[float, list[list[int]]]:
    entries = []
    for i in range(count):
        seat = SeatEntry(1, tuple(DECK[c] for c in h["player"][i]), int(h["ante"][i]),
                         bool(h["play"][i]), int(h["pair_plus"][i]), int(h["six_card"][i]),
                         int(h["prime"][i]))
        entries.append(RoundEntry(tuple(DECK[c] for c in h["dealer"][i]), (seat,)))
    start = time.perf_counter()
    nets = []
    for entry in entries:
        net = settle_round(entry).seats[0].net
        nets.append([net[c] for c in NET_COLUMNS])
    return time.perf_counter() - start, nets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=2_000_000, help="seat-hands for the batch")
    parser.add_argument("--single", type=int, default=20_000, help="seat-hands one by one")
    args = parser.parse_args()
    hands = random_hands(args.hands)
    settle_batch(DEFAULT_RULES, **{k: v[:10] for k, v in hands.items()})  # build the tables

    single_s, single_nets = one_round_path(hands, args.single)
    start = time.perf_counter()
    nets = settle_batch(DEFAULT_RULES, **hands)
    batch_s = time.perf_counter() - start
    assert nets[: args.single].tolist() == single_nets, "batch and one-round paths disagree"

    single_rate = args.single / single_s
    batch_rate = args.hands / batch_s
    print(f"machine: {os.cpu_count()} cores; numpy {np.__version__}; default rules, all bets")
    print(f"{'path':<18}{'seat-hands':>12}{'seconds':>10}{'per second':>14}")
    print(f"{'one-round':<18}{args.single:>12,}{single_s:>10.2f}{single_rate:>14,.0f}")
    print(f"{'batch (numpy)':<18}{args.hands:>12,}{batch_s:>10.2f}{batch_rate:>14,.0f}")
    print(f"batch / one-round: {batch_rate / single_rate:,.0f}x; "
          f"target 1,000,000/s: {'met' if batch_rate >= 1e6 else 'NOT met'}; "
          f"26M seat-hands (100-table month) in {26e6 / batch_rate:.0f} s")


if __name__ == "__main__":
    main()
