#!/usr/bin/env python3
"""Generate synthetic Three Card Poker table photos with their ground truth.

    .venv/bin/python scripts/vision_generate.py --out sample_images --count 4 --seed 2024

Each scene ``scene_SEED.jpg`` comes with ``scene_SEED.json``: every card (canonical string,
four corners in photo pixels clockwise from the corner whose index reads upright, hand,
seat 1..7 or "dealer", deck design), the seat zones as polygons and the scene parameters.
The same seed gives the same photo. Needs Debian kdegames-card-data-kf5 and librsvg2-bin.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dealer_assist.vision.faces import ALL_DECKS, HELD_OUT_DECKS, load_deck
from dealer_assist.vision.synth import compose


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, default=4)
    ap.add_argument("--seed", type=int, default=2024, help="seed of the first scene")
    ap.add_argument("--decks", default=",".join(HELD_OUT_DECKS),
                    help=f"comma-separated designs, from: {', '.join(ALL_DECKS)}")
    ap.add_argument("--size", default="1920x1080", help="photo size WxH")
    ap.add_argument("--seats", type=int, default=None, help="occupied player seats (1..7)")
    ap.add_argument("--layout", action="store_true",
                    help="a casino's layout printed on the felt, chips on it, the chip tray")
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))
    decks = {d: load_deck(d) for d in args.decks.split(",") if d}
    args.out.mkdir(parents=True, exist_ok=True)
    for i in range(args.count):
        seed = args.seed + i
        scene = compose(decks, seed, size=(w, h), seats=args.seats, layout=args.layout)
        (args.out / f"scene_{seed}.jpg").write_bytes(scene.jpeg)
        (args.out / f"scene_{seed}.json").write_text(json.dumps(scene.truth(), indent=1) + "\n")
        print(f"scene_{seed}.jpg  {scene.meta['deck']}  {len(scene.cards)} cards")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
