"""Cards pictured on something are not cards on the table: a hand printed on the felt (a
pay table's art), the back of a face-down card that pictures cards (nicu-white's and
nicu-ornamental's picture four aces). Nothing there is a card to settle, so nothing read
there may go unflagged. Such hands read as sure hands of three (39 silent reads in 20
photos with a hand printed 0.55 as large), now flagged: their cards are smaller than the
others on the table (``reader.SMALL_CARDS``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dealer_assist.vision.faces import load_back, load_deck
from dealer_assist.vision.reader import SMALL_NOTE, Reader, in_doubt
from dealer_assist.vision.synth import compose

from .conftest import SAMPLES, on_cards


@pytest.mark.usefixtures("can_render")
@pytest.mark.parametrize(("deck", "seed"), [("nicu-ornamental", 600001),
                                            ("nicu-ornamental", 600013),
                                            ("nicu-white", 600000),
                                            ("nicu-white", 600003)])
def test_nothing_read_on_a_face_down_hand_goes_unflagged(reader: Reader, deck: str,
                                                         seed: int) -> None:
    """The dealer's hand lies face down; its back pictures a hand of aces. Without
    SMALL_CARDS, the second photo reads an ace there that nothing flags (the others flag
    every read there for other reasons: seen twice, unsure)."""
    faces = load_deck(deck)
    scene = compose({deck: faces}, seed, seats=7, face_down=(7,), back=load_back(deck))
    down = scene.meta["face_down"]
    assert len(down) == 3 and len(scene.cards) == 21
    result = reader.read(cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR))
    cards, hands = in_doubt(result)
    on_backs = [c for c in result["cards"] if on_cards(down, c["corners"])]
    assert on_backs, "the pictured aces are read (else this photo tests nothing)"
    for c in on_backs:
        assert (c["hand"], c["card"]) in cards or c["hand"] in hands, c
    # every read nothing flags names the face-up card it lies on
    truth = {t.card: t for t in scene.cards}
    sure = [c for c in result["cards"]
            if (c["hand"], c["card"]) not in cards and c["hand"] not in hands]
    for c in sure:
        t = truth.get(c["card"])
        assert t is not None and on_cards([t.corners], c["corners"]), c
    # and the face-up hands are read
    right = sum(c["card"] in truth and on_cards([truth[c["card"]].corners], c["corners"])
                for c in result["cards"])
    assert right >= 18, right


def test_cards_of_the_table_size_are_not_called_small(reader: Reader) -> None:
    """On the sample photos (hands at every seat) no hand is said to be too small."""
    for path in sorted(SAMPLES.glob("scene_*.jpg")):
        result = reader.read(cv2.imread(str(path)))
        assert all(c["reason"] != SMALL_NOTE for c in result["needs_confirmation"]), path.name


@pytest.mark.usefixtures("can_render")
@pytest.mark.parametrize("seed", range(500000, 500005))
def test_a_hand_printed_on_the_felt_is_not_read_as_sure(reader: Reader, seed: int) -> None:
    """A hand of three printed on the felt, 0.55 as large as the cards dealt
    (``synth.compose(pictured=True)``): flagged, and seated nowhere (without SMALL_CARDS
    each of these five photos fails); the cards dealt are read and seated as without it."""
    faces = {"dondorf": load_deck("dondorf")}
    scene = compose(faces, seed, seats=7, pictured=True)
    result = reader.read(cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR))
    plain = reader.read(cv2.imdecode(np.frombuffer(compose(faces, seed, seats=7).jpeg, np.uint8),
                                     cv2.IMREAD_COLOR))
    cards, hands = in_doubt(result)
    pictured = [c for c in result["cards"] if on_cards(scene.meta["pictured"], c["corners"])]
    assert pictured, "the printed hand is read (else this photo tests nothing)"
    for c in pictured:
        assert (c["hand"], c["card"]) in cards or c["hand"] in hands, c
    assert _sure_hands(plain) <= _sure_hands(result)
    # and seated as without it: the printed hand takes no seat along the arc
    assert _seated(result) == _seated(plain)
    assert {c["seat"] for c in pictured} == {None}


def _seated(result: dict) -> dict[object, frozenset[str]]:
    """Each seat's cards in ``result``."""
    return {h["seat"]: frozenset(h["cards"]) for h in result["hands"] if h["seat"] is not None}


def _sure_hands(result: dict) -> set[frozenset[str]]:
    """The hands nothing in ``result`` flags, as their cards."""
    cards, hands = in_doubt(result)
    return {frozenset(h["cards"]) for h in result["hands"] if h["hand"] not in hands
            and not any((h["hand"], c) in cards for c in h["cards"])}
