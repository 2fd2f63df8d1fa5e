"""A whole table photo of a procedural deck whose hands touch along the table's arc: the
rows are cut into hands, and the card height measured again after each cut does not run
away (``geometry.REMEASURE_FLOOR``)."""

from __future__ import annotations

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


def read_right(reader: Reader, scene: Scene) -> tuple[int, int]:
    """(hands found, cards read right where they lie) on the scene's photo."""
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    result = reader.read(image)
    right = 0
    for t in scene.cards:
        centre = np.mean(t.corners, axis=0)
        height = float(np.linalg.norm(np.subtract(t.corners[3], t.corners[0])))
        right += any(c["card"] == str(t.card) and float(np.linalg.norm(
            np.mean(c["corners"], axis=0) - centre)) < 0.375 * height for c in result["cards"])
    return len(result["hands"]), right


def test_an_arc_of_touching_hands_is_cut_into_its_eight_hands(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    # tuning photo 920008/9: seven seats and the dealer, the hands touching along the arc
    scene = compose({"proc:920008": procedural_deck(920008)}, 9200089, seats=7)
    hands, right = read_right(reader, scene)
    assert hands == 8 and right >= 22, (hands, right)
    # without the floor, pieces of cut hands drove the height measured again to a third of
    # a card and every hand was cut up: 6 hands, 7 of 24 cards
    monkeypatch.setattr(geometry, "REMEASURE_FLOOR", 0.0)
    assert read_right(reader, scene)[1] < 12
