"""A hand lying face down (the dealer's, before it is turned; a player's not turned yet):
nothing on it is a card to settle. Its reads were guesses at cards the photo does not show,
each flagged ("only 1 of 3 cards seen", "low confidence 0.14"), and without seat zones it
moved the dealer's seat. It is now said to lie face down (``reader.FACE_DOWN_PAPER``): no
cards, one note, its region, and its seat kept."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dealer_assist.vision.faces import load_back, load_deck
from dealer_assist.vision.reader import FACE_DOWN_NOTE, Reader, in_doubt
from dealer_assist.vision.synth import Scene, compose

from .conftest import SAMPLES, on_cards


def _read(reader: Reader, scene: Scene) -> dict:
    return reader.read(cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR))


@pytest.mark.usefixtures("can_render")
@pytest.mark.parametrize(("deck", "seed"), [("dondorf", 600006),   # found as a hand, 1 guess
                                            ("dondorf", 600000),   # a region not read
                                            ("jolly-royal", 600002), ("penguins", 600005)])
def test_a_face_down_dealer_hand_is_named_and_keeps_its_seat(reader: Reader, deck: str,
                                                             seed: int) -> None:
    """The dealer's hand face down, no seat zones: the dealer's seat holds a hand with no
    cards and the note, over the cards' place; no card is read there; the players' hands
    are seated where they were dealt (the dealer's hand, not read, took seat 7's place
    along the arc, or the dealer's was guessed among the players')."""
    faces = load_deck(deck)
    scene = compose({deck: faces}, seed, seats=7, face_down=(7,), back=load_back(deck))
    result = _read(reader, scene)
    down = scene.meta["face_down"]
    notes = [n for n in result["needs_confirmation"] if n["reason"] == FACE_DOWN_NOTE]
    assert len(notes) == 1, result["needs_confirmation"]
    note = notes[0]
    assert note["seat"] == "dealer" and note["card"] is None
    assert on_cards(down, note["region"])
    dealer = result["hands"][note["hand"]]
    assert dealer["seat"] == "dealer" and dealer["cards"] == []
    assert not [c for c in result["cards"] if on_cards(down, c["corners"])]
    assert note["hand"] in in_doubt(result)[1]
    # the players keep their seats along the arc: each card read right is seated where
    # it was dealt
    truth = {t.card: t for t in scene.cards}
    right = [c for c in result["cards"]
             if c["card"] in truth and on_cards([truth[c["card"]].corners], c["corners"])]
    assert len(right) >= 18, len(right)
    assert [c["card"] for c in right if c["seat"] != truth[c["card"]].seat] == []


def test_face_up_hands_are_never_said_face_down(reader: Reader) -> None:
    """On the sample photos (hands at every seat, some of court cards) no hand is said to
    lie face down."""
    for path in sorted(SAMPLES.glob("scene_*.jpg")):
        result = reader.read(cv2.imread(str(path)))
        assert all(c["reason"] != FACE_DOWN_NOTE for c in result["needs_confirmation"]), path.name
