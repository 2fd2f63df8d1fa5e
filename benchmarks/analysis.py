"""Fast exact analysis vs the brute-force reference, on the same rule set, in one run.

    .venv/bin/python benchmarks/analysis.py [--sample N]

The fast path analyses every bet over all 22,100 player hands. The reference (the one the
tests use) deals all 18,424 dealer hands against each player hand and settles each pair
through ``settle_seat``; it runs on a sample of player hands and its time is extrapolated to
all 22,100, which the output labels as such.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dealer_assist.domain.analysis import TOTAL_HANDS, analyze, clear_cache  # noqa: E402
from dealer_assist.domain.rulesets import ruleset_from_presets  # noqa: E402
from tests.unit.test_analysis import (  # noqa: E402
    reference_counts,
    reference_strengths,
    settled_totals,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=6, help="player hands for the reference")
    args = parser.parse_args()
    rules = ruleset_from_presets("ante_bonus 5-4-1", "pair_plus 40-30-6-4-1", "prime 3-4")

    clear_cache(tables=True)
    start = time.perf_counter()
    result = analyze(rules)
    cold = time.perf_counter() - start
    clear_cache()
    start = time.perf_counter()
    analyze(rules)
    warm = time.perf_counter() - start

    rng = random.Random(3)
    hands = [tuple(sorted(rng.sample(range(52), 3))) for _ in range(args.sample)]
    start = time.perf_counter()
    for hand in hands:
        a, b, c = hand
        settled_totals((a, b, c), rules, play=True)
    settle_each = (time.perf_counter() - start) / len(hands)

    reference_strengths()  # the ranking table, built once, not timed
    start = time.perf_counter()
    for hand in hands:
        a, b, c = hand
        reference_counts((a, b, c), rules.dealer_qualifier.strength)
    count_each = (time.perf_counter() - start) / len(hands)

    settle_all = settle_each * TOTAL_HANDS
    count_all = count_each * TOTAL_HANDS
    print(f"rule set {result.rules_hash[:12]}: ante/play edge "
          f"{float(result.ante_play.house_edge):.4%}, {result.ante_play.strategy.description}")
    print(f"{'path':58} {'seconds':>10} {'time / fast cold':>17}")
    rows = [
        ("fast: every bet, all 22,100 hands (cold, tables built)", cold),
        ("fast: every bet, all 22,100 hands (warm hand tables)", warm),
        (f"reference, settle_seat, EXTRAPOLATED from {len(hands)} hands", settle_all),
        (f"reference, counting only, EXTRAPOLATED from {len(hands)} hands", count_all),
    ]
    for label, seconds in rows:
        print(f"{label:58} {seconds:10.3f} {seconds / cold:16,.2f}x")
    print(f"measured per player hand: settle_seat reference {settle_each:.3f} s, "
          f"counting reference {count_each:.4f} s")


if __name__ == "__main__":
    main()
