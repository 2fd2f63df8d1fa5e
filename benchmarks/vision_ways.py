#!/usr/bin/env python3
"""Camera scan of a photo read several ways: time per photo with the ways that cannot be
kept left unread again (``reader.LOSING``) against reading every way whole.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/vision_ways.py [--tables 5]

A table of little colour is read by whiteness and by brightness (``reader.GREY_BOTH``),
and a photo whose cast may be the felt's own as taken and balanced too
(``reader.BALANCE_BOTH``): two to four reads, the one with the most cards kept. For the
first ``--tables`` held-out tables of each design on a light grey felt, a near-white
table, and a light grey felt under a tungsten lamp's cast and a stronger one
(``benchmarks/vision.EXPOSURES``), each photo is read both ways in turn (on, off, off,
on), one core; prints the median time per photo of each and their ratio, and checks that
every read is the same either way (it exits 1 if not).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent))

import cv2
import numpy as np
from vision import EXPOSURES

from dealer_assist.vision import reader
from dealer_assist.vision.faces import HELD_OUT_DECKS, load_deck
from dealer_assist.vision.synth import compose

TABLES = {"light grey felt": ((0, 0, 160), None), "near-white table": ((0, 0, 200), None),
          "grey felt, tungsten": ((0, 0, 160), "tungsten cast"),
          "grey felt, stronger": ((0, 0, 160), "tungsten, stronger")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=5, help="tables per design and felt")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    faces = {deck: load_deck(deck) for deck in HELD_OUT_DECKS}
    read = reader.Reader()
    same = True
    print(f"{'table':22} {'photos':>6} {'left unread':>12} {'read whole':>11} {'ratio':>6}")
    for name, (felt, cast) in TABLES.items():
        times: dict[bool, list[float]] = {True: [], False: []}
        for n, deck in enumerate(HELD_OUT_DECKS):
            for i in range(args.tables):
                scene = compose({deck: faces[deck]}, args.seed + 1000 * n + i, seats=7,
                                felt=felt)
                jpeg = scene.jpeg if cast is None else EXPOSURES[cast](scene.image, n * 100 + i)
                image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
                results = {}
                for losing in (True, False, False, True):
                    reader.LOSING = losing
                    start = time.perf_counter()
                    results[losing] = read.read(image)
                    times[losing].append(time.perf_counter() - start)
                same = same and results[True] == results[False]
        on, off = (statistics.median(times[k]) * 1000 for k in (True, False))
        print(f"{name:22} {len(times[True]) // 2:6d} {on:9.0f} ms {off:8.0f} ms "
              f"{off / on:5.2f}x")
    reader.LOSING = True
    print("every read the same either way" if same else "READS DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
