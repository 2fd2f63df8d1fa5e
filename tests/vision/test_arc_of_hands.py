"""Whole table photos of procedural decks whose hands touch along the table's arc: the
rows are cut into hands, the card height measured again after each cut does not run away
(``geometry.REMEASURE_FLOOR``), and a parting that leaves a piece too thin to be a hand
gives way to another (``geometry.THIN_PART``)."""

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


def test_an_arc_of_touching_hands_is_cut_into_its_eight_hands(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    # tuning photo 920008/9: seven seats and the dealer, the hands touching along the arc
    scene = compose({"proc:920008": procedural_deck(920008)}, 9200089, seats=7)
    hands, right = read_right(reader, scene)
    assert hands == 8 and right >= 22, (hands, right)
    # without the floor, pieces of cut hands drove the height measured again to a third of
    # a card and every hand was cut up: 7 of 24 cards; since small regions no longer
    # measure it (``geometry.FAN_SHARE``), the pieces drive it down less: 19. Since a
    # region is cut only at a waist (``geometry.WAIST``), single hands are not cut however
    # low the height is measured: 24 without the floor, so the waist is left out here too
    monkeypatch.setattr(geometry, "WAIST", math.inf)
    assert read_right(reader, scene)[1] >= 22
    monkeypatch.setattr(geometry, "REMEASURE_FLOOR", 0.0)
    assert read_right(reader, scene)[1] < 22
    monkeypatch.setattr(geometry, "FAN_SHARE", 0.0)
    assert read_right(reader, scene)[1] < 12


def test_hands_parted_too_thin_are_parted_another_way(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    # check photo 920044/9: eroded once, an arc of touching hands fell into five regions,
    # one 0.67 card heights across (a piece of a hand) and two holding two hands each;
    # eroded more, into six single hands
    scene = compose({"proc:920044": procedural_deck(920044)}, 9200449, seats=7)
    hands, right = read_right(reader, scene)
    assert hands == 8 and right == 24, (hands, right)
    monkeypatch.setattr(geometry, "THIN_PART", 0.0)
    assert read_right(reader, scene)[1] <= 21


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
