#!/usr/bin/env python3
"""What the camera scan reads wrong on tuning photos, photo by photo: for tuning the reader
without looking at the held-out designs.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python scripts/vision_misses.py KIND START N [SETTING...]

KIND ``proc``: a procedural deck per photo (``vision_decks.procedural_deck(seed)``, seeds
from 920000 on are used for tuning); ``train``: the training designs in turn
(``faces.TRAIN_DECKS[seed % 5]``, seeds from 930000 on). Each photo is a table of seven
seats and the dealer (``synth.compose``). One line per photo: ``seed (cards, right, silent,
flagged, sure, silent hands)``, hands read whole, then every true card not read right as
``card@[x,y]->reads near it``; a total at the end, as ``benchmarks/vision.py`` counts.
``scripts/vision_sweep`` runs it on every tuning set; ``scripts/vision_show.py`` draws a photo.

SETTINGs change one thing for the run:
- ``R.NAME=v``, ``G.NAME=v``, ``H.NAME=v``: a constant of ``reader``, ``geometry`` or
  ``hand_groups`` (a number, ``True``/``False``, ``inf``);
- ``cond=floor_and_rail``: the photo taken in one of ``synth.CONDITIONS`` (blanks as _);
- ``lay=laid_apart``: hands laid as in ``synth.LAYS``;
- ``felt=0,0,160``: the felt's colour; ``c.KEY=v``: any other keyword of ``compose``;
- ``exp=over``: the photo's exposure, white balance or compression gone wrong, as the first
  of ``benchmarks/vision.EXPOSURES`` whose name starts so (``under``, ``over``, ``tungsten``,
  ``tungsten,_stronger``, ``shade``, ``JPEG``; blanks as _); ``gains=0.9,1.2,0.8``: the
  photo's blue, green and red scaled so;
- ``notes=1``: print each photo's hands and what it says to the dealer;
- ``empty=same`` (or ``moved``): read with the table's empty layout photographed again
  from the same place (or with the camera moved), as ``benchmarks/vision.py --layout``
  does; with ``c.layout=True``.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts"), str(ROOT / "benchmarks")]

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from vision import EXPOSURES, _lit, score, taken_in, whole_hands  # noqa: E402
from vision_decks import procedural_deck  # noqa: E402
from vision_threshold import lies_on  # noqa: E402

from dealer_assist.vision import geometry, hand_groups, reader  # noqa: E402
from dealer_assist.vision.faces import TRAIN_DECKS, load_deck  # noqa: E402
from dealer_assist.vision.geometry import EmptyLayout  # noqa: E402
from dealer_assist.vision.synth import LAYS, another_take, compose  # noqa: E402

MODULES = {"R": reader, "G": geometry, "H": hand_groups}


def value(text: str) -> Any:
    """A setting's value: a Python literal, ``inf``, or the text itself."""
    if text in ("inf", "-inf"):
        return float(text)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def settings(args: list[str]) -> tuple[dict[str, Any], str | None, bool]:
    """SETTINGs (see the module's doc) -> ``compose`` keywords, the photo's condition and
    whether to print notes; the constants set are set on their modules."""
    kwargs: dict[str, Any] = {"seats": 7}
    condition = None
    notes = False
    for setting in args:
        key, _, text = setting.partition("=")
        if key[:2] in ("R.", "G.", "H."):
            setattr(MODULES[key[0]], key[2:], value(text))
        elif key == "cond":
            condition = text.replace("_", " ")
        elif key == "lay":
            kwargs.update(LAYS[text.replace("_", " ")])
        elif key == "felt":
            kwargs["felt"] = tuple(float(v) for v in text.split(","))
        elif key.startswith("c."):
            kwargs[key[2:]] = value(text)
        elif key == "notes":
            notes = text == "1"
        elif key == "empty":
            kwargs["empty_view"] = {"same": 0, "moved": 1}[text]
        elif key == "exp":
            name = text.replace("_", " ")
            kwargs["exposure"] = EXPOSURES[next(n for n in EXPOSURES if n.startswith(name))]
        elif key == "gains":
            gains = tuple(float(v) for v in text.split(","))
            kwargs["exposure"] = functools.partial(lambda img, seed, k: _lit(img, k), k=gains)
        else:
            raise SystemExit(f"unknown setting {setting!r}")
    return kwargs, condition, notes


def photo(kind: str, seed: int, kwargs: dict[str, Any], condition: str | None,
          trained: dict[str, Any]) -> Any:
    """The tuning photo ``seed`` of ``kind`` (``proc`` or ``train``), as a ``Scene``."""
    decks = _decks(kind, seed, trained)
    kwargs = dict(kwargs)
    kwargs.pop("empty_view", None)
    exposure = kwargs.pop("exposure", None)
    if exposure is not None and condition:
        raise SystemExit("exp= and cond= together: the exposure would undo the condition")
    scene = compose(decks, seed, **kwargs)
    scene = taken_in(scene, condition, seed) if condition else scene
    if exposure is not None:
        scene = dataclasses.replace(scene, jpeg=exposure(scene.image, seed))
    return scene


def _decks(kind: str, seed: int, trained: dict[str, Any]) -> dict[str, Any]:
    if kind == "proc":
        return {f"proc-{seed}": procedural_deck(seed)}
    deck = TRAIN_DECKS[seed % len(TRAIN_DECKS)]
    trained.setdefault(deck, load_deck(deck))
    return {deck: trained[deck]}


def empty_layout(kind: str, seed: int, kwargs: dict[str, Any],
                 trained: dict[str, Any]) -> EmptyLayout | None:
    """The empty layout of the tuning photo ``seed`` photographed again (``empty=``), as
    the server keeps it (the photo's condition and exposure are not applied to it); None
    without ``empty=``."""
    kwargs = dict(kwargs)
    view = kwargs.pop("empty_view", None)
    if view is None:
        return None
    kwargs.pop("exposure", None)
    image = compose(_decks(kind, seed, trained), seed, **kwargs, empty=True, view=view).image
    return EmptyLayout(cv2.imdecode(np.frombuffer(another_take(image, seed), np.uint8),
                                    cv2.IMREAD_COLOR))


def main(argv: list[str]) -> int:
    kind, start, n = argv[0], int(argv[1]), int(argv[2])
    kwargs, condition, notes = settings(argv[3:])
    cv2.setNumThreads(1)
    read = reader.Reader()
    trained = {}
    tot = np.zeros(6, int)
    whole = hands = 0
    for seed in range(start, start + n):
        scene = photo(kind, seed, kwargs, condition, trained)
        img = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
        empty = empty_layout(kind, seed, kwargs, trained)
        if empty is not None:
            empty.at(geometry.reduce(img)[0])  # prepared beforehand, as the server does
        res = read.read(img, None, empty)
        s = score(res, scene.cards)
        tot += s
        w, h = whole_hands([scene], [res])
        whole, hands = whole + w, hands + h
        misses = []
        for t in scene.cards:
            if any(c["card"] == t.card and lies_on(c, t) for c in res["cards"]):
                continue
            near = [f"{c['card']}:{c['confidence']:.2f}" for c in res["cards"] if lies_on(c, t)]
            centre = np.mean(t.corners, axis=0)
            misses.append(f"{t.card}@[{centre[0]:.0f},{centre[1]:.0f}]->{','.join(near) or '-'}")
        print(f"{seed} {s} W{w}/{h} {' '.join(misses)}", flush=True)
        if notes:
            for hd in res["hands"]:
                print(f"    hand {hd['hand']} {hd.get('seat')} {hd['cards']}")
            for c in res["needs_confirmation"]:
                print(f"    note {c.get('hand')} {c.get('card')} {c['reason']}")
    share = 100 * tot[1] / max(tot[0], 1)
    print(f"total cards {tot[0]} right {tot[1]} ({share:.2f}%) silent {tot[2]} flagged {tot[3]} "
          f"sure {tot[4]} ({100 * tot[4] / max(tot[0], 1):.1f}%) s.hands {tot[5]} "
          f"whole {whole}/{hands}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
