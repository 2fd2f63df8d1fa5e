"""Hands as dealers also lay them: spread wide, or the three cards side by side apart. The
cards of such a hand lie in two or three card-white regions (or one region long enough to
pass for two hands); the reader must still give the seat one hand of three cards."""

from __future__ import annotations

import math
import sys
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.vision import geometry
from dealer_assist.vision.hand_groups import joined
from dealer_assist.vision.reader import Reader, in_doubt
from dealer_assist.vision.synth import LAYS, Scene, compose

from .conftest import SAMPLES


def _card(x: float, y: float, angle: float, h: float, upside_down: bool,
          short: float = 1.0) -> np.ndarray:
    """A card's corners (clockwise from its upright index's top-left) at (x, y) in a hand
    turned ``angle`` degrees, ``h`` pixels high (``short`` of that where a camera at a slant
    foreshortens it); read at its other index if upside down."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    box = np.add([[0, 0], [0.71 * h, 0], [0.71 * h, short * h], [0, short * h]], [x, y])
    corners = box @ np.array([[c, s], [-s, c]])
    return corners[[2, 3, 0, 1]] if upside_down else corners


@settings(max_examples=200, deadline=None)
@given(angle=st.floats(0, 360), h=st.floats(30, 400), gaps=st.lists(
    st.floats(0.02, 0.5), min_size=2, max_size=2), jitter=st.lists(
    st.floats(-0.1, 0.1), min_size=3, max_size=3), upside=st.lists(
    st.booleans(), min_size=4, max_size=4))
def test_three_cards_laid_apart_are_one_hand(angle: float, h: float, gaps: list[float],
                                             jitter: list[float], upside: list[bool]) -> None:
    w = 0.71 * h
    xs = [0.0, w * (1 + gaps[0]), w * (2 + gaps[0] + gaps[1])]
    hand = [[_card(x, j * h, angle, h, u)] for x, j, u in zip(xs, jitter, upside[:3], strict=True)]
    # the next seat's card, four card heights along the table
    other = [_card(xs[2] + 4 * h, 0.0, angle + 10, h, upside[3])]
    assert joined([*hand, other]) == [[0, 1, 2], [3]]
    # two cards fanned in one region and the third beside them
    beside = _card(0.25 * h + w * (1 + gaps[1]), 0.0, angle, h, upside[2])
    fanned = [[hand[0][0], _card(0.25 * h, 0.0, angle, h, upside[0])], [beside]]
    assert joined(fanned) == [[0, 1]]


@settings(max_examples=200, deadline=None)
@given(angle=st.floats(0, 360), h=st.floats(30, 400), gaps=st.lists(
    st.floats(0.02, 0.5), min_size=2, max_size=2), short=st.floats(0.7, 1.0))
def test_cards_laid_apart_seen_at_a_slant_are_one_hand(angle: float, h: float,
                                                       gaps: list[float], short: float) -> None:
    """A camera at a slant shortens the cards along their height, not along the row they
    lie in: their reach is measured against the card as it would be seen square on
    (``hand_groups._size``). Measured against the height seen, cards 0.5 widths apart were
    too far apart below 0.93 of their height (tuning photo 930003: 150 pixels high, 132
    wide, 180 apart)."""
    w = 0.71 * h
    xs = [0.0, w * (1 + gaps[0]), w * (2 + gaps[0] + gaps[1])]
    hand = [[_card(x, 0.0, angle, h, False, short)] for x in xs]
    other = [_card(xs[2] + 4 * h, 0.0, angle, h, False, short)]
    assert joined([*hand, other]) == [[0, 1, 2], [3]]


@settings(max_examples=100, deadline=None)
@given(angle=st.floats(0, 360), h=st.floats(30, 400), gap=st.floats(0.05, 0.4))
def test_a_row_of_more_than_three_cards_is_not_guessed_at(angle: float, h: float,
                                                          gap: float) -> None:
    """Two seats' hands laid apart close together: which three are a hand is not known;
    each card stays a hand of its own, which the dealer confirms."""
    row = [[_card(k * 0.71 * h * (1 + gap), 0.0, angle, h, False)] for k in range(6)]
    assert joined(row) == [[k] for k in range(6)]
    # one card above the row (another hand's, turned across it) joins nothing
    across = [[_card(0.0, -1.2 * h, angle + 90, h, False)], *row[:3]]
    assert joined(across) == [[0], [1, 2, 3]]


def _silent_hands(reader: Reader, deck: str, seed: int, condition: str,
                  **drawn: Any) -> list[list[str]]:
    """The hands of a table of ``deck`` (``compose(..., seed, seats=7, **drawn)``) taken in
    ``condition`` that nothing flags and that are not one true hand's cards."""
    from dealer_assist.vision.faces import load_deck
    from dealer_assist.vision.synth import moved_truth, stored_in

    scene = compose({deck: load_deck(deck)}, seed, seats=7, **drawn)
    jpeg, moved = stored_in(scene.image, condition, seed)
    result = reader.read(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR))
    hands: dict[int, set[str]] = {}
    for t in moved_truth(scene.cards, moved):
        hands.setdefault(t.hand, set()).add(t.card)
    flagged_cards, flagged_hands = in_doubt(result)
    return [h["cards"] for h in result["hands"]
            if h["hand"] not in flagged_hands
            and not any((h["hand"], c) in flagged_cards for c in h["cards"])
            and set(h["cards"]) not in hands.values()]


@settings(max_examples=100, deadline=None)
@given(angle=st.floats(0, 360), h=st.floats(30, 400), gap=st.floats(0.05, 0.4),
       spread=st.floats(0.19, 0.27), seen=st.integers(0, 2))
def test_a_hand_read_in_part_is_not_joined_to_its_neighbour(angle: float, h: float,
                                                             gap: float, spread: float,
                                                             seen: int) -> None:
    """A fanned hand of which one index was seen, its region as long as its three cards,
    and beside it a neighbour's two cards read (its third missed): together they hold
    three cards, but the first region holds more than the card read in it. Joined, they
    were one hand of two seats' cards that nothing flagged (nicu-white 770501 under
    "floor and rail", below); each stays a hand that is not three cards."""
    fan = [_card(k * spread * h, 0.0, angle, h, False) for k in range(3)]
    region = np.concatenate([fan[0][[0, 3]], fan[2][[1, 2]]])
    start = 0.71 * h + 2 * spread * h + gap * 0.71 * h
    neighbour = [_card(start + k * spread * h, 0.0, angle, h, False) for k in range(2)]
    # ... the one index seen is any of the fan's three
    assert joined([[fan[seen]], neighbour], [region, None]) == [[0], [1]]
    # a card alone in its region, laid apart, is still joined to the two beside it
    alone = fan[2]
    assert joined([[alone], neighbour], [alone, None]) == [[0, 1]]


@pytest.mark.usefixtures("can_render")
def test_no_hand_of_two_seats_cards_passes_unflagged(reader: Reader) -> None:
    """The photo it happened on: seat 2's 4D AH QH read as 4D alone in its region, the next
    seat's 6S 6C 7S as 6S 7S; joined, seat 2 read 6S 7S 4D, unflagged."""
    assert _silent_hands(reader, "nicu-white", 770501, "floor and rail") == []


@pytest.mark.usefixtures("can_render")
def test_pieces_of_two_hands_unevenly_spread_are_flagged(reader: Reader) -> None:
    """A light grey felt in a hard shadow: of QD 3S AC only 3S AC were found, of 7H 2S JC
    only a sliver of 7H; the two pieces lie side by side and hold three cards, and were
    joined into 3S AC 7H, which nothing flagged. Two fanned cards and one a hand's length
    beyond them are not spread as one hand is: the hand is flagged."""
    assert _silent_hands(reader, "gm-paris", 734003, "hard shadow", felt=(0, 0, 160)) == []


def _whole(result: dict, scene) -> tuple[int, int]:
    """(hands read as exactly their three cards at their own seat, with nothing flagged
    about the hand's size; hands)."""
    truth: dict[int, tuple[object, set[str]]] = {}
    for t in scene.cards:
        truth.setdefault(t.hand, (t.seat, set()))[1].add(t.card)
    flagged = {c["hand"] for c in result["needs_confirmation"]
               if c["card"] is None and c["hand"] is not None}
    whole = 0
    for seat, cards in truth.values():
        whole += any(set(h["cards"]) == cards and h["seat"] == seat and h["hand"] not in flagged
                     for h in result["hands"])
    return whole, len(truth)


# hands read whole at their seats (seated by the scene's zones), nothing flagged about the
# hand, of 32 spread wide (1080p) and of 16 laid apart (12 MP): measured 31 and 10 (13
# until card-white's specks were opened with a cross, ``geometry.SPECKLE``: on 920002/8
# card-white now bridges the gap between cards of neighbouring hands, and 3 hands come
# back in pieces, flagged; on all 60 tuning photos laid apart 375 -> 373 of 480 whole).
# Before hands were joined from their pieces and one hand spread wide was no longer cut in
# two where it has no waist (``geometry.WAIST``), and before a region its three cards span
# was taken for one hand (``reader.spans_region``): 16 and 0.
FLOORS = {"spread wide": 29, "laid apart": 9}


@pytest.mark.parametrize("lay", sorted(LAYS))
def test_hands_laid_wide_or_apart_are_read_as_hands(reader: Reader, lay: str) -> None:
    pytest.importorskip("PIL")  # the procedural decks are drawn with Pillow
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_decks import procedural_deck
    from vision_threshold import unflagged_wrong

    whole = hands = right = 0
    decks = (920000, 920002, 920007, 920008) if lay == "spread wide" else (920000, 920002)
    for deck in decks:
        scene = compose({f"proc:{deck}": procedural_deck(deck)}, deck * 10 + 8, seats=7,
                        **LAYS[lay])
        image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
        result = reader.read(image, scene.zones)
        wrong, _, r = unflagged_wrong(result, scene.cards)
        assert not wrong, (deck, lay)
        w, n = _whole(result, scene)
        whole, hands, right = whole + w, hands + n, right + r
    assert right >= 24 * len(decks) - 2, (lay, right)
    assert whole >= FLOORS[lay], (lay, whole, hands)


def test_a_hand_whose_indices_are_unevenly_spread_goes_to_the_dealer(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index of a card lying against a hand's region (a court card beside it whose own
    region was not found) can be read as one of the hand's three, at the wrong place: on a
    held-out photo spread wide (2026-12-03) the three were seen with gaps 0.23 and 0.56 card
    heights, and the card's place was wrong with nothing flagged. A dealer spreads a hand
    about evenly, so such a hand is confirmed."""
    from dealer_assist.vision import reader as reader_module
    from dealer_assist.vision.faces import TRAIN_DECKS, load_deck
    from dealer_assist.vision.reader import in_doubt

    scene = compose({TRAIN_DECKS[0]: load_deck(TRAIN_DECKS[0])}, 9200008, seats=7,
                    **LAYS["spread wide"])
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)

    def uneven(result: dict) -> set[int]:
        return {c["hand"] for c in result["needs_confirmation"]
                if c["card"] is None and "unevenly" in c["reason"]}

    assert uneven(reader.read(image)) == set()  # evenly spread, as the photo's hands are
    monkeypatch.setattr(reader_module, "UNEVEN", 1.0)  # any two gaps not equal: "uneven"
    result = reader.read(image)
    flagged = uneven(result)
    assert flagged and all(len(result["hands"][h]["cards"]) == 3 for h in flagged)
    assert flagged <= in_doubt(result)[1]


def test_a_court_card_lying_alone_is_found(reader: Reader,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A court card whose art reaches its edge leaves card-white only in a frame broken open,
    not card-like as a region: lying alone in a hand laid apart it was set aside as a
    region to confirm, and its hand came back as two cards. A region with a lone card's
    outline (``geometry.lone_card``) is read as a card. Tuning photo 920012 (it was
    920012/9 until ``synth.compose`` drew a larger table's cards from as many pixels as the
    photo shows, ``synth.SHARP_MARGIN``: there the rule now changes nothing; until
    card-white's specks were opened with a cross, ``geometry.SPECKLE``, photos 920001/9 and
    920004/8 showed it too)."""
    pytest.importorskip("PIL")
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_decks import procedural_deck
    from vision_threshold import unflagged_wrong

    from dealer_assist.vision import geometry

    scene = compose({"proc:920012": procedural_deck(920012)}, 920012, seats=7,
                    **LAYS["laid apart"])
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    result = reader.read(image, scene.zones)
    wrong, _, right = unflagged_wrong(result, scene.cards)
    whole = _whole(result, scene)[0]
    assert not wrong and right == 24 and whole >= 6, (right, whole)
    monkeypatch.setattr(geometry, "LONE_FILL", math.inf)  # no region taken for a lone card
    result = reader.read(image, scene.zones)
    assert unflagged_wrong(result, scene.cards)[2] == 23 and _whole(result, scene)[0] < whole


def test_a_court_card_beside_a_hand_spread_wide_is_read_in_it(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hands spread wide on a standard deck's table (tuning photo 930019): a king of hearts
    beside a six and an eight, a queen of hearts and a jack of clubs beside a four. Their
    art reaches their edges, so their card-white is a thin frame that the mask's opening
    wears away, and the regions stopped at the cards beside them: the dealer was told
    "hand has 2 cards" and "hand has 1 cards". Read again lengthened along their rows
    (``reader.WIDEN``), both hands come back whole, and every card of the photo is right.
    (What wore their frames away was the print cut, so reading the regions it cut whole,
    ``geometry.PRINT_UNCUT``, brings them back too; without it ``WIDEN`` still does.)"""
    pytest.importorskip("PIL")
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_threshold import unflagged_wrong

    from dealer_assist.vision import reader as reader_module
    from dealer_assist.vision.faces import load_deck

    scene = compose({"standard": load_deck("standard")}, 930019, seats=7,
                    **LAYS["spread wide"])
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)

    def short_hands(result: dict) -> list[str]:
        return [c["reason"] for c in result["needs_confirmation"]
                if c["card"] is None and "expected 3" in c["reason"]]

    result = reader.read(image, scene.zones)
    wrong, _, right = unflagged_wrong(result, scene.cards)
    assert not wrong and right == 24 and short_hands(result) == []
    assert _whole(result, scene)[0] == 8
    monkeypatch.setattr(geometry, "PRINT_UNCUT", False)
    result = reader.read(image, scene.zones)
    assert unflagged_wrong(result, scene.cards)[2] == 24 and short_hands(result) == []
    monkeypatch.setattr(reader_module, "WIDEN", False)
    result = reader.read(image, scene.zones)
    assert unflagged_wrong(result, scene.cards)[2] == 21
    assert sorted(short_hands(result)) == ["hand has 1 cards, expected 3",
                                           "hand has 2 cards, expected 3"]


def test_a_hand_spread_wide_whose_middle_index_went_unseen_is_read_whole(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hands spread wide on a jolly-royal table (tuning photo 930027): seat 5's king of
    diamonds, queen of clubs and three of spades, the queen's index lost beside its art.
    Its two indices seen lie twice a wide spread apart, more than ``MAX_SPREAD`` allows
    for one step, so the dealer was told "hand has 2 cards". Taken, when the region is a
    hand of its own, for a hand spread wide (``reader.WIDE_SPREAD``), the queen is read
    where the spread puts her, right, and sent to the dealer as such; and the whole hand
    with her (``reader.WIDE_NOTE``): two cards seen that far apart could be two hands'."""
    from dealer_assist.vision import reader as reader_module
    from dealer_assist.vision.faces import load_deck

    scene = compose({"jolly-royal": load_deck("jolly-royal")}, 930027, seats=7,
                    **LAYS["spread wide"])
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    result = reader.read(image, scene.zones)
    seat_5 = next(h for h in result["hands"] if h["seat"] == 5)
    assert seat_5["cards"] == ["KD", "QC", "3S"]
    doubts = {c["card"]: c["reason"] for c in result["needs_confirmation"]
              if c["seat"] == 5}
    assert "spread puts it" in doubts["QC"]
    assert doubts[None] == reader_module.WIDE_NOTE
    assert not any("expected 3" in r for r in doubts.values())
    monkeypatch.setattr(reader_module, "WIDE_SPREAD", reader_module.MAX_SPREAD)
    result = reader.read(image, scene.zones)
    assert next(h for h in result["hands"] if h["seat"] == 5)["cards"] == ["KD", "3S"]
    assert any(c["seat"] == 5 and c["reason"] == "hand has 2 cards, expected 3"
               for c in result["needs_confirmation"])


@pytest.mark.usefixtures("can_render")
def test_court_cards_laid_apart_in_two_pieces_are_read(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hands laid apart on a gm-paris table (tuning photo 930001, 12 MP). A court card's
    art reaches across it from frame line to frame line, so a court card lying alone
    leaves card-white only at its two ends: two regions, neither of which reads a card.
    Six court cards went to the dealer as "cards here could not be read". Two unread
    regions whose outlines together make a lone card's are now read as one
    (``reader.JOIN_CARD``): 22 of the 24 cards read right, 18 before. Two more court cards
    lie in a region widened over their hand (``reader.WIDEN``), read there, and are not
    read a second time."""
    pytest.importorskip("PIL")
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_threshold import unflagged_wrong

    from dealer_assist.vision import reader as reader_module
    from dealer_assist.vision.faces import load_deck

    scene = compose({"gm-paris": load_deck("gm-paris")}, 930001, seats=7,
                    **LAYS["laid apart"])
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    result = reader.read(image, scene.zones)
    wrong, _, right = unflagged_wrong(result, scene.cards)
    assert not wrong and right == 22
    assert len({c["card"] for c in result["cards"]}) == len(result["cards"])  # none twice
    assert not any("seen 2 times" in c["reason"] for c in result["needs_confirmation"])
    monkeypatch.setattr(reader_module, "JOIN_CARD", 0)
    result = reader.read(image, scene.zones)
    wrong, _, right = unflagged_wrong(result, scene.cards)
    assert not wrong and right == 18


def test_a_hand_laid_apart_in_one_region_is_not_said_to_hide_another(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hands laid apart on an ancient-egyptians table (tuning photo 930000, 12 MP). The
    mask's closing joins the card-white of the seven and five of diamonds and the eight of
    spades into one region, three cards long with the felt between them, and the dealer was told
    "this region is larger than a hand: another hand may be hidden in it". Its three
    indices, evenly apart and as far as a hand laid apart lies (``reader.APART_REACH``),
    account for it: the hand is read whole and sure."""
    from dealer_assist.vision import reader as reader_module
    from dealer_assist.vision.faces import load_deck

    scene = compose({"ancient-egyptians": load_deck("ancient-egyptians")}, 930000, seats=7,
                    **LAYS["laid apart"])
    hand = {"7D", "5D", "8S"}
    assert hand in [{str(t.card) for t in scene.cards if t.hand == k} for k in range(8)]
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)

    def said_of_the_hand() -> list[str]:
        result = reader.read(image, scene.zones)
        at = [h["hand"] for h in result["hands"] if set(h["cards"]) == hand]
        assert len(at) == 1
        return [c["reason"] for c in result["needs_confirmation"] if c["hand"] == at[0]]

    assert said_of_the_hand() == []
    monkeypatch.setattr(reader_module, "APART_REACH", 0.0)
    assert said_of_the_hand() == ["this region is larger than a hand: another hand may be "
                                  "hidden in it"]


def test_a_hand_laid_apart_at_a_slant_is_read_whole(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hands laid apart on a penguins table (tuning photo 930003, 12 MP). The camera's slant
    shortens the king and three of diamonds and the seven of spades to 150 pixels high, 132
    wide (188 and 134 square on): the three and the seven, 180 pixels apart, were too far
    apart for 1.15 times the height seen, and the dealer had three one-card hands to put
    together. Measured against the card as it would be seen square on
    (``hand_groups._size``), the hand is read whole."""
    from dealer_assist.vision import hand_groups
    from dealer_assist.vision.faces import load_deck

    scene = compose({"penguins": load_deck("penguins")}, 930003, seats=7, **LAYS["laid apart"])
    hand = {"KD", "3D", "7S"}
    assert hand in [{str(t.card) for t in scene.cards if t.hand == k} for k in range(8)]
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert hand in [set(h["cards"]) for h in reader.read(image, scene.zones)["hands"]]
    monkeypatch.setattr(hand_groups, "CARD_W", math.inf)  # the height seen alone
    assert [h["cards"] for h in reader.read(image, scene.zones)["hands"]
            if set(h["cards"]) <= hand] == [["KD"], ["3D"], ["7S"]]


def _laid_apart_930000() -> tuple[Scene, np.ndarray]:
    from dealer_assist.vision.faces import load_deck

    scene = compose({"ancient-egyptians": load_deck("ancient-egyptians")}, 930000, seats=7,
                    **LAYS["laid apart"])
    return scene, cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)


def test_a_card_laid_apart_whose_index_is_read_twice_is_one_card(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hands laid apart on an ancient-egyptians table (tuning photo 930000, 12 MP). The ten
    of hearts' index was read again as a queen of hearts 0.1 card heights to its right, in
    a region one card wide: two cards, and the ten's hand (the three of diamonds and two
    of clubs beside it) was sent to the dealer as three hands of one and two cards. One
    card's region holds one card (``reader.CROWDED_TOP``): the hand is read whole."""
    from dealer_assist.vision import reader as reader_module

    scene, image = _laid_apart_930000()
    hand = {"3D", "2C", "10H"}
    assert hand in [{str(t.card) for t in scene.cards if t.hand == k} for k in range(8)]
    assert hand in [set(h["cards"]) for h in reader.read(image, scene.zones)["hands"]]
    monkeypatch.setattr(reader_module, "CROWDED_TOP", 0.0)
    read = [h["cards"] for h in reader.read(image, scene.zones)["hands"]
            if set(h["cards"]) & hand]
    assert sorted(read) == [["10H", "QH"], ["2C"], ["3D"]]


def test_two_cards_laid_side_by_side_are_not_taken_for_a_fan(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hands laid apart on an ancient-egyptians table (tuning photo 930000, 12 MP). The
    seven of spades and ten of clubs lie side by side, nearly touching, in one region, a
    card's width apart: read as a fan's bottom and top card, a middle card was placed
    between them where no index was seen (the six of spades, sent to the dealer), and the
    hand's third card, the king of diamonds beside them, was a hand of one. Two indices a
    card's width apart are two cards side by side (``reader.SIDE_BY_SIDE``): the hand is
    read whole."""
    from dealer_assist.vision import reader as reader_module

    scene, image = _laid_apart_930000()
    hand = {"7S", "10C", "KD"}
    assert hand in [{str(t.card) for t in scene.cards if t.hand == k} for k in range(8)]
    assert hand in [set(h["cards"]) for h in reader.read(image, scene.zones)["hands"]]
    monkeypatch.setattr(reader_module, "SIDE_BY_SIDE", math.inf)
    read = [h["cards"] for h in reader.read(image, scene.zones)["hands"]
            if set(h["cards"]) & hand]
    assert ["KD"] in read
    fan = [cards for cards in read if cards != ["KD"]]  # a middle card placed unseen
    assert len(fan) == 1 and len(fan[0]) == 3 and {"7S", "10C"} <= set(fan[0])
