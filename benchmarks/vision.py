#!/usr/bin/env python3
"""Camera scan: accuracy per held-out deck design and time per photo, against a baseline.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/vision.py [--scenes 20] [--big 3]

For every deck design held out of training: generated 1920x1080 table photos with all seven
seats and the dealer (24 cards); prints the share of cards read right (right card, right
hand), silent errors (a wrong card not flagged for confirmation), flagged cards, the share
of cards read right and not flagged ("sure": nothing for the dealer to confirm), silent
hands (a hand nothing flags that is not one true hand's cards), and the median time per
photo (and beside the rows of whole photos, how many were said to be blurred, and how many
face-down hands were said to lie face down, and anything else said to); then the margin of
each of the two rules that keep a wrong read from passing as sure, the other left out: the
surest wrong read nothing but the confidence threshold flags, and the wrong reads the
runner-up rule (``reader.RUNNER_UP``) alone lets through. Then the first ``--layout`` of
those tables again with what else a casino's felt shows (the betting circles and the game's
rules printed on it, chips, the chip tray), read alone and compared with the table's empty
layout photographed again from the same place (the seat zones' reference photo) and from a
camera moved; the first ``--conditions`` in each of ``synth.CONDITIONS`` (what a real photo
can bring: a floor around the table, warm dim light, a tilted camera), on a light grey felt
and a near-white table, under a lamp's glare, with the dealer's hand still face down, with a
hand printed on the felt (a pay table's art), with chips lying on the cards and with chips
over index corners; with ``--exposure``, the first of those tables too dark, too bright,
under a lamp's or the shade's colour cast, saved at a low JPEG quality or with its colour
faded (``EXPOSURES``), mirrored (a front camera's), and on a light grey felt under both
tungsten casts; the first ``--lays`` with hands laid in each of ``synth.LAYS`` (spread wide,
laid apart), with how many hands were read whole; with ``--close-ups``, hands of those
tables photographed up close (``synth.close_up``, magnified); with ``--up-close``, one to
three hands photographed up close and drawn sharp (``synth.up_close``); and the median time
for a 12-megapixel (4000x3000) photo. The baseline is the same network reading exhaustively
(a window every 2 pixels, each window cut and read on its own): the ratio says what the
one-pass strip reading buys. ``--enroll DESIGN`` instead measures ``vision enroll``: reads
of photos of DESIGN before and after enrolling it from other labelled photos. Runs on one
core (OpenCV and BLAS limited to one thread). Targets: >= 99.5% right, no silent error, <=
150 ms per 1080p photo, <= 600 ms per 12 MP photo."""

from __future__ import annotations

import argparse
import copy
import dataclasses
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "scripts"))

import cv2
import numpy as np
from vision_threshold import lies_on, missed_unsaid, shown_read, unflagged_wrong

from dealer_assist.vision.faces import HELD_OUT_DECKS, load_back, load_deck
from dealer_assist.vision.geometry import EmptyLayout, reduce
from dealer_assist.vision.net import SECOND_NAMES
from dealer_assist.vision.reader import (
    BLURRED_NOTE,
    FAINT_NOTE,
    MIRRORED_NOTE,
    RUNNER_UP,
    Reader,
    in_doubt,
)
from dealer_assist.vision.synth import (
    CONDITIONS,
    LAYS,
    Scene,
    another_take,
    close_up,
    compose,
    moved_truth,
    stored_in,
    up_close,
)

#: Face height the up-close photos are drawn from (the one-hand row magnifies them a third).
UP_CLOSE_FACE_H = 1500


def score(result: dict, truth: list) -> tuple[int, int, int, int, int, int]:
    """(cards, right, silent errors, flagged, sure, silent hands) for one photo. A truth
    card is right when a read card with its name lies on it (``vision_threshold.lies_on``);
    a read is a silent error when it is wrong (or stray) and neither it nor its hand is
    flagged, and so is a card no read lies on with nothing said near it
    (``vision_threshold.missed_unsaid``); sure counts the right reads not flagged (the
    dealer has nothing to confirm for them); a silent hand is a hand nothing flags whose
    cards are not one true hand's (cards read right, grouped wrong)."""
    flagged_cards, flagged_hands = in_doubt(result)
    right = 0
    matched = set()
    for t in truth:
        for i, c in enumerate(result["cards"]):
            if i in matched:
                continue
            if c["card"] == t.card and lies_on(c, t):
                right += 1
                matched.add(i)
                break
    silent = flagged = sure = 0
    for i, c in enumerate(result["cards"]):
        is_flagged = (c["hand"], c["card"]) in flagged_cards or c["hand"] in flagged_hands
        flagged += is_flagged
        silent += i not in matched and not is_flagged
        sure += i in matched and not is_flagged
    # a card missed altogether is silent unless the result says something near it: a
    # region sent unread over it, a flagged read beside it (``missed_unsaid``)
    hands: dict[int, set[str]] = {}
    for t in truth:
        hands.setdefault(t.hand, set()).add(t.card)
    silent_hands = sum(
        1 for h in result["hands"]
        if h["hand"] not in flagged_hands
        and not any((h["hand"], c) in flagged_cards for c in h["cards"])
        and set(h["cards"]) not in hands.values())
    return (len(truth), right, silent + missed_unsaid(result, truth), flagged, sure,
            silent_hands)


def taken_in(scene: Scene, condition: str, seed: int) -> Scene:
    """``scene`` photographed in one of ``synth.CONDITIONS`` (its truth moved with it)."""
    jpeg, moved = stored_in(scene.image, condition, seed)
    return dataclasses.replace(scene, jpeg=jpeg, cards=moved_truth(scene.cards, moved))


def _jpeg(img: np.ndarray, quality: int = 85) -> bytes:
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes()


def _lit(img: np.ndarray, gains: tuple[float, float, float], noise: float = 0.0,
         seed: int = 0) -> bytes:
    """``img`` with its channels (B, G, R) scaled, sensor noise added, clipped, as a JPEG."""
    out = img.astype(np.float32) * np.array(gains, np.float32)
    if noise:
        out += np.random.default_rng(seed).normal(0.0, noise, img.shape).astype(np.float32)
    return _jpeg(np.clip(out, 0, 255).astype(np.uint8))


def _drained(img: np.ndarray, colour: float) -> bytes:
    """``img`` with only ``colour`` of its colour left, as a JPEG."""
    grey = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return _jpeg(cv2.addWeighted(img, colour, grey, 1.0 - colour, 0.0))


#: A photo's exposure, white balance and compression gone wrong, the cards where they were
#: (``--exposure``): a quarter of the light with sensor noise; 1.7 times too much, the
#: cards' white clipped; a tungsten lamp's cast left uncorrected (and a stronger one, red
#: 2.8 times blue), and a shade's; a JPEG saved at quality 25; with only 5% and 15% of its
#: colour left (a phone's faded filter; with none, the photo is refused when loaded).
EXPOSURES: dict[str, Callable[[np.ndarray, int], bytes]] = {
    "underexposed (x0.25)": lambda img, seed: _lit(img, (0.25, 0.25, 0.25), 3.0, seed),
    "overexposed (x1.7)": lambda img, seed: _lit(img, (1.7, 1.7, 1.7)),
    "tungsten cast": lambda img, seed: _lit(img, (0.6, 0.85, 1.3)),
    "tungsten, stronger": lambda img, seed: _lit(img, (0.5, 0.8, 1.4)),
    "shade cast": lambda img, seed: _lit(img, (1.35, 1.0, 0.65)),
    "JPEG quality 25": lambda img, seed: _jpeg(img, 25),
    "colour faded to 5%": lambda img, seed: _drained(img, 0.05),
    "colour faded to 15%": lambda img, seed: _drained(img, 0.15),
}


def whole_hands(scenes: list, results: list) -> tuple[int, int]:
    """(hands read whole, hands): a hand is read whole when one hand of the result holds
    exactly its three cards."""
    whole = hands = 0
    for sc, res in zip(scenes, results, strict=True):
        truth: dict[int, set[str]] = {}
        for t in sc.cards:
            truth.setdefault(t.hand, set()).add(t.card)
        read = [set(h["cards"]) for h in res["hands"]]
        hands += len(truth)
        whole += sum(cards in read for cards in truth.values())
    return whole, hands


def totals(scenes: list, results: list) -> list[int]:
    """``score`` summed over photos."""
    s = [0] * 6
    for sc, res in zip(scenes, results, strict=True):
        for j, v in enumerate(score(res, sc.cards)):
            s[j] += v
    return s


def said(scenes: list, results: list) -> str:
    """How many of the photos the dealer is told are blurred (``reader.BLURRED_NOTE``),
    and, where any is, show almost no colour (``reader.FAINT_NOTE``) or were read mirrored
    (``reader.MIRRORED_NOTE``); and where hands lie face down (``compose(face_down=...)``),
    how many of them are said to (a note with ``"face_down"`` over the hand:
    ``reader.FACE_DOWN_PAPER``), and how many such notes lie over no face-down hand (said
    of anything else)."""
    blurred = sum(any(c["reason"] == BLURRED_NOTE for c in r["needs_confirmation"])
                  for r in results)
    out = f"  said blurred: {blurred} of {len(results)}"
    for name, note in (("colour faint", FAINT_NOTE), ("mirrored", MIRRORED_NOTE)):
        told = sum(any(c["reason"] == note for c in r["needs_confirmation"]) for r in results)
        if told:
            out += f"  said {name}: {told}"
    down = named = elsewhere = 0
    for sc, res in zip(scenes, results, strict=True):
        cards = sc.meta.get("face_down", [])
        hands = [np.mean(cards[k : k + 3], axis=(0, 1)) for k in range(0, len(cards), 3)]
        near = 0.6 * float(np.linalg.norm(np.subtract(sc.cards[0].corners[3],
                                                      sc.cards[0].corners[0])))
        notes = [np.mean(c["region"], axis=0) for c in res["needs_confirmation"]
                 if c.get("face_down")]
        down += len(hands)
        named += sum(any(np.linalg.norm(c - h) < near for c in notes) for h in hands)
        elsewhere += sum(not any(np.linalg.norm(c - h) < near for h in hands) for c in notes)
    if down:
        out += f"  said face down: {named} of {down} hands"
    if elsewhere:
        out += f"  said face down elsewhere: {elsewhere}"
    return out


def row(name: str, s: list[int], width: int = 24) -> str:
    """A line of the table: cards, right, silent (cards), flagged, sure, silent hands."""
    return (f"{name:{width}} {s[0]:6d} {100 * s[1] / s[0]:7.2f}% {s[2]:7d} {s[3]:8d} "
            f"{100 * s[4] / s[0]:6.1f}% {s[5]:7d}")


def run(reader: Reader, scenes: list, empties: list | None = None) -> tuple[list[float], list]:
    """Read every scene (with its table's empty layout, if given: prepared beforehand, as
    the server keeps it for every scan at the table); times and results."""
    times, results = [], []
    for k, sc in enumerate(scenes):
        img = cv2.imdecode(np.frombuffer(sc.jpeg, np.uint8), cv2.IMREAD_COLOR)
        empty = None
        if empties:
            empty = EmptyLayout(empties[k])
            empty.at(reduce(img)[0])
        t0 = time.perf_counter()
        res = reader.read(img, None, empty)
        times.append(time.perf_counter() - t0)
        results.append(res)
    return times, results


def enroll_benchmark(reader: Reader, designs: list[str], photos: int, tests: int,
                     seed: int) -> int:
    """Reads of ``tests`` photos of each of ``designs`` before and after enrolling it from
    ``photos`` other labelled photos (``vision enroll``)."""
    from dealer_assist.vision.enroll import enroll

    print(f"{'design':24} {'reader':20} {'cards':>6} {'right':>8} {'silent':>7} "
          f"{'flagged':>8} {'sure':>7} {'s.hands':>7} {'median ms':>10} {'enroll s':>9}")
    tot: dict[str, list[int]] = {}
    times: dict[str, list[float]] = {}
    for design in designs:
        decks = {design: load_deck(design)}
        teach = [compose(decks, seed + 70000 + i, seats=7) for i in range(photos)]
        test = [compose(decks, seed + 80000 + i, seats=7) for i in range(tests)]
        t0 = time.perf_counter()
        deck = enroll(reader, [(cv2.imdecode(np.frombuffer(sc.jpeg, np.uint8),
                                             cv2.IMREAD_COLOR), sc.truth()) for sc in teach])
        took = time.perf_counter() - t0
        for name, r in (("before (base model)", reader), ("after enrolling", reader.with_deck(deck))):
            took_each, results = run(r, test)
            s = totals(test, results)
            tot[name] = [a + b for a, b in zip(tot.get(name, [0] * 6), s, strict=True)]
            times.setdefault(name, []).extend(took_each)
            print(f"{design:24} {row(name, s, 20)} {statistics.median(took_each) * 1000:10.0f}"
                  f"{f'{took:9.1f}' if name.startswith('after') else ''}", flush=True)
    if len(designs) > 1:
        for name, s in tot.items():
            print(f"{'all':24} {row(name, s, 20)} {statistics.median(times[name]) * 1000:10.0f}")
    before, after = (statistics.median(t) for t in times.values())
    print(f"enrolled from {photos} labelled photos per design, read on {tests} others; reading "
          f"with the deck (and checking it against the model alone) takes {after / before:.2f}x "
          "the time")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--scenes", type=int, default=20, help="1080p photos per held-out design")
    ap.add_argument("--big", type=int, default=3, help="12 MP photos")
    ap.add_argument("--layout", type=int, default=5,
                    help="1080p photos per held-out design on a casino's printed layout, "
                         "with chips (synth.compose(layout=True))")
    ap.add_argument("--conditions", type=int, default=5,
                    help="1080p photos per held-out design in each of synth.CONDITIONS (a "
                         "floor around the table, warm dim light, a tilted camera...) and "
                         "on a light grey felt and a near-white table")
    ap.add_argument("--exposure", type=int, default=0,
                    help="1080p photos per held-out design with each of EXPOSURES (too "
                         "dark, too bright, a colour cast, a low JPEG quality)")
    ap.add_argument("--lays", type=int, default=0,
                    help="photos per held-out design with hands laid in each of synth.LAYS "
                         "(spread wide; laid apart, 12 MP)")
    ap.add_argument("--close-ups", type=int, default=0,
                    help="12 MP tables per held-out design, two of whose hands are each "
                         "photographed up close (synth.close_up: cards 1,500 pixels high "
                         "with the hands around, and 800 with the hand filling the frame)")
    ap.add_argument("--up-close", type=int, default=0,
                    help="12 MP photos per held-out design and card size of one to three "
                         "hands up close, drawn sharp from faces rasterised 1,500 pixels "
                         "high (synth.up_close: cards 600, 1,000 and 1,500 pixels high; and "
                         "one hand, cards 2,000 pixels high, filling the frame)")
    ap.add_argument("--seed", type=int, default=500000)
    ap.add_argument("--enroll", metavar="DESIGN",
                    help="instead: enroll DESIGN (or every held-out design: 'held-out') from "
                         "--enroll-photos labelled photos and compare reads on --scenes other "
                         "photos before and after")
    ap.add_argument("--enroll-photos", type=int, default=4)
    ap.add_argument("--model", type=Path, help="a candidate index network .onnx, with the second look "
                    f"({', '.join(SECOND_NAMES)}) beside it if any (default: the installed ones)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    reader = Reader(args.model)
    if args.enroll:
        designs = list(HELD_OUT_DECKS) if args.enroll == "held-out" else [args.enroll]
        return enroll_benchmark(reader, designs, args.enroll_photos, args.scenes, args.seed)
    baseline = Reader(args.model, exhaustive=True)
    print(f"{'design':24} {'cards':>6} {'right':>8} {'silent':>7} {'flagged':>8} "
          f"{'sure':>7} {'s.hands':>7} {'median ms':>10} {'baseline ms':>12} {'ratio':>6}")
    all_times: list[float] = []
    all_results: list[dict] = []
    all_scenes: list = []
    tot = [0] * 6
    # the same reads with one rule at a time: the threshold alone, the runner-up rule alone
    threshold_alone = copy.copy(reader)
    threshold_alone.threshold, threshold_alone.runner_up = 0.0, 1.0
    runner_up_alone = copy.copy(threshold_alone)
    runner_up_alone.runner_up = RUNNER_UP
    only_threshold: list[float] = []
    only_runner_up: list[float] = []
    faces = {deck: load_deck(deck) for deck in HELD_OUT_DECKS}
    for n, deck in enumerate(HELD_OUT_DECKS):
        decks = {deck: faces[deck]}
        scenes = [compose(decks, args.seed + 1000 * n + i, seats=7) for i in range(args.scenes)]
        times, results = run(reader, scenes)
        btimes, _ = run(baseline, scenes[: max(3, args.scenes // 4)])
        s = totals(scenes, results)
        tot = [a + b for a, b in zip(tot, s, strict=True)]
        all_times += times
        all_results += results
        all_scenes += scenes
        med, bmed = statistics.median(times) * 1000, statistics.median(btimes) * 1000
        print(f"{row(deck, s)} {med:10.0f} {bmed:12.0f} {bmed / med:5.1f}x", flush=True)
        for sc in scenes:
            img = cv2.imdecode(np.frombuffer(sc.jpeg, np.uint8), cv2.IMREAD_COLOR)
            only_threshold += unflagged_wrong(threshold_alone.read(img), sc.cards)[0]
            only_runner_up += unflagged_wrong(runner_up_alone.read(img), sc.cards)[0]
    med = statistics.median(all_times) * 1000
    print(f"{row('all held-out', tot)} {med:10.0f}{said(all_scenes, all_results)}")
    print(f"margins: without the runner-up rule, the surest wrong read nothing else flags "
          f"scored {max(only_threshold, default=0.0):.3f} (threshold {reader.threshold}); "
          f"without the threshold, wrong reads the runner-up rule ({RUNNER_UP}) lets through: "
          f"{len(only_runner_up)}")
    if args.layout:
        # the same tables with what else a casino's felt shows: betting circles and the
        # game's rules printed on it, chips, the chip tray
        laid = [compose({deck: faces[deck]}, args.seed + 1000 * n + i, seats=7, layout=True)
                for n, deck in enumerate(HELD_OUT_DECKS) for i in range(args.layout)]
        times, results = run(reader, laid)
        print(f"{row('on a printed layout', totals(laid, results))} "
              f"{statistics.median(times) * 1000:10.0f}")
        # ... and compared with the table's empty layout, photographed again from the same
        # place (the seat zones' reference photo: another take, camera shaken, light changed)
        empties = [cv2.imdecode(np.frombuffer(another_take(compose(
            {deck: faces[deck]}, args.seed + 1000 * n + i, seats=7, layout=True,
            empty=True).image, i), np.uint8), cv2.IMREAD_COLOR)
            for n, deck in enumerate(HELD_OUT_DECKS) for i in range(args.layout)]
        times, results = run(reader, laid, empties)
        print(f"{row('  with its empty layout', totals(laid, results))} "
              f"{statistics.median(times) * 1000:10.0f}")
        # ... photographed with the camera moved (a tablet held again): matched by its print
        moved = [cv2.imdecode(np.frombuffer(another_take(compose(
            {deck: faces[deck]}, args.seed + 1000 * n + i, seats=7, layout=True,
            empty=True, view=1).image, i), np.uint8), cv2.IMREAD_COLOR)
            for n, deck in enumerate(HELD_OUT_DECKS) for i in range(args.layout)]
        times, results = run(reader, laid, moved)
        print(f"{row('  ... the camera moved', totals(laid, results))} "
              f"{statistics.median(times) * 1000:10.0f}")
    if args.conditions:
        # what a real photo can bring that the generated tables do not draw
        plain = [(compose({deck: faces[deck]}, args.seed + 1000 * n + i, seats=7), n * 100 + i)
                 for n, deck in enumerate(HELD_OUT_DECKS) for i in range(args.conditions)]
        for condition in CONDITIONS:
            changed = [taken_in(sc, condition, seed) for sc, seed in plain]
            times, results = run(reader, changed)
            print(f"{row(condition, totals(changed, results))} "
                  f"{statistics.median(times) * 1000:10.0f}{said(changed, results)}")
        grey = [compose({deck: faces[deck]}, args.seed + 1000 * n + i, seats=7, felt=(0, 0, 160))
                for n, deck in enumerate(HELD_OUT_DECKS) for i in range(args.conditions)]
        times, results = run(reader, grey)
        print(f"{row('light grey felt', totals(grey, results))} "
              f"{statistics.median(times) * 1000:10.0f}{said(grey, results)}")
        # a light felt in a hard shadow: its lit half is whiter than the shadow's cards
        shaded = [taken_in(sc, "hard shadow", seed)
                  for sc, (_, seed) in zip(grey, plain, strict=True)]
        times, results = run(reader, shaded)
        print(f"{row('  ... in a hard shadow', totals(shaded, results))} "
              f"{statistics.median(times) * 1000:10.0f}{said(shaded, results)}")
        # the same tables drawn otherwise (synth.compose's keywords for each design): a
        # near-white table (a desk, a light cloth: the cards stand little above it); a lamp
        # above reflected in the glossy cards; the dealer's hand still face down (the
        # deck's own back) and a hand printed on the felt, smaller (a pay table's art),
        # where a read unflagged is a silent error; chips lying on the cards, three per
        # table, each anywhere on a card (a payout pushed against a hand, a marker), and
        # three lying over index corners (a bet pushed up against the hand)
        backs = {deck: load_back(deck) for deck in HELD_OUT_DECKS}
        drawn: dict[str, Callable[[str], dict[str, Any]]] = {
            "near-white table": lambda deck: {"felt": (0, 0, 200)},
            "lamp glare": lambda deck: {"glare": True},
            "dealer's hand face down": lambda deck: {"face_down": (7,), "back": backs[deck]},
            "a hand printed on felt": lambda deck: {"pictured": True},
            "chips on the cards": lambda deck: {"chips_on": 3},
            "chips over an index": lambda deck: {"chips_over_index": 3},
        }
        for name, drawing in drawn.items():
            tables = [compose({deck: faces[deck]}, args.seed + 1000 * n + i, seats=7,
                              **drawing(deck))
                      for n, deck in enumerate(HELD_OUT_DECKS) for i in range(args.conditions)]
            times, results = run(reader, tables)
            print(f"{row(name, totals(tables, results))} "
                  f"{statistics.median(times) * 1000:10.0f}{said(tables, results)}")
    if args.exposure:
        # the same tables, the photo's exposure, white balance or compression gone wrong
        tables = [(compose({deck: faces[deck]}, args.seed + 1000 * n + i, seats=7), n * 100 + i)
                  for n, deck in enumerate(HELD_OUT_DECKS) for i in range(args.exposure)]
        for name, take in EXPOSURES.items():
            taken = [dataclasses.replace(sc, jpeg=take(sc.image, seed)) for sc, seed in tables]
            times, results = run(reader, taken)
            print(f"{row(name, totals(taken, results))} "
                  f"{statistics.median(times) * 1000:10.0f}{said(taken, results)}")
        # taken with a front camera, mirrored (the truth mirrored with it)
        mirrored = [dataclasses.replace(
            sc, jpeg=_jpeg(cv2.flip(sc.image, 1)),
            cards=[dataclasses.replace(t, corners=[[sc.image.shape[1] - 1 - x, y]
                                                   for x, y in t.corners]) for t in sc.cards])
            for sc, _ in tables]
        times, results = run(reader, mirrored)
        print(f"{row('mirrored (front camera)', totals(mirrored, results))} "
              f"{statistics.median(times) * 1000:10.0f}{said(mirrored, results)}")
        # a warm lamp over a light grey felt: the felt and the cards both the lamp's colour
        greys = [(compose({deck: faces[deck]}, args.seed + 1000 * n + i, seats=7,
                          felt=(0, 0, 160)), n * 100 + i)
                 for n, deck in enumerate(HELD_OUT_DECKS) for i in range(args.exposure)]
        for name, cast in (("grey felt, tungsten", "tungsten cast"),
                           ("grey felt, stronger", "tungsten, stronger")):
            taken = [dataclasses.replace(sc, jpeg=EXPOSURES[cast](sc.image, seed))
                     for sc, seed in greys]
            times, results = run(reader, taken)
            print(f"{row(name, totals(taken, results))} "
                  f"{statistics.median(times) * 1000:10.0f}{said(taken, results)}")
    if args.lays:
        # hands laid as dealers also lay them: spread wide, or side by side apart
        for lay, kwargs in LAYS.items():
            laid = [compose({deck: faces[deck]}, args.seed + 1000 * n + i, seats=7, **kwargs)
                    for n, deck in enumerate(HELD_OUT_DECKS) for i in range(args.lays)]
            times, results = run(reader, laid)
            whole, hands = whole_hands(laid, results)
            print(f"{row(lay, totals(laid, results))} {statistics.median(times) * 1000:10.0f}"
                  f"  hands read whole: {whole} of {hands}")
    if args.close_ups:
        # a phone held over one hand: only the cards it shows whole are counted
        # (``shown_read``), and a read of a card its edge cuts is silent only when wrong
        for px, half in ((1500, 1.5), (800, 0.8)):
            cards = right = silent = 0
            for n, deck in enumerate(HELD_OUT_DECKS):
                for i in range(args.close_ups):
                    sc = compose({deck: faces[deck]}, args.seed + 1000 * n + i, seats=7,
                                 size=(4032, 3024))
                    for hand in (0, 3):
                        photo, truth, whole = close_up(sc, hand, px, half)
                        _, jpeg = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 90])
                        res = reader.read(cv2.imdecode(jpeg, cv2.IMREAD_COLOR))
                        c, r, s = shown_read(res, truth, whole)
                        cards, right, silent = cards + c, right + r, silent + s
            print(f"{f'close-up, cards {px} px':24} {cards:6d} {100 * right / max(cards, 1):7.2f}% "
                  f"{silent:7d}")
    if args.up_close:
        # as sharp as a phone's close-up: faces rasterised as large as the cards are drawn
        sharp = {deck: load_deck(deck, UP_CLOSE_FACE_H) for deck in HELD_OUT_DECKS}
        for px, hands in ((600, None), (1000, None), (1500, None), (2000, 1)):
            cards = right = silent = 0
            times = []
            for n, deck in enumerate(HELD_OUT_DECKS):
                for i in range(args.up_close):
                    sc, whole = up_close({deck: sharp[deck]}, args.seed + 1000 * n + i, px,
                                         hands=hands)
                    photo = cv2.imdecode(np.frombuffer(sc.jpeg, np.uint8), cv2.IMREAD_COLOR)
                    t0 = time.perf_counter()
                    res = reader.read(photo)
                    times.append(time.perf_counter() - t0)
                    c, r, s = shown_read(res, sc.cards, whole)
                    cards, right, silent = cards + c, right + r, silent + s
            what = f"{'one hand' if hands == 1 else 'up close'}, cards {px} px"
            print(f"{what:24} {cards:6d} {100 * right / max(cards, 1):7.2f}% "
                  f"{silent:7d}  median {statistics.median(times) * 1000:.0f} ms")
    if args.big:
        decks = faces
        big = [compose(decks, args.seed + 90000 + i, size=(4000, 3000), seats=7)
               for i in range(args.big)]
        times, results = run(reader, big)
        btimes, _ = run(baseline, big[:1])
        med, bmed = statistics.median(times) * 1000, statistics.median(btimes) * 1000
        print(f"{row('12 MP (4000x3000)', totals(big, results))} {med:10.0f} {bmed:12.0f} "
              f"{bmed / med:5.1f}x")
    print("targets: >= 99.5% right, 0 silent, <= 150 ms per 1080p photo, <= 600 ms per 12 MP")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
