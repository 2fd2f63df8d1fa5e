"""Whole table photos of procedural decks whose hands touch along the table's arc: the
rows are cut into hands, the card height measured again after each cut does not run away
(``geometry.WAIST``, ``geometry.FAN_SHARE``), and a parting that leaves a piece too thin to
be a hand gives way to another (``geometry.THIN_PART``)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealer_assist.vision import geometry
from dealer_assist.vision.reader import Reader
from dealer_assist.vision.synth import Scene, compose

pytest.importorskip("PIL")  # the procedural decks are drawn with Pillow
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from vision_decks import procedural_deck
from vision_threshold import unflagged_wrong


def read_right(reader: Reader, scene: Scene) -> tuple[int, int]:
    """(hands found, cards read right where they lie) on the scene's photo, counted as the
    threshold check (scripts/vision_threshold.py) counts them."""
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    result = reader.read(image)
    return len(result["hands"]), unflagged_wrong(result, scene.cards)[2]


def test_an_arc_of_touching_hands_is_cut_into_its_eight_hands(reader: Reader) -> None:
    # tuning photo 920008/9: seven seats and the dealer, the hands touching along the arc
    scene = compose({"proc:920008": procedural_deck(920008)}, 9200089, seats=7)
    hands, right = read_right(reader, scene)
    assert hands == 8 and right >= 22, (hands, right)


def test_the_card_height_measured_again_does_not_run_away(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    # printed tuning photo 920017/9: print joins hands into rows, and chips and print leave
    # small card-white. Before card-white's specks were opened with a cross
    # (``geometry.SPECKLE``), photo 920008/9 above showed this, its hands breaking into
    # pieces; now no tuning or check photo (plain, light grey or printed felt) is changed by
    # ``geometry.REMEASURE_FLOOR``, kept as a guard
    scene = compose({"proc:920017": procedural_deck(920017)}, 9200179, seats=7, layout=True)
    assert read_right(reader, scene)[1] >= 19
    # chips and cut pieces taken for hands drive the measure down, and with no waist to
    # cut at, hands are cut up
    monkeypatch.setattr(geometry, "WAIST", math.inf)
    monkeypatch.setattr(geometry, "FAN_SHARE", 0.0)
    assert read_right(reader, scene)[1] <= 10


def test_hands_parted_too_thin_are_parted_another_way(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    # check photo 920052/9 on a light grey felt: eroded once, an arc of touching hands
    # falls apart with a piece too thin to be a hand; eroded more, into its single hands
    # (until card-white's specks were opened with a cross, ``geometry.SPECKLE``, check
    # photo 920044/9 showed this on a green felt: 21 -> 24 of its 24 cards right). Since
    # card-white on a light grey table is measured by the brightest channel
    # (``geometry.GREY_FELT``), 23 of 24 read right here (22 parted thin)
    scene = compose({"proc:920052": procedural_deck(920052)}, 9200529, seats=7,
                    felt=(0, 0, 160))
    hands, right = read_right(reader, scene)
    assert hands == 8 and right >= 23, (hands, right)
    monkeypatch.setattr(geometry, "THIN_PART", 0.0)
    assert read_right(reader, scene)[1] <= 22


def _box(w: float, h: float, x: float = 0.0) -> geometry.Blob:
    corners = np.array([[x, 0], [x + w, 0], [x + w, h], [x, h]], np.float32)
    return geometry.Blob(corners, w * h, (x + w / 2, h / 2), corners)


def test_the_first_parting_with_no_thin_part_is_taken() -> None:
    part = np.zeros((10, 10), np.uint8)  # nothing is left over by any parting
    hand = _box(140, 100)  # the card height is 100: a hand's short side
    thin, full = [_box(60, 110), _box(140, 100, 200)], [_box(130, 95), _box(140, 90, 200)]
    chosen = geometry._parted([[hand], thin], {1: (iter([full]), part, (0, 0))},
                              1.0, 1.0, None)
    assert chosen[0] is hand and chosen[1:] == full
    # when every parting has a thin part, the first is kept (and the dealer sees the reads)
    chosen = geometry._parted([[hand], thin], {1: (iter([thin[::-1]]), part, (0, 0))},
                              1.0, 1.0, None)
    assert chosen[1:] == thin
    # and a first parting with no thin part is taken without making the others
    never = (pytest.fail("another parting was made") for _ in range(1))
    assert geometry._parted([[hand], full], {1: (never, part, (0, 0))},
                            1.0, 1.0, None)[1:] == full


def test_chips_do_not_measure_the_card_height() -> None:
    # eight hands 100 pixels high, and ten chip-sized regions spread a little wider than
    # tall (a chip with a printed word beside it, two white chips in the tray): the hands
    # measure the card height, though the chips are more
    hands = [_box(130, 100, x=200 * i) for i in range(8)]
    chips = [_box(50, 40, x=2000 + 60 * i) for i in range(10)]
    assert geometry.card_height(hands + chips) == 100
    assert geometry.card_height(chips) == 40  # only chips: nothing else tells
