"""What a real photo of a table brings that the generated tables do not: the floor or a
tablecloth around the felt, warm dim light the camera did not balance, a 12 MP photo taken
from farther away, the camera moving, a light felt, a hard shadow. The sample photos
(held-out designs, 72 cards) changed that way read about as well (the camera moving:
worse), and never silently wrong."""

from __future__ import annotations

import json
import sys

import cv2
import numpy as np
import pytest

from dealer_assist.vision import geometry
from dealer_assist.vision.reader import Reader
from dealer_assist.vision.synth import compose, stored_in

from .conftest import SAMPLES
from .test_reader import _match

#: Face height the up-close photos are drawn from: as sharp as a phone's close-up.
UP_CLOSE_FACE_H = 1500

# the cards of 72 that must read right under each of ``synth.CONDITIONS`` (measured 69, 69,
# 71, 71; before the reader left out what lies beyond the table, the first two read none,
# warm dim light read 62, and the 12 MP photo 40, with 30 cards missed unflagged: hands too
# small to be regions in its working copy). The camera moving: 49 (41 before the second
# look's second model was trained on hands photographed moving, 2026-12-03). A tilted
# camera and one out of focus are measured by ``benchmarks/vision.py``.
FLOORS = {"floor and rail": 68, "white tablecloth": 68, "warm dim light": 67,
          "12 MP from farther": 68, "camera moving": 46}


def _taken_in(photo: np.ndarray, condition: str, seed: int = 0) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """``photo`` in one of ``synth.CONDITIONS``, as the camera stores it (a JPEG, read
    back), and the matrix moving its pixels there."""
    jpeg, moved = stored_in(photo, condition, seed)
    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR), moved


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_sample_photos_read_under(reader: Reader, name: str) -> None:
    right = total = 0
    for path in sorted(SAMPLES.glob("scene_*.jpg")):
        truth = json.loads(path.with_suffix(".json").read_text())
        photo, moved = _taken_in(cv2.imread(str(path)), name)
        cards = [{**c, "corners": cv2.perspectiveTransform(
            np.array([c["corners"]], np.float32), moved)[0].tolist()} for c in truth["cards"]]
        r, silent, t = _match(reader.read(photo), cards)
        assert silent == 0, (path.name, name)
        right, total = right + r, total + t
    assert total == 72 and right >= FLOORS[name], (name, right)


def test_a_white_tablecloth_does_not_set_how_white_a_card_is(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tablecloth as even as paper and whiter than the cards stands out of nothing
    around it and is not card-white, but it set how white a card must be (a third of the
    photo): scene_3's tight hand of court cards (JS, AD, QH) crumbled into specks and was
    missed with nothing said. The cloth is found beyond the table (``geometry.BEYOND_FELT``)
    and the cards' white is measured on the table: the three are read where they lie. A
    light felt split by the same test is not taken for a cloth."""
    from .conftest import on_cards

    path = SAMPLES / "scene_3.jpg"
    truth = json.loads(path.with_suffix(".json").read_text())
    photo, moved = _taken_in(cv2.imread(str(path)), "white tablecloth")
    hand = [cv2.perspectiveTransform(np.array([c["corners"]], np.float32), moved)[0].tolist()
            for c in truth["cards"] if c["card"] in ("JS", "AD", "QH")]

    def read_there() -> int:
        return sum(on_cards(hand, c["corners"]) for c in reader.read(photo)["cards"])

    assert len(hand) == 3 and read_there() == 3
    monkeypatch.setattr(geometry, "BEYOND_FELT", 2.0)  # no felt covers twice the photo
    assert read_there() == 0

    pytest.importorskip("PIL")
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_decks import procedural_deck

    monkeypatch.undo()
    # Otsu's level alone keeps one side of this grey felt's light, and all of this near-white
    # felt but the cards' ink: neither leaves a felt enclosed
    for seed, felt in ((920002, (0, 0, 160)), (920000, (0, 0, 200))):
        scene = compose({f"proc:{seed}": procedural_deck(seed)}, seed, felt=felt)
        work, _ = geometry.reduce(cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8),
                                               cv2.IMREAD_COLOR))
        split = geometry._otsu(geometry._whiteness(work))
        assert geometry._table(split) is not None, felt  # a "cloth" beyond a "felt"
        assert geometry._table(split, enclosed=True) is None, felt


def test_a_blurred_photo_is_said_to_be(reader: Reader) -> None:
    """A photo taken with the camera moving is read all the same, and the dealer is told it
    is blurred, to take it again (``sharpness.blurred``); a sharp photo, in dim light or
    under a shadow, is not. The sample photos' cards' edges measure 2.0-2.7 working pixels
    across as taken and in every condition but two: 3.5-3.8 with the camera moving, and
    2.7-3.2 out of focus (one of the four said blurred; not checked here)."""
    from dealer_assist.vision.reader import BLURRED_NOTE

    for path in sorted(SAMPLES.glob("scene_*.jpg")):
        for name in ("as taken", "camera moving", "warm dim light", "hard shadow"):
            photo = cv2.imread(str(path))
            if name != "as taken":
                photo, _ = _taken_in(photo, name)
            result = reader.read(photo)
            said = [n for n in result["needs_confirmation"] if n["reason"] == BLURRED_NOTE]
            assert len(said) == (name == "camera moving"), (path.name, name)
            assert said == [] or (said[0]["hand"] is None and said[0]["card"] is None)
            assert result["cards"], (path.name, name)  # read all the same


def test_a_photo_of_faint_colour_is_read_raised_told_and_every_card_sent(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """A photo with only a little of its colour (a phone's faded filter) shows hearts and
    diamonds nearly as dark as spades and clubs, and the networks read them black, sure. A
    photo with none is refused when loaded (``loading.colourless``); one with 5% or 15% of
    its colour left is loaded and read with its colour raised (``colour.raised``): the
    sample photos' 72 cards read 68 and 70 right (43 and 46 as they are). It is told
    (``reader.FAINT_NOTE``, once, for the photo) and every card read in it is sent to the
    dealer; the photos as taken are not told."""
    from dealer_assist.vision import reader as reader_module
    from dealer_assist.vision.loading import ImageError, decode
    from dealer_assist.vision.reader import FAINT_CARD_NOTE, FAINT_NOTE

    def faded(photo: np.ndarray, colour: float) -> bytes:
        grey = cv2.cvtColor(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        ok, jpeg = cv2.imencode(".jpg", cv2.addWeighted(photo, colour, grey, 1 - colour, 0))
        assert ok
        return jpeg.tobytes()

    right = {0.05: 0, 0.15: 0}
    unraised = unguarded = 0
    for path in sorted(SAMPLES.glob("scene_*.jpg")):
        truth = json.loads(path.with_suffix(".json").read_text())["cards"]
        photo = cv2.imread(str(path))
        assert not any(n["reason"] == FAINT_NOTE
                       for n in reader.read(photo)["needs_confirmation"]), path.name
        with pytest.raises(ImageError, match="no colour"):
            decode(faded(photo, 0.0))
        for colour in right:
            result = reader.read(decode(faded(photo, colour)))
            told = [n for n in result["needs_confirmation"] if n["reason"] == FAINT_NOTE]
            assert len(told) == 1 and told[0]["card"] is None, (path.name, colour)
            sent = {(n["hand"], n["card"]) for n in result["needs_confirmation"]
                    if n["card"] and FAINT_CARD_NOTE in n["reason"]}
            assert result["cards"] and sent == {(c["hand"], c["card"])
                                                for c in result["cards"]}, (path.name, colour)
            r, silent, _ = _match(result, truth)
            assert silent == 0, (path.name, colour)
            right[colour] += r
        monkeypatch.setattr(reader_module, "RAISE_UNDER", 0.0)  # read as it is
        unraised += _match(reader.read(decode(faded(photo, 0.05))), truth)[0]
        monkeypatch.setattr(reader_module, "FAINT_COLOUR", 0.0)  # and not told
        unguarded += _match(reader.read(decode(faded(photo, 0.05))), truth)[1]
        monkeypatch.undo()
    assert right[0.05] >= 66 and right[0.15] >= 68 and unraised <= 50, (right, unraised)
    assert unguarded > 0  # what the note is for: a red suit read black, unflagged (scene_2)


def test_a_mirrored_photo_is_read_turned_back(reader: Reader,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A photo from a front camera is mirrored: every index reads mirrored, and read as it
    is the sample photos' cards were nearly all wrong (one of them silently). Such a read's
    cards are read at little confidence, so the photo is read turned back too
    (``reader.MIRROR_TRY``) and that read kept, its places mirrored back into the photo,
    its seat zones (mirrored with it) seating its hands; the dealer is told. The photos
    as taken are not."""
    from dealer_assist.vision import reader as reader_module
    from dealer_assist.vision.reader import MIRRORED_NOTE, mirrored_zones

    as_is = 0
    for path in sorted(SAMPLES.glob("scene_*.jpg")):
        truth = json.loads(path.with_suffix(".json").read_text())
        photo = cv2.imread(str(path))
        width = photo.shape[1]
        taken = reader.read(photo)
        assert not any(n["reason"] == MIRRORED_NOTE
                       for n in taken["needs_confirmation"]), path.name
        cards = [{**c, "corners": [[width - 1 - x, y] for x, y in c["corners"]]}
                 for c in truth["cards"]]
        zones = mirrored_zones(truth["zones"], width) if truth.get("zones") else None
        result = reader.read(cv2.flip(photo, 1), zones)
        assert [n["reason"] for n in result["needs_confirmation"]
                if n["reason"] == MIRRORED_NOTE] == [MIRRORED_NOTE], path.name
        right, silent, _ = _match(result, cards)
        # as many right as the photo as taken (scene_4 is small and dim: 6 read, all unsure)
        assert silent == 0 and right == _match(taken, truth["cards"])[0], (path.name, right)
        if zones:
            seats = {(str(c["seat"]), c["card"]) for c in truth["cards"]}
            assert {(str(c["seat"]), c["card"]) for c in result["cards"]} == seats
        monkeypatch.setattr(reader_module, "MIRROR_TRY", 0.0)  # never read turned back
        as_is += _match(reader.read(cv2.flip(photo, 1), zones), cards)[0]
        monkeypatch.undo()
    assert as_is <= 6, as_is


def test_blur_on_a_near_white_table(reader: Reader) -> None:
    """On a near-white table the cards' outlines hardly stand out, and a soft shadow line
    where one card lies on another, next to a pip, measured as a high step risen slowly:
    this sharp photo was said to be blurred (its edges 4.57 working pixels wide), and the
    same table photographed with the camera moving was not (2.29). Each edge's step is now
    read across it (``sharpness.STEP_REACH``): 2.19 and 2.99."""
    pytest.importorskip("PIL")
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_decks import procedural_deck

    from dealer_assist.vision.reader import BLURRED_NOTE

    scene = compose({"proc:920004": procedural_deck(920004)}, 9200048, seats=7,
                    felt=(0, 0, 200))
    for name in ("as taken", "camera moving"):
        photo = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
        if name != "as taken":
            photo, _ = _taken_in(scene.image, name, 920004)
        result = reader.read(photo)
        said = [n for n in result["needs_confirmation"] if n["reason"] == BLURRED_NOTE]
        assert len(said) == (name == "camera moving"), name
        assert result["cards"], name


def test_cards_on_a_light_grey_felt(reader: Reader) -> None:
    """A light felt lit unevenly is, in its bright half, as white as the cards in its dark
    half: card-white is what stands out of the felt around it (``geometry.FELT_SHARE``).
    These four procedural tables on a grey felt read 0 of 96 right before; 90 now."""
    pytest.importorskip("PIL")  # the procedural decks are drawn with Pillow
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_decks import procedural_deck
    from vision_threshold import unflagged_wrong

    right = 0
    for deck in (920000, 920002, 920007, 920008):
        decks = {f"proc:{deck}": procedural_deck(deck)}
        grey = compose(decks, deck * 10 + 8, seats=7, felt=(0, 0, 160))
        assert grey.cards == compose(decks, deck * 10 + 8, seats=7).cards
        wrong, _, r = unflagged_wrong(
            reader.read(cv2.imdecode(np.frombuffer(grey.jpeg, np.uint8), cv2.IMREAD_COLOR)),
            grey.cards)
        assert wrong == [], (deck, wrong)
        right += r
    assert right >= 84, right


@pytest.mark.usefixtures("can_render")
def test_cards_on_a_near_white_table(reader: Reader) -> None:
    """On a near-white table (a desk, a light cloth) the table above a card passed for the
    card's paper, and its index was read through windows moved up into the table
    (``geometry.TOP_SAME``): this table of the penguins design read 13 of its 24 cards
    sure, 24 now (23 sure), none wrong unflagged."""
    from dealer_assist.vision.faces import load_deck
    from dealer_assist.vision.reader import in_doubt

    scene = compose({"penguins": load_deck("penguins")}, 930003, seats=7, felt=(0, 0, 200))
    result = reader.read(cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR))
    truth = [{"card": str(t.card), "corners": t.corners} for t in scene.cards]
    right, silent, total = _match(result, truth)
    flagged_cards, flagged_hands = in_doubt(result)
    unflagged = [c for c in result["cards"]
                 if c["hand"] not in flagged_hands and (c["hand"], c["card"]) not in flagged_cards]
    assert (total, silent) == (24, 0) and right >= 23, right
    assert len(unflagged) >= 21, len(unflagged)


@pytest.mark.usefixtures("can_render")
def test_cream_cards_on_a_near_white_table(reader: Reader) -> None:
    """A cream card stock on a near-white table is more colourful than the table, and its
    whiteness (colour counted against it) came out no higher: of this ancient-egyptians
    table not one card was read right, and most hands were not found. On a table of little
    colour card-white is now measured by the brightest channel where the cards stand out
    more by it (``geometry.GREY_FELT``): 21 of 24 read right, 7 of its 8 hands whole, none
    wrong unflagged."""
    from dealer_assist.vision.faces import load_deck

    scene = compose({"ancient-egyptians": load_deck("ancient-egyptians")}, 930010, seats=7,
                    felt=(0, 0, 200))
    result = reader.read(cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR))
    truth = [{"card": str(t.card), "corners": t.corners} for t in scene.cards]
    right, silent, total = _match(result, truth)
    assert (total, silent) == (24, 0) and right >= 20, right
    hands = [{str(t.card) for t in scene.cards if t.hand == k} for k in range(8)]
    read = [set(h["cards"]) for h in result["hands"]]
    assert sum(h in read for h in hands) >= 6


def test_a_near_white_table_is_read_by_both_whitenesses(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a table of little colour card-white can be told by whiteness (colour counted
    against it) or by brightness, and which one finds the cards can only be told by reading
    them. On this near-white table whiteness stood out more, and the hand of the king of
    hearts, the king of clubs and the four of spades made no region: the dealer was told
    nothing of it. Read both ways, the way reading more cards is kept (``reader.GREY_BOTH``):
    24 of 24 read right, and no card missed without a word near it."""
    pytest.importorskip("PIL")
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_decks import procedural_deck
    from vision_threshold import missed_unsaid

    from dealer_assist.vision import reader as reader_module

    scene = compose({"proc:920021": procedural_deck(920021)}, 920021, seats=7,
                    felt=(0, 0, 200))
    photo = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    truth = [{"card": str(t.card), "corners": t.corners} for t in scene.cards]
    hand = {"KH", "KC", "4S"}
    result = reader.read(photo)
    assert _match(result, truth) == (24, 0, 24)
    assert missed_unsaid(result, scene.cards) == 0
    assert hand in [set(h["cards"]) for h in result["hands"]]
    monkeypatch.setattr(reader_module, "GREY_BOTH", False)
    result = reader.read(photo)
    assert _match(result, truth)[0] == 21
    assert missed_unsaid(result, scene.cards) == 3


@pytest.mark.usefixtures("can_render")
def test_a_hand_in_two_unread_pieces_is_read_as_one(reader: Reader,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """On this near-white table (standard design) a king of hearts lies over a nine and a
    jack of hearts. Little of their card-white stands out of the table: the king's frame
    and the lower cards' indices wore away, and the hand made two regions, its lower part
    and the king's upper frame, neither of which read a card. The dealer was told "cards
    here could not be read". Two such regions lying together are now read as one
    (``reader.JOIN_UNREAD``): the hand reads whole, and the table 24 of 24, 21 before."""
    from dealer_assist.vision import reader as reader_module
    from dealer_assist.vision.faces import load_deck

    scene = compose({"standard": load_deck("standard")}, 930014, seats=7, felt=(0, 0, 200))
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    truth = [{"card": str(t.card), "corners": t.corners} for t in scene.cards]
    hand = {"JH", "9H", "KH"}
    # card-white by the whiteness the cards stand out by more, as when this was found: its
    # card-white by brightness as well (``GREY_BOTH``) finds the hand whole without a join
    monkeypatch.setattr(reader_module, "GREY_BOTH", False)
    assert hand in [{str(t.card) for t in scene.cards if t.hand == k} for k in range(8)]
    result = reader.read(image)
    assert _match(result, truth) == (24, 0, 24)
    assert hand in [set(h["cards"]) for h in result["hands"]]
    # the pieces together also make a card's outline, so a join read as a card
    # (``JOIN_CARD``) brings the hand back as well; with that off, JOIN_UNREAD does
    monkeypatch.setattr(reader_module, "JOIN_CARD", 0)
    assert _match(reader.read(image), truth) == (24, 0, 24)
    monkeypatch.setattr(reader_module, "JOIN_UNREAD", 0)
    result = reader.read(image)
    assert _match(result, truth) == (21, 0, 24)
    assert hand not in [set(h["cards"]) for h in result["hands"]]


@pytest.mark.usefixtures("can_render")
def test_court_card_hands_on_a_beige_table(reader: Reader) -> None:
    """On a beige table a court card's art leaves its card-white crumbled, and two hands of
    this gm-paris table made regions too ragged to be a card's: they went to the dealer
    unread. Read all the same, each reads as a hand of three (``reader.READ_REJECTED``):
    22 of the table's 24 cards read right, 16 before, none wrong unflagged."""
    from dealer_assist.vision.faces import load_deck

    scene = compose({"gm-paris": load_deck("gm-paris")}, 930001, seats=7, felt=(20, 50, 190))
    result = reader.read(cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR))
    truth = [{"card": str(t.card), "corners": t.corners} for t in scene.cards]
    right, silent, total = _match(result, truth)
    assert (total, silent) == (24, 0) and right >= 22, right
    read = [set(h["cards"]) for h in result["hands"]]
    for hand in (3, 6):
        assert {str(t.card) for t in scene.cards if t.hand == hand} in read, hand


@pytest.mark.usefixtures("can_render")
def test_a_row_of_hands_with_court_cards_seen_tilted(reader: Reader) -> None:
    """Seen from a tilted camera the arc of seats closes up, and here four hands touch in
    a row; three hold a court card whose art leaves a hole in their card-white, so no
    erosion parts the row into card-like regions, and all 12 cards went to the dealer as
    one region that could not be read (11 of the table's 24 right). That region is now cut
    as any row of touching hands is (``reader.ROWS_REJECTED``): three of its hands read
    (21 right), the queen of clubs' hand is sent unread on its own. (A held-out design:
    this photo is where it was found.)"""
    from dealer_assist.vision.faces import load_deck
    from dealer_assist.vision.synth import moved_truth

    scene = compose({"tigullio-international": load_deck("tigullio-international")}, 502002,
                    seats=7)
    photo, moved = _taken_in(scene.image, "camera tilted", 202)
    result = reader.read(photo)
    truth = moved_truth(scene.cards, moved)
    right, silent, total = _match(result, [{"card": str(t.card), "corners": t.corners}
                                           for t in truth])
    assert (total, silent) == (24, 0) and right >= 20, right
    read = [set(h["cards"]) for h in result["hands"]]
    for hand in (3, 5, 6):
        assert {str(t.card) for t in truth if t.hand == hand} in read, hand
    unread = [n for n in result["needs_confirmation"] if "region" in n]
    assert len(unread) == 1


def test_near_hands_seen_tilted_are_not_taken_for_two(reader: Reader) -> None:
    """Seen from a tilted camera the hands near it are larger than the far ones, and two
    single hands here were flagged as possibly hiding another hand: their size is now
    set against the size a hand has at their place (``reader.LOCAL_SIZE``)."""
    pytest.importorskip("PIL")
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_decks import procedural_deck
    from vision_threshold import unflagged_wrong

    from dealer_assist.vision.synth import moved_truth

    scene = compose({"proc:920011": procedural_deck(920011)}, 9200118, seats=7)
    photo, moved = _taken_in(scene.image, "camera tilted", 920011)
    result = reader.read(photo)
    wrong, _, right = unflagged_wrong(result, moved_truth(scene.cards, moved))
    assert wrong == [] and right >= 20, (wrong, right)
    assert not [n for n in result["needs_confirmation"] if "larger than a hand" in n["reason"]]


@pytest.mark.parametrize(("deck", "felt", "least"), [
    (920002, None, 24), (920008, None, 23), (920010, None, 24), (920012, None, 24),
    (920001, (0, 0, 160), 23)])
def test_cards_in_a_hard_shadow(reader: Reader, deck: int, felt: tuple[int, int, int] | None,
                                least: int) -> None:
    """A hard shadow across the table (``synth.in_condition(..., "hard shadow")``: beyond
    its edge the light falls to 0.4): the cards in it are less white than the lit felt, and
    whole hands there made no region, nothing flagged. These tables read 8-15 of their 24
    cards right before (``geometry.SHADE_DEEP``), with 9-15 errors nothing flagged each;
    now every card is read right or flagged, and at least ``least`` read right."""
    pytest.importorskip("PIL")
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_decks import procedural_deck
    from vision_threshold import unflagged_wrong

    from dealer_assist.vision.reader import in_doubt
    from dealer_assist.vision.synth import moved_truth

    scene = compose({f"proc:{deck}": procedural_deck(deck)}, deck * 10 + 8, seats=7, felt=felt)
    photo, moved = _taken_in(scene.image, "hard shadow", deck)
    result = reader.read(photo)
    wrong, cards, right = unflagged_wrong(result, moved_truth(scene.cards, moved))
    assert wrong == [] and right >= least, (deck, wrong, right)
    _, hands = in_doubt(result)
    unread = any("region" in c for c in result["needs_confirmation"])
    missed = cards - len(result["cards"])
    assert missed <= 0 or hands or unread, (deck, missed)  # a missed card is never silent


@pytest.mark.usefixtures("can_render")
def test_a_hand_on_a_shadows_edge_is_found(reader: Reader) -> None:
    """A hand of court cards lying just inside a hard shadow's edge: the felt's light around
    it was measured as the lit side's, its whiteness raised too little, and only specks of
    its card-white passed; the hand was missed and nothing said so. Its card-white now
    grows from those specks (``geometry.SHADOW_GROW``) and the hand is read."""
    from dealer_assist.vision.faces import load_deck
    from dealer_assist.vision.synth import moved_truth

    scene = compose({"tigullio-international": load_deck("tigullio-international")}, 782001,
                    seats=7)
    photo, moved = _taken_in(scene.image, "hard shadow", 782001)
    result = reader.read(photo)
    truth = moved_truth(scene.cards, moved)
    edge = {t.card for t in truth if t.hand == 3}
    assert edge == {"JS", "8D", "QC"}
    assert any(set(h["cards"]) == edge for h in result["hands"]), result["hands"]
    assert len(result["cards"]) == 24


@pytest.mark.usefixtures("can_render")
def test_a_hand_across_a_shadows_edge_is_read_whole(reader: Reader,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """On a light grey felt in a hard shadow (jolly-royal, tuning photo 930002) a five of
    diamonds, a jack of clubs and a queen of hearts lie across the shadow's edge. The edge
    parted the hand: the shaded part read the five, the lit part the queen, and the jack,
    whose index lies where they part, was lost; the dealer was told of two hands of one
    card. Two such pieces, lying together, are now read as one region (``reader.JOIN_SHORT``),
    and the hand comes back whole."""
    from dealer_assist.vision import reader as reader_module
    from dealer_assist.vision.faces import load_deck
    from dealer_assist.vision.synth import moved_truth

    scene = compose({"jolly-royal": load_deck("jolly-royal")}, 930002, seats=7,
                    felt=(0, 0, 160))
    photo, moved = _taken_in(scene.image, "hard shadow", 930002)
    truth = [{"card": str(t.card), "corners": t.corners}
             for t in moved_truth(scene.cards, moved)]
    hand = {"5D", "JC", "QH"}
    assert hand in [{str(t.card) for t in scene.cards if t.hand == k} for k in range(8)]
    result = reader.read(photo)
    assert _match(result, truth) == (24, 0, 24)
    assert hand in [set(h["cards"]) for h in result["hands"]]
    monkeypatch.setattr(reader_module, "JOIN_SHORT", False)
    result = reader.read(photo)
    assert _match(result, truth) == (23, 0, 24)
    assert [h["cards"] for h in result["hands"] if set(h["cards"]) <= hand] in (
        [["5D"], ["QH"]], [["QH"], ["5D"]])


@pytest.mark.parametrize("felt", [None, (0, 0, 160), (0, 0, 200)],
                         ids=["coloured", "light grey", "near-white"])
def test_a_bare_felt_shows_no_cards(reader: Reader, felt: tuple[int, int, int] | None,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A photo of the bare felt (the table before the deal) shows no cards and sends the
    dealer nowhere. Its brightest pixels are the felt's own colour, not cards in a colour
    cast, so it is not balanced into grey card-white (that made 13 "cards here could not
    be read" regions a photo); on a grey or near-white felt its brighter patches pass for
    card-white, but show no mark (``geometry.plain``): 2 to 17 such regions a photo."""
    pytest.importorskip("PIL")
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_decks import procedural_deck

    photos = []
    for deck in (920000, 920001, 920002):
        bare = compose({f"proc:{deck}": procedural_deck(deck)}, deck * 10 + 8, seats=7,
                       empty=True, felt=felt)
        photos.append(cv2.imdecode(np.frombuffer(bare.jpeg, np.uint8), cv2.IMREAD_COLOR))
    for photo in photos:
        out = reader.read(photo)
        assert out["cards"] == [] and out["needs_confirmation"] == []
    if felt is not None:  # what the reader sent without geometry.plain
        monkeypatch.setattr(geometry, "PLAIN_SPREAD", 0.0)
        assert sum(len(reader.read(p)["needs_confirmation"]) for p in photos) >= 6


def test_a_close_up_of_one_hand(reader: Reader) -> None:
    """A phone held over one hand (``synth.close_up`` of a 12 MP table: cards 800 pixels
    high, the hand filling the frame): its hand spread tight is about square, and a sliver
    of a neighbour's card cut by the photo's edge once measured the card height, so the hand
    was cut up and read 2 of its 3 cards (``geometry.card_height``)."""
    pytest.importorskip("PIL")
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_decks import procedural_deck
    from vision_threshold import shown_read

    from dealer_assist.vision.synth import close_up

    for deck, hand in ((920000, 3), (920004, 0)):
        scene = compose({f"proc:{deck}": procedural_deck(deck)}, deck * 10 + 8, seats=7,
                        size=(4032, 3024))
        photo, truth, whole = close_up(scene, hand, 800, half=0.8)
        ok, jpeg = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 90])
        assert ok
        result = reader.read(cv2.imdecode(jpeg, cv2.IMREAD_COLOR))
        assert shown_read(result, truth, whole) == (3, 3, 0), deck


def _read_up_close(reader: Reader, design: str, seed: int, card_px: int,
                   hands: int | None = None) -> tuple[int, int, int]:
    """``vision_threshold.shown_read`` of ``synth.up_close``'s photo of ``design``, drawn
    from faces UP_CLOSE_FACE_H high."""
    sys.path.insert(0, str(SAMPLES.parent / "scripts"))
    from vision_threshold import shown_read

    from dealer_assist.vision.faces import load_deck
    from dealer_assist.vision.synth import up_close

    scene, whole = up_close({design: load_deck(design, UP_CLOSE_FACE_H)}, seed, card_px,
                            hands=hands)
    result = reader.read(cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR))
    return shown_read(result, scene.cards, whole)


@pytest.mark.parametrize("design", ["dondorf", "nicu-white"])
def test_hands_photographed_up_close(reader: Reader, design: str) -> None:
    """A phone held over one to three hands of a held-out design, drawn as sharp as a
    phone takes them (``synth.up_close``: cards 1,000 pixels high in a 12 MP photo): every
    card shown whole is read right, and nothing is silently wrong."""
    for seed in range(3):
        shown, right, silent = _read_up_close(reader, design, seed, 1000)
        assert shown >= 3 and (right, silent) == (shown, 0), (design, seed, shown, right)


@pytest.mark.parametrize(("design", "seed"), [("penguins", 1), ("dondorf", 0), ("nicu-white", 1)])
def test_one_hand_filling_the_frame(reader: Reader, design: str, seed: int) -> None:
    """One hand filling a 12 MP photo (cards 2,000 pixels high, two thirds of the frame):
    wider than the window the felt's whiteness is measured over, the felt there was the
    cards' own white, and their card-white was worn away (``geometry.BIG_HAND``): these
    read 0 of their 3 cards before."""
    assert _read_up_close(reader, design, seed, 2000, hands=1) == (3, 3, 0)
