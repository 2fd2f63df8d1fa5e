#!/usr/bin/env python3
"""Choose the camera scan's confidence threshold (``reader.DEFAULT_THRESHOLD``).

    OPENBLAS_NUM_THREADS=1 .venv/bin/python scripts/vision_threshold.py [--decks 30]

Reads one generated table photo (7 seats and the dealer, 24 cards) of each of ``--decks``
procedural decks from seed 910000 on: decks never trained on, and none of the held-out
designs, which must not inform the threshold. Every read is taken with no threshold; the
wrong reads that nothing else would flag (their hand has three cards and is not oversized,
and the read is not seen twice, moved off a card another read holds, or placed unseen) would
be silent errors, so the threshold must lie above the surest of them. Prints their
confidences and the threshold that rule gives: the surest such wrong read rounded up to the
next 0.05, at least 0.90. The runner-up rule (``reader.RUNNER_UP``) is left out of that, and
checked on its own: the wrong reads it lets through at any confidence.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from vision_decks import procedural_deck  # noqa: E402

from dealer_assist.vision.reader import RUNNER_UP, Reader, in_doubt  # noqa: E402
from dealer_assist.vision.synth import compose  # noqa: E402

FIRST_SEED = 910000


def unflagged_wrong(result: dict, truth: list) -> tuple[list[float], int, int]:
    """Confidences of the wrong reads in hands nothing else flags; cards, right reads."""
    # with no threshold, a card is flagged only for something else: seen twice, moved off
    # a card another read holds, not seen
    flagged_cards, flagged_hands = in_doubt(result)
    wrong: list[float] = []
    right = 0
    for c in result["cards"]:
        ok = any(str(t.card) == c["card"] and lies_on(c, t) for t in truth)
        right += ok
        if not ok and c["hand"] not in flagged_hands and (
                (c["hand"], c["card"]) not in flagged_cards):
            wrong.append(float(c["confidence"]))
    return wrong, len(truth), right


def lies_on(read: dict, card: object) -> bool:
    """Whether ``read`` lies on the true ``card``: as benchmarks/vision.py counts it, within
    0.375 card heights of its centre (in a hand spread tight the next card's centre is
    closer)."""
    corners = card.corners  # type: ignore[attr-defined]
    return float(np.linalg.norm(np.mean(corners, axis=0) - np.mean(read["corners"], axis=0))) < (
        0.375 * float(np.linalg.norm(np.subtract(corners[3], corners[0]))))


def missed_unsaid(result: dict, truth: list) -> int:
    """How many of the true cards no read lies on (``lies_on``) go without a word near
    them: no region sent unread covers or nears one (within half a card height) and no
    flagged read, nor a read of a flagged hand, lies within 1.5 card heights of it (a hand
    flagged "hand has 2 cards" beside its missed card, a card read off its place and
    flagged). A note elsewhere in the photo says nothing of them."""
    flagged_cards, flagged_hands = in_doubt(result)
    regions = [np.asarray(c["region"], np.float32) for c in result["needs_confirmation"]
               if "region" in c]
    near_hands = [np.mean(c["corners"], axis=0) for c in result["cards"]
                  if c["hand"] in flagged_hands or (c["hand"], c["card"]) in flagged_cards]
    unsaid = 0
    for t in truth:
        if any(lies_on(c, t) for c in result["cards"]):
            continue
        centre = np.mean(t.corners, axis=0)
        h = float(np.linalg.norm(np.subtract(t.corners[3], t.corners[0])))
        said = any(cv2.pointPolygonTest(r.reshape(-1, 1, 2), (float(centre[0]),
                                                               float(centre[1])), True)
                   >= -0.5 * h for r in regions)
        said = said or any(float(np.linalg.norm(centre - p)) < 1.5 * h for p in near_hands)
        unsaid += not said
    return unsaid


def shown_read(result: dict, truth: list, whole: list[bool]) -> tuple[int, int, int]:
    """A close-up's (cards it shows whole, of them read right, silent errors), given every
    true card where it lies and which are shown whole (``synth.close_up``). A silent error
    is a wrong read nothing flags, checked against every card (a card the photo's edge cuts,
    read right, is none), or a card shown whole that no read lies on while the result flags
    no hand and nothing unread."""
    shown = [t for t, w in zip(truth, whole, strict=True) if w]
    right = sum(any(str(t.card) == c["card"] and lies_on(c, t) for c in result["cards"])
                for t in shown)
    missed = sum(not any(lies_on(c, t) for c in result["cards"]) for t in shown)
    _, flagged_hands = in_doubt(result)
    unread = any("region" in c for c in result["needs_confirmation"])
    silent = len(unflagged_wrong(result, truth)[0]) + missed * (not (flagged_hands or unread))
    return len(shown), right, silent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decks", type=int, default=30)
    ap.add_argument("--model", type=Path, help="a candidate .onnx (default: the installed one)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    # the confidence alone (runner_up 1.0: never flags), then the runner-up rule alone
    reader = Reader(args.model, threshold=0.0, runner_up=1.0)
    by_runner_up = copy.copy(reader)
    by_runner_up.runner_up = RUNNER_UP
    wrong: list[float] = []
    passed: list[float] = []
    cards = right = 0
    for i in range(args.decks):
        seed = FIRST_SEED + i
        scene = compose({f"proc:{seed}": procedural_deck(seed)}, seed, seats=7)
        image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
        w, n, r = unflagged_wrong(reader.read(image), scene.cards)
        wrong += w
        passed += unflagged_wrong(by_runner_up.read(image), scene.cards)[0]
        cards += n
        right += r
    surest = max(wrong, default=0.0)
    threshold = max(0.90, math.ceil((surest + 1e-9) * 20) / 20)
    print(f"{args.decks} procedural decks (seeds {FIRST_SEED}-{FIRST_SEED + args.decks - 1}), "
          f"{cards} cards, {right} read right ({100 * right / cards:.1f}%)")
    print(f"wrong reads nothing else flags: {len(wrong)}; their confidences, surest first: "
          f"{', '.join(f'{c:.3f}' for c in sorted(wrong, reverse=True)[:10])}")
    print(f"threshold: {threshold:.2f}")
    print(f"wrong reads the runner-up rule ({RUNNER_UP}) lets through at any confidence: "
          f"{len(passed)}{' (surest ' + format(max(passed), '.3f') + ')' if passed else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
