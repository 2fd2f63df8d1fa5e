"""A hand is read in frames that lie along its cards' edges, even when the rectangle that
fits its region tightest is turned from them (a hand spread tight is nearly square)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from dealer_assist.domain.cards import parse_card
from dealer_assist.vision import geometry
from dealer_assist.vision import reader as reader_module
from dealer_assist.vision.faces import TRAIN_DECKS, load_deck
from dealer_assist.vision.reader import Reader
from dealer_assist.vision.trainset import hand_scene


def turned(blob: geometry.Blob, degrees: float) -> geometry.Blob:
    """``blob`` with the rectangle that bounds its hull turned ``degrees`` from its own."""
    edge = blob.corners[1] - blob.corners[0]
    a = math.atan2(float(edge[1]), float(edge[0])) + math.radians(degrees)
    rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    local = blob.hull @ rot.T
    (x0, y0), (x1, y1) = local.min(axis=0), local.max(axis=0)
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) @ rot
    order = np.argsort(np.arctan2(*(box - box.mean(axis=0)).T[::-1]))
    return geometry.Blob(np.asarray(box[order], np.float32), blob.area, blob.centre, blob.hull)


def edge_angle(corners: np.ndarray) -> float:
    """The direction of a rectangle's edges, in degrees modulo 90."""
    edge = corners[1] - corners[0]
    return math.degrees(math.atan2(float(edge[1]), float(edge[0]))) % 90.0


def test_a_rectangle_turned_from_the_cards_is_set_along_them() -> None:
    """Three white cards on green felt, 25 degrees from the photo's axes: a rectangle
    turned 8 degrees from them is replaced by a box along their edges that holds the whole
    region; one already along them is left alone (None)."""
    img = np.full((400, 400, 3), (40, 110, 30), np.uint8)
    a = math.radians(25)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    for k in range(3):
        tl = np.array([110.0, 120.0]) + k * 28 * u
        card = np.array([tl, tl + 126 * u, tl + 126 * u + 176 * v, tl + 176 * v])
        cv2.fillConvexPoly(img, np.round(card).astype(np.int32), (235, 240, 240))
        cv2.polylines(img, [np.round(card).astype(np.int32)], True, (90, 90, 90), 1)
    blob = geometry.find_blobs(img)[0]
    assert abs(edge_angle(blob.corners) - 25) < 1.5
    assert geometry.aligned_blob(geometry.Pyramid(img), blob) is None
    off = turned(blob, 8)
    assert abs(edge_angle(off.corners) - 33) < 1.5
    fixed = geometry.aligned_blob(geometry.Pyramid(img), off)
    assert fixed is not None
    assert abs(edge_angle(fixed.corners) - 25) < 1.5
    outline = fixed.corners.reshape(-1, 1, 2)
    assert all(cv2.pointPolygonTest(outline, (float(x), float(y)), True) > -2
               for x, y in blob.hull)
    # a region with no edges to go by is left as it is
    assert geometry.aligned_blob(geometry.Pyramid(np.full_like(img, 200)), off) is None


@pytest.mark.usefixtures("can_render")
def test_a_hand_whose_region_rectangle_is_turned_is_read(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each hand's region given a rectangle turned 12 degrees from its cards (the tightest
    rectangle of a nearly square region was turned about 8, on a tuning photo where no index
    of the hand was read): read along its cards' edges, all three cards are read right in
    each of 6 photos, where the turned rectangle alone reads 1 of them right."""
    faces = load_deck(TRAIN_DECKS[0])
    names = ["QH", "7C", "AD"]
    find = geometry.find_blobs
    # the quadrilateral that fits a region's outline sets some of them right too; on that
    # tuning photo no quadrilateral fitted
    monkeypatch.setattr(reader_module, "quad_blob", lambda blob: None)
    monkeypatch.setattr(reader_module, "find_blobs",
                        lambda image, rejected, empty, white, other_cuts, white_by, reduced: [
                            turned(b, 12) for b in find(image, rejected, empty, white,
                                                        white_by=white_by, reduced=reduced)])
    right = {"along the cards": 0, "turned": 0}
    for seed in range(6):
        img, _ = hand_scene(faces, np.random.default_rng(seed), [parse_card(c) for c in names])
        right["along the cards"] += [c["card"] for c in reader.read(img)["cards"]] == names
        with monkeypatch.context() as m:
            m.setattr(reader_module, "aligned_blob", lambda pyr, blob: None)
            right["turned"] += [c["card"] for c in reader.read(img)["cards"]] == names
    assert right["along the cards"] == 6 and right["turned"] <= 3, right
