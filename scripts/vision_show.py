#!/usr/bin/env python3
"""One tuning photo read, drawn around a place: the true cards in green, the reads in blue
(sure) or red (sent to the dealer), each labelled with its card, confidence and hand.

    .venv/bin/python scripts/vision_show.py KIND SEED X Y [HALF] [SETTING...] [out=F.png]

KIND, SEED and SETTINGs as ``scripts/vision_misses.py`` takes them (tuning photos only,
never the held-out designs); X, Y: the place in the photo (``vision_misses`` prints each
missed card's), HALF: half the side of the square drawn (200 pixels unless given; up to
200 it is magnified twice). Prints the hands read and what the dealer is told; writes
``/tmp/vision_show.png`` unless ``out=`` is given.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts"), str(ROOT / "benchmarks")]

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from vision_misses import photo, settings  # noqa: E402

from dealer_assist.vision.reader import Reader  # noqa: E402


def main(argv: list[str]) -> int:
    kind, seed, x, y = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    rest = argv[4:]
    half = int(rest.pop(0)) if rest and rest[0].isdigit() else 200
    out = next((a[4:] for a in rest if a.startswith("out=")), "/tmp/vision_show.png")
    kwargs, condition, _ = settings([a for a in rest if not a.startswith("out=")])
    cv2.setNumThreads(1)
    scene = photo(kind, seed, kwargs, condition, {})
    img = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    res = Reader().read(img)
    drawn = img.copy()
    for t in scene.cards:
        cv2.polylines(drawn, [np.int32(t.corners)], True, (0, 200, 0), 1)
        cx, cy = np.mean(t.corners, axis=0)
        cv2.putText(drawn, t.card, (int(cx) - 10, int(cy) + 20), 0, 0.45, (0, 160, 0), 1)
    # a read is sent to the dealer by a note naming its card, or by its hand's note
    flagged = {(n.get("hand"), n.get("card")) for n in res["needs_confirmation"]}
    for c in res["cards"]:
        sent = {(c.get("hand"), c["card"]), (c.get("hand"), None)} & flagged
        colour = (0, 0, 255) if sent else (255, 0, 0)  # BGR: red, blue
        cv2.polylines(drawn, [np.int32(c["corners"])], True, colour, 1)
        px, py = c["corners"][0]
        cv2.putText(drawn, f"{c['card']} {c['confidence']:.2f} h{c.get('hand')}",
                    (int(px), int(py) - 3), 0, 0.4, colour, 1)
    for hand in res["hands"]:
        print(f"hand {hand['hand']} {hand.get('seat')} {hand['cards']}")
    for note in res["needs_confirmation"]:
        print(f"note {note.get('hand')} {note.get('card')} {note['reason']}")
    crop = drawn[max(0, y - half) : y + half, max(0, x - half) : x + half]
    if half <= 200:
        crop = cv2.resize(crop, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST)
    cv2.imwrite(out, crop)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
