"""Finding card regions in a photo and cutting rectified strips along their edges.

A *blob* is one connected region of card-white on the felt: a single card or a hand spread
so that the cards overlap. Its minimum-area rectangle gives four *frames*, one per choice of
which rectangle corner is the top-left: in the right frame the index corners of the cards
lie along the top edge, upright, one per card, from which cards are then cut.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace

import cv2
import numpy as np

from .hand_groups import CARD_W
from .net import FRAME_CARD_H, LOOK_H, LOOK_W, LOOK_X, PATCH_H, PATCH_W, normalise_strip
from .white_balance import CLIPPED

#: Long side, in pixels, of the reduced copy the card mask is computed on.
WORK_SIDE = 1000
#: Blobs smaller than this share of the photo's area are ignored (dust, chips).
MIN_BLOB_SHARE = 0.0008
#: A spread hand of three is at most about 1.5 card heights long (measured on generated
#: tables: 0.93-1.46; two touching hands 2.45 and more): a region longer than this many
#: card heights is hands in a row, cut apart at their narrowest waists.
ROW_OF_HANDS = 1.75
#: Hands that touch are told apart by their cores: card-white farther from the edge than
#: this share of the deepest point (the narrow joins between hands are shallower).
CORE_DEPTH = 0.6


@dataclass
class Blob:
    corners: np.ndarray  # (4, 2) float32, full-resolution pixels, clockwise
    area: float  # full-resolution pixels of card-white
    centre: tuple[float, float]
    hull: np.ndarray  # (N, 2) float32, its convex hull, full resolution


#: A row of hands cut apart another way (``other_cuts``), or a region the print cut took
#: something from read whole (``PRINT_UNCUT``): the indices, in the regions found, of the
#: parts it was cut into, and the parts the other way cuts it into.
OtherCut = tuple[list[int], list[Blob]]


@dataclass
class Frame:
    """A blob seen with rectangle corner ``k`` as its top-left, scaled so that the blob's
    vertical extent is ``FRAME_CARD_H`` pixels."""

    blob: Blob
    k: int
    width: float  # frame width in frame pixels
    to_frame: np.ndarray  # 2x3 affine, full-resolution pixels -> frame pixels
    to_image: np.ndarray  # 2x3 affine, frame -> full resolution

    def image_points(self, pts: np.ndarray) -> np.ndarray:
        return np.asarray(cv2.transform(np.asarray(pts, np.float32)[None], self.to_image)[0])

    def scaled(self, s: float) -> Frame:
        """This frame magnified ``s`` times (the card ``s * FRAME_CARD_H`` pixels high)."""
        to_image = self.to_image.copy()
        to_image[:, :2] /= s
        return Frame(self.blob, self.k, self.width * s, self.to_frame * s, to_image)


#: Card-white's specks (sensor noise on a light felt) are opened away with a 3x3 cross, not
#: a 3x3 square: a lower card of a hand shows its white in strips two or three reduced
#: pixels wide, at the hand's slant, and the square wore them away where the white stood
#: little above the felt, leaving a hand's outline broken (on a light grey felt 58 of the
#: 1,440 tuning cards lay in no region read; 16 now). 2026-12-03, procedural tuning photos
#: (seeds 920000-920029, two each, 1,440 cards) square -> cross: light grey felt 1,313 ->
#: 1,366 read right (check decks, 920030-920059: 1,320 -> 1,348); plain 1,402 -> 1,409
#: (check 1,387 -> 1,385, the losses on one hard deck, 920041); with the empty layout 1,399
#: -> 1,403; floor and rail 1,391 -> 1,402, white tablecloth 1,356 -> 1,379, warm dim light
#: 1,388 -> 1,399, camera tilted 1,347 -> 1,366, 12 MP from farther 1,398 -> 1,413; spread
#: wide 1,289 -> 1,307 (hands whole 356 -> 366 of 480), laid apart 1,353 -> 1,364 (but sure
#: 684 -> 649, hands whole 375 -> 373: card-white now bridges some gaps between hands laid
#: close). Worse: a printed layout read without its empty layout, 1,223 -> 1,207 (the
#: print's strokes survive as well). 0 silent everywhere; threshold decks' surest wrong read
#: nothing else flags 0.741 -> 0.792 (threshold 0.95).
SPECKLE = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))


@dataclass(frozen=True)
class WhiteBy:
    """How card-white is looked for where the photo leaves it open (``card_mask``).
    ``bright``: on a table of little colour, whether whiteness is brightness (``GREY_FELT``;
    None: the one the cards stand out by more). ``balance``: True, the photo is balanced on
    its whitest pixels even where they are the felt's own colour (``cast_unsure``); False,
    never; None, as ``_balanced`` decides."""

    bright: bool | None = None
    balance: bool | None = None


def card_mask(work: np.ndarray, printed: np.ndarray | None = None,
              min_area: float | None = None,
              uncut: list[np.ndarray] | None = None,
              white_by: WhiteBy = WhiteBy()) -> np.ndarray:
    """Card-white pixels (uint8 0/255) of a reduced BGR photo: bright and unsaturated,
    relative to the felt, whatever its colour and the light. ``printed``: pixels where
    the table's empty layout shows its print (``Layout.printed``), taken out. ``min_area``:
    the smallest region read (default: MIN_BLOB_SHARE of the copy). ``uncut``: given, the
    outline of each region the print cut took something from (``_print_cut``) is added
    to it. ``white_by``: how whiteness is measured where the photo leaves it open
    (``WhiteBy``)."""
    score, shaded = _shaded_whiteness(work, white_by)
    mask = _white(score, shaded=shaded)
    table = _table(mask)
    if table is None:  # a cloth whiter than the cards, worn away by the felt test whole
        table = _table(_otsu(score), enclosed=True)
    if table is not None:  # nor may the floor's white set how white a card must be
        mask = cv2.bitwise_and(_white(score, table, shaded), table)
    if printed is not None:
        mask = cv2.bitwise_and(mask, cv2.bitwise_not(printed))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, SPECKLE)
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    return _print_cut(closed, mask, min_area, uncut) if PRINT_CUT else closed


#: Card-white along the photo's edge for more than BEYOND_EDGE of its shorter side, and
#: larger than BEYOND_AREA of the photo, is beyond the table (a light floor or wall, a
#: tablecloth around the felt), not cards, where it lies outside the felt (the convex hull
#: of the largest region that is not card-white: the felt, with the rail when it has one).
#: Left in, it is one region around the felt holding every hand in its outline, and no card
#: was found (the sample photos inside a beige floor or a white tablecloth: 0 of 72 read);
#: and the floor's white, a third of the photo, raised the threshold of card-white (taken
#: from the photo's whiteness, by Otsu's method) until court cards' card-white crumbled.
#: A hand lying over the felt's edge is cut there, not dropped with the cloth it touches.
BEYOND_EDGE, BEYOND_AREA = 0.5, 0.05
#: A white tablecloth as even as paper and whiter than the cards is worn away whole by the
#: felt test (``FELT_SHARE``: it stands out of nothing around it) but for slivers along the
#: felt's edge, and no cloth was found beyond the table; its white, a third of the photo,
#: set the threshold of card-white (Otsu's level 114 where the cards' white measures
#: 130-170), and a tight hand of court cards crumbled into specks under the smallest region,
#: missed with nothing said (scene_3 inside a white tablecloth: JS, AD, QH). So where the
#: card-white finds nothing beyond the table, what passes Otsu's level alone is looked at
#: too, and taken for what lies beyond the table only where the felt it leaves is enclosed
#: by it: the felt covers BEYOND_FELT of the photo or more and touches the photo's edge
#: along under BEYOND_OPEN of the photo's outline. What Otsu's level alone keeps of a light
#: felt is the felt itself (what is left is the ink of a card: 0.0 of the photo), or one
#: side of its light or of a hard shadow (the rest touches the edge along 0.46-0.77).
#: 2026-12-07, 30 tuning photos each: it is taken on every photo inside a white tablecloth
#: or a floor and rail, on none of 17 other sets (light felts, casts, shadows, printed).
#: Procedural / training designs, right and sure of 720, cards missed unflagged: inside a
#: tablecloth 705, 498 / 700, 643, 3 -> 701, 507 / 716, 675, 0; floor and rail 699, 513 /
#: 715, 669 -> 700, 508 / 716, 675. The sample photos inside a tablecloth 68 (3 missed
#: unflagged) -> 69 of 72, floor and rail 70 -> 69 (reads near even flipped both ways).
#: It costs 0.3 ms a photo, and 8 ms where Otsu's level alone splits a light felt (a
#: near-white table 296 -> 307 ms a photo, read two ways; a grey felt 245 -> 249).
BEYOND_FELT, BEYOND_OPEN = 0.25, 0.25


def _otsu(score: np.ndarray) -> np.ndarray:
    """What passes Otsu's level of the whiteness ``score`` (uint8 0/255)."""
    out: np.ndarray = cv2.threshold(score, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]
    return out


def _along_edge(mask: np.ndarray) -> int:
    """How many of the photo's outermost pixels ``mask`` holds (each corner once).

    >>> _along_edge(np.pad(np.zeros((3, 3), np.uint8), 1, constant_values=1))
    16
    """
    return int(np.count_nonzero(mask[0]) + np.count_nonzero(mask[-1])
               + np.count_nonzero(mask[1:-1, 0]) + np.count_nonzero(mask[1:-1, -1]))


def _table(mask: np.ndarray, enclosed: bool = False) -> np.ndarray | None:
    """The table (uint8 0/255: the felt's convex hull) when card-white lies beyond it
    (``BEYOND_EDGE``); None when nothing does (the photo is all table). ``enclosed``: only
    where the felt is enclosed by it (``BEYOND_FELT``)."""
    h, w = mask.shape
    if _along_edge(mask) <= BEYOND_EDGE * min(h, w):  # no region can touch the edge that long
        return None
    if enclosed and h * w - np.count_nonzero(mask) < BEYOND_FELT * h * w:
        return None  # too little is left for a felt that large
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    edge = np.concatenate([labels[0], labels[-1], labels[1:-1, 0], labels[1:-1, -1]])
    contact = np.bincount(edge, minlength=n)
    if not np.any((contact[1:] > BEYOND_EDGE * min(h, w))
                  & (stats[1:, cv2.CC_STAT_AREA] > BEYOND_AREA * h * w)):
        return None
    m, felt_labels, felt_stats, _ = cv2.connectedComponentsWithStats(
        cv2.bitwise_not(mask), connectivity=4)
    if m < 2:
        return None
    largest = 1 + int(np.argmax(felt_stats[1:, cv2.CC_STAT_AREA]))
    felt = (felt_labels == largest).astype(np.uint8)
    if enclosed and (felt_stats[largest, cv2.CC_STAT_AREA] < BEYOND_FELT * h * w
                     or _along_edge(felt) >= BEYOND_OPEN * 2 * (h + w)):
        return None
    outline, _ = cv2.findContours(felt, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    table = np.zeros_like(mask)
    cv2.fillPoly(table, [cv2.convexHull(np.concatenate(outline))], 255)
    return table


#: Card-white that the table's empty layout shows too, in the same colour (each channel
#: within EMPTY_DIFF, once the two photos' light is matched; over EMPTY_GROW reduced pixels
#: of camera shake), is the layout's print, not a card. A card over white print is white
#: like it, and loses those pixels; the mask's closing fills strokes that thin.
#: 2026-12-02, printed tuning / check / threshold decks compared with another take of their
#: empty layout (``synth.another_take``): 1,224 / 1,238 / 1,279 -> 1,400 / 1,374 / 1,406
#: read right, 0 silent; plain felt unchanged (1,401); EMPTY_DIFF 20 / 45: 1,389 / 1,399,
#: EMPTY_GROW 1 / 5: 1,399. About 5 ms a photo.
EMPTY_DIFF, EMPTY_GROW = 30, 3


#: How far the empty layout's photo may differ in shape (width over height) from the photo
#: read to be taken for the same frame at another resolution.
SAME_SHAPE = 0.02


def same_frame(empty: np.ndarray, size: tuple[int, ...]) -> np.ndarray | None:
    """The photo of the empty layout at ``size`` (height, width of the reduced photo), or
    None when it is of another shape (another frame: not to be compared pixel by pixel)."""
    (h, w), (eh, ew) = size[:2], empty.shape[:2]
    if empty.ndim != 3 or abs((w / h) / (ew / eh) - 1) > SAME_SHAPE:
        return None
    if (eh, ew) == (h, w):
        return empty
    return cv2.resize(empty, (w, h), interpolation=cv2.INTER_AREA)


#: Matching the empty layout to a photo taken from elsewhere (a tablet held again): ORB
#: features of each (REGISTER_FEATURES, on copies REGISTER_SIDE pixels long), pairs whose
#: best match is clearly better than the next (REGISTER_RATIO), and a homography that at
#: least REGISTER_INLIERS of them agree on within 3 pixels. 2026-12-02, printed tuning decks
#: with the camera moved for the empty layout's photo (``synth.compose(view=1)``): 1,228
#: right unmatched, 1,397 matched (3,000 features on 1,000 pixels: 1,398 at twice the
#: time; 1,500 on 640: 1,392; 1,000 on 480: 1,379); about 25 ms when the camera moved (the
#: empty layout's own features found once: ``EmptyLayout``).
REGISTER_FEATURES, REGISTER_RATIO, REGISTER_INLIERS = 2000, 0.75, 40
REGISTER_SIDE = 800


@dataclass
class Layout:
    """The table's empty layout seen from where a photo was taken."""

    #: pixels of the reduced photo where the empty layout's print shows, as it does there
    #: (uint8 0/255): no card-white
    printed: np.ndarray
    #: 3x3: pixels of the empty layout's photo -> pixels of the (full) photo
    to_photo: np.ndarray


def _gray(image: np.ndarray, r: float) -> np.ndarray:
    """``image`` reduced ``r`` times, in grey."""
    small = cv2.resize(image, (round(image.shape[1] * r), round(image.shape[0] * r)),
                       interpolation=cv2.INTER_AREA)
    out: np.ndarray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    return out


class EmptyLayout:
    """A photo of the table's empty layout, and what every scan compares with it, worked out
    once per size of reduced photo (a table's scans are all of one or two sizes)."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image
        self._at: dict[tuple[int, ...], _EmptyAt] = {}

    def at(self, work: np.ndarray) -> _EmptyAt:
        key = work.shape
        if key not in self._at:
            if len(self._at) >= 4:
                self._at.pop(next(iter(self._at)))
            self._at[key] = _EmptyAt(self.image, work.shape[:2])
        return self._at[key]


class _EmptyAt:
    """The empty layout for reduced photos of one size: in the same frame (when of the same
    shape) with its card-white, and at their scale with its features to match by."""

    def __init__(self, image: np.ndarray, size: tuple[int, ...]) -> None:
        h, w = size
        eh, ew = image.shape[:2]
        self.same = same_frame(image, size)
        self.white = None if self.same is None else _white(_whiteness(self.same))
        f = max(h, w) / max(eh, ew)
        small_size = (round(ew * f), round(eh * f))
        if self.same is not None and self.white is not None and small_size == (w, h):
            self.small, self.small_white = self.same, self.white  # one and the same copy
        else:
            self.small = cv2.resize(image, small_size, interpolation=cv2.INTER_AREA)
            self.small_white = _white(_whiteness(self.small))
        self.to_small = np.diag([self.small.shape[1] / ew, self.small.shape[0] / eh, 1.0])
        self.r = min(1.0, REGISTER_SIDE / max(h, w))  # features found on copies this small
        orb = cv2.ORB_create(REGISTER_FEATURES)  # type: ignore[attr-defined]
        self.keys, self.descs = orb.detectAndCompute(_gray(self.small, self.r), None)


def registered(empty: _EmptyAt, work: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                             np.ndarray] | None:
    """The photo of the empty layout seen from where ``work`` (a reduced photo) was taken
    (warped by the homography the layout's print gives, black where it shows nothing), its
    card-white warped alike, and that homography from the empty layout's pixels to
    ``work``'s; None when too few of its features match."""
    h, w = work.shape[:2]
    r, small = empty.r, empty.small
    orb = cv2.ORB_create(REGISTER_FEATURES)  # type: ignore[attr-defined]
    k1, d1 = empty.keys, empty.descs
    k2, d2 = orb.detectAndCompute(_gray(work, r), None)
    if d1 is None or d2 is None or len(k1) < REGISTER_INLIERS or len(k2) < REGISTER_INLIERS:
        return None
    pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(d1, d2, k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < REGISTER_RATIO * p[1].distance]
    if len(good) < REGISTER_INLIERS:
        return None
    src = np.array([k1[m.queryIdx].pt for m in good], np.float32)
    dst = np.array([k2[m.trainIdx].pt for m in good], np.float32)
    hom, inliers = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
    if hom is None or int(inliers.sum()) < REGISTER_INLIERS:
        return None
    hom = np.diag([1 / r, 1 / r, 1.0]) @ hom @ np.diag([r, r, 1.0])
    warped: np.ndarray = cv2.warpPerspective(small, hom, (w, h), flags=cv2.INTER_LINEAR,
                                             borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    white: np.ndarray = cv2.warpPerspective(empty.small_white, hom, (w, h),
                                            flags=cv2.INTER_NEAREST,
                                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return warped, white, hom @ empty.to_small


#: The empty layout is taken to be in the photo's frame when at least this share of its
#: card-white (its print) shows in the photo as it does there (on the printed tuning
#: photos: 0.60-1.00 in the same frame, 0.00-0.43 with the camera moved); else it is
#: matched by its print.
ALIGNED_SHARE = 0.5


def layout_in_frame(empty: np.ndarray | EmptyLayout, work: np.ndarray,
                    s: float) -> Layout | None:
    """The empty layout in the frame of ``work`` (the photo reduced ``s`` times): as it is
    when the camera has not moved (the same frame, at any resolution), else matched to it
    by its print (:func:`registered`); None when neither holds."""
    if isinstance(empty, np.ndarray):
        empty = EmptyLayout(empty)
    at = empty.at(work)
    eh, ew = empty.image.shape[:2]
    to_full = np.diag([1 / s, 1 / s, 1.0])
    if at.same is not None and at.white is not None:
        match, printed, kept = _layout_match(work, at.same, at.white)
        if printed == 0 or kept >= ALIGNED_SHARE * printed:
            scale = np.diag([work.shape[1] / ew, work.shape[0] / eh, 1.0])
            return Layout(match, to_full @ scale)
    found = registered(at, work)
    if found is None:
        return None
    return Layout(_layout_match(work, found[0], found[1])[0], to_full @ found[2])


def _layout_match(work: np.ndarray, empty: np.ndarray,
                  white: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Pixels of ``work`` where the empty layout's card-white (``white``) shows (uint8
    0/255), how many pixels of card-white the empty layout has, and how many of them look
    the same in ``work``."""
    printed = cv2.dilate(white, np.ones((EMPTY_GROW, EMPTY_GROW), np.uint8))
    # the light of the two photos matched by each channel's median (the felt's), taken on
    # every 4th pixel of every 4th row
    gain = (np.median(work[::4, ::4].reshape(-1, 3), axis=0) + 1.0) / (
        np.median(empty[::4, ::4].reshape(-1, 3), axis=0) + 1.0)
    matched = cv2.multiply(empty, (*gain.tolist(), 0.0),  # type: ignore[call-overload]
                           dtype=cv2.CV_8U)
    diff = cv2.absdiff(cv2.blur(work, (3, 3)), cv2.blur(matched, (3, 3)))
    b, g, r = cv2.split(diff)
    same = cv2.compare(cv2.max(cv2.max(b, g), r), EMPTY_DIFF,  # type: ignore[call-overload]
                       cv2.CMP_LE)
    out: np.ndarray = cv2.bitwise_and(printed, same)
    return out, int(np.count_nonzero(white)), int(np.count_nonzero(cv2.bitwise_and(white, same)))


#: Card-white is whiter than DARK_FLOOR, or, in a dim or strongly tinted photo (warm light
#: the camera did not balance), than DARK_SHARE of the whitest pixels' whiteness (the
#: 99.5th percentile: the cards'), never below DARK_MIN (the felt's noise). 2026-12-02, the
#: sample photos under warm dim light (``tests/vision/test_photo_conditions.py``): 62 -> 68
#: of 72 read right (70 once balanced, ``CAST_RATIO``); procedural tuning photos unchanged.
DARK_FLOOR, DARK_SHARE, DARK_MIN = 45, 0.6, 25

#: Card-white stands out of the felt around it: whiter than the felt there (the median
#: whiteness over FELT_WINDOW pixels of a copy reduced 8 times: about 170 working pixels,
#: wider than a hand, so cards do not make the felt) by FELT_SHARE of what lies between
#: that and the cards' whiteness. A light felt (grey, tan) lit unevenly is as white in
#: its bright half as cards in its dark half, and the photo's one threshold (Otsu's) took
#: the bright half for a card. 2026-12-02, procedural tuning decks on a grey felt (value 160,
#: seeds 920000-920009, two photos each): 216 -> 442 of 480 read right (441 with the reduced
#: copy cut to a whole factor; green felt: 463,
#: unchanged; 0.1 / 0.15 read 437, a window of 15 or 31: 443 / 440); tuning, check and
#: printed-layout reads unchanged.
FELT_WINDOW, FELT_SHARE = 21, 0.2


#: A hand photographed up close is wider than FELT_WINDOW: the felt's median inside it is
#: the cards' own white, and ``_above_felt`` wore its card-white away into crumbs (cards
#: 2,000 pixels high in a 12 MP photo of one hand read 53 of 71 right). A region of
#: card-white is kept whole when its short side is over BIG_HAND of the window's (8 *
#: FELT_WINDOW working pixels), its convex hull fills BIG_FILL of its rectangle (a hand's
#: outline), it touches the photo's edge along under BIG_EDGE of its outline, the felt
#: test wears more than BIG_WORN of it away, and its edge is a step out of the felt: the
#: median whiteness BIG_RING pixels inside its outline over that outside it by BIG_STEP.
#: A light felt's lit patch fades into the rest (on grey felt such patches measured
#: 4-9; hands up close 122 and more) and stays worn away. 2026-12-03, ``synth.up_close``
#: with one hand, cards 2,000 pixels high (seeds 0-9 of penguins, dondorf and nicu-white):
#: 53 -> 68 of 71 cards shown whole read right; of one to three hands (seeds 0-5 of the
#: training designs) at 2,200 / 1,800 / 1,500 pixels: 16 / 56 / 65 -> 23 / 56 / 65; whole
#: tables (450 procedural photos of every felt, lay and condition): not one mask changed;
#: ``synth.close_up`` check decks 549 -> 557 of 590.
BIG_HAND, BIG_FILL, BIG_EDGE, BIG_WORN = 0.5, 0.85, 0.25, 0.1
BIG_RING, BIG_STEP = 4, 40


def _wider_than_felt(mask: np.ndarray, above: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The regions of card-white ``mask`` that ``above`` (``_above_felt``) would wear away
    for lying wider than the felt's window (``BIG_HAND``), kept whole (uint8 0/255)."""
    out = np.zeros_like(mask)
    h, w = mask.shape
    big = BIG_HAND * 8 * FELT_WINDOW
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    ring = np.ones((2 * BIG_RING + 1, 2 * BIG_RING + 1), np.uint8)
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if min(bw, bh) < big:
            continue
        # the region in its box grown by the ring, and the box itself within it
        x0, y0 = max(0, x - BIG_RING), max(0, y - BIG_RING)
        x1, y1 = min(w, x + bw + BIG_RING), min(h, y + bh + BIG_RING)
        whole = (labels[y0:y1, x0:x1] == i).astype(np.uint8)
        region = np.ascontiguousarray(whole[y - y0:y - y0 + bh, x - x0:x - x0 + bw])
        contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        c = max(contours, key=cv2.contourArea)
        _, (rw, rh), _ = cv2.minAreaRect(c)
        if min(rw, rh) < big or cv2.contourArea(cv2.convexHull(c)) < BIG_FILL * rw * rh:
            continue
        pts = c.reshape(-1, 2) + np.array([x, y])
        edge = np.count_nonzero((pts[:, 0] <= 0) | (pts[:, 1] <= 0) | (pts[:, 0] >= w - 1)
                                | (pts[:, 1] >= h - 1))
        if edge >= BIG_EDGE * len(pts):
            continue
        kept = np.count_nonzero(cv2.bitwise_and(region, above[y:y + bh, x:x + bw]))
        if kept >= (1 - BIG_WORN) * area:
            continue
        # a card's edge is a step out of the felt; a lit patch of felt fades into the rest
        inner = cv2.subtract(whole, cv2.erode(whole, ring))
        outer = cv2.subtract(cv2.dilate(whole, ring), whole)
        near = score[y0:y1, x0:x1]
        step = float(np.median(near[inner > 0])) - float(np.median(near[outer > 0]))
        if step >= BIG_STEP:
            out[y:y + bh, x:x + bw][region > 0] = 255
    return out


def _level(values: np.ndarray, share: float) -> float:
    """The level of 8-bit ``values`` that ``share`` of them lie at or under (a percentile,
    counted rather than sorted).

    >>> _level(np.arange(200, dtype=np.uint8), 0.5)   # 0..99 are half of them
    99.0
    """
    return _levels(values, (share,))[0]


def _levels(values: np.ndarray, shares: tuple[float, ...]) -> list[float]:
    """``_level`` at each of ``shares``, counting ``values`` once.

    >>> _levels(np.arange(200, dtype=np.uint8), (0.5, 0.995))
    [99.0, 198.0]
    """
    counts = np.cumsum(np.bincount(values.ravel(), minlength=256))
    return [float(v) for v in np.searchsorted(counts, np.array(shares) * counts[-1])]


def _whitest(score: np.ndarray) -> float:
    """The whiteness of the photo's whitest pixels (the 99.5th percentile): its cards'."""
    return _level(score[::2, ::2], 0.995)


def _dark_floor(whitest: float) -> int:
    return int(min(DARK_FLOOR, max(DARK_MIN, DARK_SHARE * whitest)))


def _eighth(image: np.ndarray) -> np.ndarray:
    """``image`` reduced 8 times by area, where the felt's level and light are measured."""
    h, w = image.shape[:2]
    sw, sh = max(1, w // 8), max(1, h // 8)
    # cut to a multiple of 8 first: OpenCV's area reduction is fast by whole factors only
    out: np.ndarray = cv2.resize(image[: 8 * sh, : 8 * sw] if h >= 8 and w >= 8 else image,
                                 (sw, sh), interpolation=cv2.INTER_AREA)
    return out


def _above_felt(score: np.ndarray, whitest: float, otsu: float) -> np.ndarray | None:
    """Where the whiteness stands out of the felt around it (``FELT_SHARE``); None where
    that asks no more than Otsu's level ``otsu`` anywhere (a dark felt; never with an
    ``otsu`` under 0)."""
    h, w = score.shape
    felt = cv2.medianBlur(_eighth(score), FELT_WINDOW).astype(np.float32)
    # worked out on the small copy, then brought to full size (a smooth level)
    need = np.clip(felt + FELT_SHARE * np.maximum(whitest - felt, 0), 0, 255)
    if float(need.max()) <= otsu:
        return None
    level = cv2.resize(need.astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    out: np.ndarray = cv2.compare(score, level, cv2.CMP_GT)
    return out


#: A hard shadow across the table (a person or a lamp's arm between the light and the
#: felt) leaves the cards beyond its edge less white than the lit felt: they fell under
#: Otsu's level and the felt test alike, and whole hands in the shadow made no region,
#: nothing flagged. The light falling on the felt is measured as the brightest channel's
#: median over FELT_WINDOW pixels of the copy reduced 8 times (a median keeps the shadow's
#: edge sharp), where that median is the felt's own colour (each share of the channels
#: within SHADE_HUE of the photo's median: not a floor, rail or tablecloth around it). A
#: photo has a shadow when its felt's light falls under SHADE_DEEP of the lit felt's (the
#: 90th percentile) over SHADE_AREA of it or more; its whiteness is then raised wherever
#: the light is under SHADE_EVEN of the lit felt's, to what it would be at SHADE_EVEN.
#: 2026-12-03, procedural tuning photos (seeds 920000-920029): as generated their felt
#: falls to 0.53 of its lit light at the least, and none is raised (not one card-white
#: mask changed on 195 photos of every felt, lay and condition); under a hard shadow 0.23-
#: 0.32 over 25-48% of the photo, the shadow's felt keeping its colour (0.02 at most off
#: the lit felt's shares). Seeds 920000-920014 under a hard shadow (360 cards): 266 read
#: right, 57 missed with nothing flagged -> 347, 0; on a light grey felt 150, 15 -> 316, 0
#: (check seeds 920015-920029: 269, 30 -> 329, 0; 144, 51 -> 294, 0). Raised to 0.5 / 0.6
#: / 0.8 instead: 352 / 353 / 350 and 200 / 263 / 316; restored to the lit felt's light,
#: 336 and 311 (hands across the shadow's edge cut in two). Without SHADE_AREA a hand
#: filling a close-up, its card-white the "felt", found 0.2% of it dim and crumbled.
SHADE_DEEP, SHADE_EVEN, SHADE_HUE, SHADE_AREA = 0.5, 0.7, 0.04, 0.02
#: In a photo with a hard shadow (``SHADE_DEEP``), card-white is also what passes every
#: test at SHADOW_GROW of Otsu's level (over the felt around it, ``FELT_SHARE``, whatever
#: the felt), where it touches card-white found at the full level: a hand lying on the
#: shadow's edge, its felt's light measured as the lit side's, was raised too little and
#: only specks of it passed, a hand missed with nothing flagged (tigullio 782001). 2026-12-04,
#: nine designs, four tables each, seeds 780000 / 730000 (72 photos each): hard shadow
#: 825 / 826 -> 853 / 841 of 864 right, 3 / 0 -> 0 / 0 cards missed unflagged; on a light
#: grey felt in the shadow 743 / 729 -> 747 / 731 (still 3 missed unflagged on 780000: the
#: same hand, its card-white too little above the grey felt raised around it; 730000's 3
#: were two hands' pieces joined, now flagged by ``reader._one_hand``). 0.45-0.7 read
#: alike (0.8: 844, 3 missed). Every photo without a shadow reads as before (612 photos of
#: every condition, seeds 770000; its hard shadow row 826 -> 842). Applied to every photo
#: it read 27 more of those 14,580 cards but changed reads on most photos, and on a light
#: grey felt, where the felt test asks nothing more than Otsu's level, it took the felt
#: for card-white.
SHADOW_GROW = 0.6


def _shadow_gain(bgr: np.ndarray, small: np.ndarray | None = None) -> np.ndarray | None:
    """How much the whiteness of ``bgr`` is raised at each pixel to undo a hard shadow
    (``SHADE_EVEN``), as float32 at full size; None when the felt lies in none
    (``SHADE_DEEP``, ``SHADE_AREA``). ``small``: ``bgr`` reduced 8 times (``_eighth``),
    where the caller has made it already.

    >>> felt = np.full((400, 800, 3), (40, 120, 30), np.uint8)
    >>> _shadow_gain(felt) is None   # lit evenly
    True
    >>> felt[:, 400:] = (16, 48, 12)  # its right half in a shadow, 0.4 of the light
    >>> gain = _shadow_gain(felt)
    >>> round(float(gain[200, 100]), 2), round(float(gain[200, 700]), 2)
    (1.0, 1.75)
    """
    h, w = bgr.shape[:2]
    small = _eighth(bgr) if small is None else small
    if min(small.shape[:2]) < FELT_WINDOW:
        return None
    felt = cv2.medianBlur(small, FELT_WINDOW).astype(np.float32)
    light = felt.max(axis=2)
    shares = felt / (felt.sum(axis=2, keepdims=True) + 1.0)
    own = np.abs(shares - np.median(shares.reshape(-1, 3), axis=0)).max(axis=2) < SHADE_HUE
    if not own.any():
        return None
    lit = float(np.percentile(light[own], 90))
    if np.count_nonzero(own & (light < SHADE_DEEP * lit)) < SHADE_AREA * light.size:
        return None
    gain = np.where(own, SHADE_EVEN * lit / np.maximum(light, 1.0), 1.0)
    gain = cv2.blur(np.maximum(gain, 1.0).astype(np.float32), (3, 3))
    out: np.ndarray = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    return out


#: A photo whose whitest pixels (each channel's 99.5th percentile: the cards') differ by
#: more than CAST_RATIO between channels has a colour cast the camera did not balance (warm
#: tungsten light): the cards are tan, and their whiteness, which counts colour against
#: them, crumbles. Such a photo is balanced on its cards before card-white is looked for.
#: 2026-12-02, procedural tuning photos (seeds 920000-920009, two each) in warm dim light
#: (blue, green, red at 0.45, 0.6, 0.75): 391 -> 463 of 480 read right (as taken: 463);
#: warm light alone 455 -> 462; as generated unchanged (3 of the 60 tuning photos are
#: balanced; tuning / check / threshold decks 1,396 / 1,385 / 1,397 -> 1,397 / 1,385 /
#: 1,397); a ratio of 1.1 read the same. Only when the whitest pixels are not the felt's
#: own colour (their share of each channel within CAST_APART of the median pixel's): on a
#: photo of the bare felt they are its brightest, and balancing them made the felt grey and
#: 13 "cards" regions a photo (20 empty felts: the whitest pixels 0.002-0.015 from the
#: felt's colour; photos with cards, cast or not, 0.108-0.29).
CAST_RATIO, CAST_APART = 1.2, 0.05
#: ... where a channel of the whitest pixels is clipped (``white_balance.CLIPPED``), it is
#: measured on the pixels no channel of which is, when there are CAST_HELD of them (of every
#: fourth pixel each way). 2026-12-07: under blue, green, red x 0.5, 0.8, 1.4 the cards in
#: a photo's darker side stayed orange, balanced by a red held at 255, and four hands of a
#: held-out table went unfound with nothing said. Not where those pixels are the felt's
#: own colour (``CAST_APART``): on a light grey felt under that cast they were, the photo
#: was then taken for a bare felt and not balanced, and procedural tuning tables read 358
#: cards missed with nothing said of 720 (242 before ``CAST_HELD``, 232 now).
CAST_HELD = 1000


def _apart(a: np.ndarray, b: np.ndarray) -> float:
    """How far apart two colours' shares of their channels are (the most in a channel)."""
    return float(np.abs(a / a.sum() - b / b.sum()).max())


@dataclass(frozen=True)
class _Cast:
    """A colour cast in a photo's whitest pixels (``_cast_top``)."""

    #: their level in each channel, what the photo is balanced by
    top: np.ndarray
    #: whether they are the felt's own colour (``CAST_APART``): not balanced unless asked
    felts: bool
    #: whether they may be: the felt's own colour, or so in the channels the cast did not
    #: clip (``cast_unsure``)
    unsure: bool


def _cast_top(work: np.ndarray, balance: bool | None = None) -> _Cast | None:
    """The cast in the whitest pixels of a photo's working copy (the cards' white, or the
    felt's brightest), when their channels differ by more than ``CAST_RATIO`` (else None).
    ``balance`` True: the photo is to be balanced even where they are the felt's own
    colour, so the unclipped pixels' level is taken wherever it can be (``CAST_HELD``)."""
    sample = work[::4, ::4].reshape(-1, 3)
    top, middle = np.array([_levels(sample[:, c], (0.995, 0.5)) for c in range(3)]).T + 1.0
    if top.max() / top.min() <= CAST_RATIO:
        return None
    kept = top <= CLIPPED
    # the channels the cast did not clip: where their shares are the felt's, so are the
    # cards' (a grey felt under a warm lamp: the clipped red alone sets them apart)
    unsure = kept.sum() >= 2 and _apart(top[kept], middle[kept]) <= CAST_APART
    held = sample[sample.max(axis=1) < CLIPPED] if top.max() > CLIPPED else sample[:0]
    if len(held) >= CAST_HELD:
        # the cast clips the brightest channel of the cards' white, which then says too
        # little of it: the cards less brightly lit, not clipped, say it all; but not
        # where those are the felt's own colour (a grey felt under a warm cast)
        unclipped = np.array([_level(held[:, c], 0.995) for c in range(3)]) + 1.0
        if balance or _apart(unclipped, middle) > CAST_APART:
            top = unclipped
    felts = _apart(top, middle) <= CAST_APART
    return _Cast(top, felts, felts or bool(unsure))


def _balanced(work: np.ndarray, balance: bool | None = None) -> np.ndarray:
    """``work`` with its channels scaled so that its whitest pixels are grey, when they are
    not (``CAST_RATIO``); else ``work`` itself. Not where they are the felt's own colour
    (``CAST_APART``) unless ``balance`` is True, nor ever where it is False."""
    cast = None if balance is False else _cast_top(work, balance)
    if cast is None or (cast.felts and not balance):
        return work  # no cast, or no cards whiter than the felt: its brightest are its own
    out: np.ndarray = cv2.multiply(work, (*(cast.top.max() / cast.top).tolist(), 0.0),  # type: ignore[call-overload]
                                   dtype=cv2.CV_8U)
    return out


def cast_unsure(work: np.ndarray) -> bool:
    """Whether a photo's working copy (``reduce``) has a colour cast in its whitest pixels
    that are the felt's own colour (``CAST_APART``), or are so in the channels the cast did
    not clip: the brightest of a bare felt, or cards on a grey or white table under a cast
    the camera did not balance, the felt and the cards both the cast's colour. Which it is,
    only reading it tells (``reader.BALANCE_BOTH``).

    >>> grey = np.full((200, 300, 3), (65, 87, 169), np.uint8)  # a grey felt, a warm lamp
    >>> cards = grey.copy()
    >>> cards[50:150, 100:170] = (109, 148, 255)                 # white cards, red clipped
    >>> cast_unsure(cards), cast_unsure(grey)
    (True, True)
    >>> cards[50:150, 100:170] = (150, 200, 255)  # apart by their red only, which is clipped
    >>> cast_unsure(cards)
    True
    >>> green = np.full((200, 300, 3), (40, 120, 30), np.uint8)
    >>> cast_unsure(green)                                       # a bare green felt
    True
    >>> green[50:150, 100:170] = 235
    >>> cast_unsure(green)                                       # with cards on it
    False
    >>> _balanced(cards, True)[[0, 100], [0, 130]].tolist()     # balanced, both are grey
    [[167, 168, 169], [255, 255, 255]]
    """
    cast = _cast_top(work)
    return cast is not None and cast.unsure


#: Whiteness counts colour against a pixel so that a bright felt of any colour is not taken
#: for card paper. On a grey or near-white table that works against the cards: a cream card
#: stock is more colourful than the grey around it, and its whiteness (the darkest channel
#: less a share of the colourfulness) came out no higher than the table's (a cream card
#: 208, 232, 232 on a table 203, 208, 199: both 194), so hands went unfound, some with
#: nothing said. On a table of little colour (its median colour's channels within
#: GREY_FELT of each other) the brightest channel is taken instead, less 1.6 times only the
#: colourfulness beyond GREY_FREE levels (chips and print, coloured things brighter than the
#: table, stay out), where the cards stand out of the table more by it (``_standing_out``).
#: Measured in "Cream cards on a grey table" (card_models/README.md). The reader reads such a
#: photo both ways instead and keeps the better read (``reader.GREY_BOTH``, ``card_mask``'s
#: ``bright``).
GREY_FELT, GREY_FREE = 0.25, 48


def _grey_table(small: np.ndarray) -> bool:
    """Whether the felt (the median colour of ``small``, a BGR photo reduced 8 times) has
    little colour (``GREY_FELT``).

    >>> _grey_table(np.full((40, 60, 3), (203, 208, 199), np.uint8))
    True
    >>> _grey_table(np.full((40, 60, 3), (40, 120, 30), np.uint8))   # green felt
    False
    """
    felt = np.median(small.reshape(-1, 3), axis=0)
    return float(felt.max() - felt.min()) < GREY_FELT * float(felt.max())


def grey_table(work: np.ndarray, balance: bool | None = None) -> bool:
    """Whether the table in a photo's working copy (``reduce``), balanced as ``WhiteBy``'s
    ``balance`` says, has little colour (``GREY_FELT``), so that card-white can be looked
    for by brightness too (``WhiteBy``'s ``bright``)."""
    return _grey_table(_eighth(_balanced(work, balance)))


def _standing_out(score: np.ndarray) -> float:
    """How far the cards (the whitest pixels) stand out of the felt (the median) by
    ``score``.

    A cream card on a grey table, and a white one: the photo's whiteness (``_whiteness``)
    at the card and on the table is the brightest channel for the first, as whiteness
    alone scores both 194; for the second whiteness itself.

    >>> table = np.full((320, 480, 3), (203, 208, 199), np.uint8)
    >>> table[100:200, 100:170] = (208, 232, 232)
    >>> [int(_whiteness(table)[y, x]) for y, x in ((150, 130), (10, 10))]
    [232, 208]
    >>> table[100:200, 100:170] = (240, 240, 240)
    >>> [int(_whiteness(table)[y, x]) for y, x in ((150, 130), (10, 10))]
    [240, 194]
    """
    return _whitest(score) - float(np.median(_eighth(score)))


def _whiteness(work: np.ndarray) -> np.ndarray:
    """How white each pixel of a reduced BGR photo is (uint8), balanced for a colour cast
    (``CAST_RATIO``), by its brightness on a table of little colour where the cards stand
    out more by it (``GREY_FELT``), and raised in a hard shadow (``SHADE_DEEP``)."""
    return _shaded_whiteness(work)[0]


def _shaded_whiteness(work: np.ndarray, white_by: WhiteBy = WhiteBy()
                      ) -> tuple[np.ndarray, bool]:
    """``_whiteness``, and whether a hard shadow lies across the felt; ``white_by`` as
    ``card_mask`` takes it."""
    balanced = _balanced(work, white_by.balance)
    bright = white_by.bright
    b, g, r = cv2.split(balanced)
    lo = cv2.min(cv2.min(b, g), r)
    hi = cv2.max(cv2.max(b, g), r)
    # whiteness: the darkest channel, less a share of the colourfulness
    # (OpenCV's stubs do not know that a scalar may stand for an array: call-overload)
    score = cv2.subtract(lo, cv2.multiply(cv2.subtract(hi, lo), 0.6,  # type: ignore[call-overload]
                                          dtype=cv2.CV_8U))
    small = _eighth(balanced)
    if _grey_table(small):
        excess = cv2.subtract(cv2.subtract(hi, lo), GREY_FREE)  # type: ignore[call-overload]
        brightness = cv2.subtract(hi, cv2.multiply(excess, 1.6,  # type: ignore[call-overload]
                                                   dtype=cv2.CV_8U))
        if bright or (bright is None and _standing_out(brightness) > _standing_out(score)):
            score = brightness
    gain = _shadow_gain(balanced, small)
    if gain is not None:  # the whiteness is in proportion to the light: raised with it
        score = np.clip(score * gain, 0, 255).astype(np.uint8)
    return score, gain is not None


def _white(score: np.ndarray, table: np.ndarray | None = None,
           shaded: bool = False) -> np.ndarray:
    """The card-white test before any morphology (uint8 0/255) on the whiteness ``score``
    (``_whiteness``). ``table``: where the table is (``_table``), the only pixels that set
    the threshold."""
    # divide out slow light changes: the local bright level over a wide window
    bright = cv2.dilate(score, cv2.getStructuringElement(cv2.MORPH_RECT, (31, 31)))
    bright = cv2.blur(bright, (61, 61))
    twice = cv2.multiply(score, 2, dtype=cv2.CV_16U)  # type: ignore[call-overload]
    floor = cv2.max(bright, 40).astype(np.uint16)  # type: ignore[call-overload]
    rel_ok = cv2.compare(twice, floor, cv2.CMP_GT)  # > 0.5 x local
    if table is None:
        level, mask = cv2.threshold(score, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    else:
        level, _ = cv2.threshold(score[table > 0].reshape(-1, 1), 0, 255,
                                 cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        mask = cv2.compare(score, level, cv2.CMP_GT)  # type: ignore[call-overload]
    mask = cv2.bitwise_and(mask, rel_ok)
    whitest = _whitest(score)
    above = _above_felt(score, whitest, level)
    if above is not None:
        mask = cv2.bitwise_or(cv2.bitwise_and(mask, above), _wider_than_felt(mask, above, score))
    floor_level = _dark_floor(whitest)
    if floor_level > level:  # else Otsu's level asks more already
        mask = cv2.bitwise_and(
            mask, cv2.compare(score, floor_level, cv2.CMP_GT))  # type: ignore[call-overload]
    if shaded:
        # over the felt around it even where that asks no more than Otsu's level
        mask = _grown(mask, score, SHADOW_GROW * level, rel_ok, floor_level,
                      above if above is not None else _above_felt(score, whitest, -1.0))
    out: np.ndarray = mask
    return out


def _grown(mask: np.ndarray, score: np.ndarray, level: float, rel_ok: np.ndarray,
           floor_level: int, above: np.ndarray | None) -> np.ndarray:
    """Card-white ``mask`` grown into what passes the same tests at whiteness ``level``
    (``SHADOW_GROW``) where it touches ``mask``."""
    low = cv2.bitwise_and(cv2.compare(score, level, cv2.CMP_GT), rel_ok)  # type: ignore[call-overload]
    if above is not None:
        low = cv2.bitwise_and(low, above)
    low = cv2.bitwise_and(low, cv2.compare(score, floor_level, cv2.CMP_GT))  # type: ignore[call-overload]
    n, labels = cv2.connectedComponents(cv2.bitwise_or(low, mask), connectivity=8)
    keep = np.zeros(n, bool)
    keep[np.unique(labels[mask > 0])] = True
    keep[0] = False
    out: np.ndarray = (keep[labels] * 255).astype(np.uint8)
    return out


#: Print on the felt (the game's rules, the betting circles' labels) that touches a hand
#: joins its card-white, and the hand's rectangle then cuts across its cards. A region whose
#: card-white reaches beyond the hull of its thick parts (what an opening of PRINT_OPEN
#: reduced pixels leaves of the card-white before it is closed, less pieces under
#: PRINT_MIN pixels: letters that survive it) by PRINT_CUT to PRINT_KEEP of its area, and
#: whose shape is the more rectangular for losing it (its fill of its rectangle by
#: PRINT_FILL more), loses it. Never more than PRINT_KEEP, and never below the smallest
#: region, so a hand whose card-white is thin (court cards' frames) is never cut away.
#: 2026-12-02, on photos with a printed layout (``synth.compose(layout=True)``): tuning /
#: check decks 1,171 / 1,213 -> 1,203 / 1,229 right, sure 820 / 764 -> 843 / 780; on plain
#: felt tuning / check / threshold decks 1,401 / 1,387 / 1,406 -> 1,401 / 1,387 / 1,403 (a
#: court card's frame cut on one hand, flagged), sure 1,067 / 1,006 / 1,038 -> 1,067 /
#: 1,006 / 1,035, the surest wrong reads unchanged (0.858 / 0.909 / 0.788). Without
#: PRINT_KEEP a hand of court cards was cut away whole on one tuning photo, nothing
#: flagged; an opening of 7 read 1,226 / 1,240 printed but 1,396 / 1,386 / 1,396 plain,
#: PRINT_CUT 0.15 read 1,170 / 1,223 printed (both before the fill condition). It costs
#: about 2 ms a photo (99 against 96 ms per held-out photo, alternating).
PRINT_CUT, PRINT_KEEP, PRINT_FILL = 0.08, 0.5, 0.05
PRINT_OPEN, PRINT_MIN = 5, 120


def _fill(region: np.ndarray) -> float:
    """How much of its smallest rectangle a region (boolean mask) fills."""
    pts = np.argwhere(region)
    _, (rw, rh), _ = cv2.minAreaRect(pts[:, ::-1].astype(np.float32))
    return float(len(pts) / max(rw * rh, 1.0))


def _print_cut(closed: np.ndarray, before: np.ndarray,
               smallest: float | None = None,
               uncut: list[np.ndarray] | None = None) -> np.ndarray:
    """``closed`` card-white without the print that joins hands (``PRINT_CUT``); ``before``:
    the card-white before it was closed; ``smallest``: the smallest region read (default:
    MIN_BLOB_SHARE of the copy); ``uncut``: given, the outline of each region cut is added
    to it."""
    if smallest is None:
        smallest = MIN_BLOB_SHARE * closed.size
    thick = cv2.morphologyEx(before, cv2.MORPH_OPEN, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (PRINT_OPEN, PRINT_OPEN)))
    out = closed.copy()
    grow = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (PRINT_OPEN + 2, PRINT_OPEN + 2))
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
        if cv2.contourArea(c) < smallest:  # too small to be read as a region at all
            continue
        x, y, w, h = cv2.boundingRect(c)
        outline = np.zeros((h, w), np.uint8)
        cv2.drawContours(outline, [c], -1, 255, -1, offset=(-x, -y))
        region = (outline > 0) & (closed[y : y + h, x : x + w] > 0)
        area = int(np.count_nonzero(region))
        # its thick parts, less pieces too small to be part of a card (letters of print)
        _, pieces, stats, _ = cv2.connectedComponentsWithStats(
            (region & (thick[y : y + h, x : x + w] > 0)).astype(np.uint8))
        big = stats[:, cv2.CC_STAT_AREA] >= PRINT_MIN
        big[0] = False
        pts = np.argwhere(big[pieces])
        if len(pts) < 3:
            continue
        hull = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(hull, cv2.convexHull(pts[:, ::-1].astype(np.int32)), 255)
        # grown back by what the opening wore off the cards' edges
        inside = cv2.dilate(hull, grow) > 0
        outside = int(np.count_nonzero(region & ~inside))
        if (PRINT_CUT * area <= outside <= PRINT_KEEP * area and area - outside >= smallest
                and _fill(region & inside) >= _fill(region) + PRINT_FILL):
            out[y : y + h, x : x + w][region & ~inside] = 0
            if uncut is not None:
                uncut.append(c)
    return out


def reduce(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The reduced working copy (an integer reduction, which is fast) and its scale."""
    h, w = image.shape[:2]
    f = math.ceil(max(h, w) / WORK_SIDE)
    if f <= 1:
        return image, 1.0
    # at least a pixel a side: the loader refuses such thin photos, an array given directly
    # may still be one
    return (cv2.resize(image, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA),
            1.0 / f)


def _blob(c: np.ndarray, s: float, grow: float = 0.0) -> Blob:
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(c)
    box = cv2.boxPoints(((cx, cy), (rw + 2 * grow, rh + 2 * grow), ang))
    corners = clockwise(np.asarray(box, np.float32)) / s
    area = cv2.contourArea(c) + grow * 2 * (rw + rh)
    hull = np.asarray(cv2.convexHull(c).reshape(-1, 2), np.float32) / s
    return Blob(corners, area / (s * s), (cx / s, cy / s), hull)


def hull_gap(a: np.ndarray, b: np.ndarray) -> float:
    """The distance between two convex hulls ((N, 2) points), 0 where they touch or
    overlap.

    >>> square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    >>> hull_gap(square, square + [14, 0]), hull_gap(square, square + [5, 5])
    (4.0, 0.0)
    """
    def inside(pts: np.ndarray, hull: np.ndarray) -> float:
        poly = hull.reshape(-1, 1, 2).astype(np.float32)
        return max(cv2.pointPolygonTest(poly, (float(x), float(y)), True) for x, y in pts)

    return max(0.0, -max(inside(a, b), inside(b, a)))


def joined_blob(a: Blob, b: Blob) -> Blob:
    """One region holding regions ``a`` and ``b``: the rectangle of their hulls, their
    card-white together."""
    pts = np.concatenate([a.hull, b.hull]).astype(np.float32).reshape(-1, 1, 2)
    return replace(_blob(pts, 1.0), area=a.area + b.area)


def clockwise(pts: np.ndarray) -> np.ndarray:
    """The corners of a convex outline in order around their centre, clockwise on screen
    (y down), from the first past its left going up (the order a region's corners have)."""
    centre = pts.mean(axis=0)
    order = np.argsort(np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0]))
    return np.asarray(pts[order], np.float32)


def quad_blob(blob: Blob) -> Blob | None:
    """The blob with the quadrilateral that fits its outline in place of its rectangle: a
    hand seen at a slant (strong perspective) is a parallelogram, which the rectangle
    leaves sheared in every frame. None when no four-sided outline fits."""
    if len(blob.hull) < 4:
        return None
    hull = blob.hull.reshape(-1, 1, 2)
    peri = cv2.arcLength(hull, True)
    for share in (0.02, 0.03, 0.045, 0.06, 0.08):
        quad = cv2.approxPolyDP(hull, share * peri, True).reshape(-1, 2)
        if len(quad) <= 4:
            break
    if len(quad) != 4:
        return None
    hull_area = cv2.contourArea(hull)
    if not 0.85 * hull_area <= cv2.contourArea(quad.reshape(-1, 1, 2)) <= 1.25 * hull_area:
        return None
    return Blob(clockwise(np.asarray(quad, np.float32)), blob.area, blob.centre, blob.hull)


def widened(blob: Blob, k: int, by: float, others: list[np.ndarray],
            size: tuple[int, int]) -> Blob | None:
    """The blob with its rectangle lengthened along frame ``k``'s top edge (the row its
    cards lie in) by ``by`` times the frame's height at either end, but not at an end where
    that would reach another region (``others``: their hulls) or leave the photo (``size``:
    its width and height); None when neither end can be. A court card whose art reaches
    its edge leaves card-white only in a thin frame, which the mask's opening wears away
    where cards lie side by side: the hand's region stops at the card beside it
    (``Reader._read_widened`` reads the lengthened region, then the region its cards span:
    ``spanned``).

    >>> card = np.array([[0, 0], [71, 0], [71, 100], [0, 100]], np.float32)
    >>> widened(Blob(card + [100, 0], 7100.0, (135.5, 50.0), card), 0, 0.71, [], (400, 200)
    ... ).corners[:2].tolist()
    [[29.0, 0.0], [242.0, 0.0]]
    >>> right = card + [200, 0]   # another region beside it: lengthened the other way only
    >>> widened(Blob(card + [100, 0], 7100.0, (135.5, 50.0), card), 0, 0.71, [right], (400, 200)
    ... ).corners[:2].tolist()
    [[29.0, 0.0], [171.0, 0.0]]
    >>> beside = card + [100, 0]   # at the photo's edge, another region beside it: None
    >>> widened(Blob(card, 7100.0, (35.5, 50.0), card), 0, 0.71, [beside], (400, 200)) is None
    True
    """
    tl, tr, br, bl = np.roll(blob.corners, -k, axis=0)
    along = tr - tl
    length = float(np.linalg.norm(along))
    if length < 1e-3:
        return None
    d = by * float(np.linalg.norm(bl - tl)) * along / length
    free = []
    for end in ((tl - d, tl, bl, bl - d), (tr, tr + d, br + d, br)):
        quad = np.asarray(end, np.float32)
        reach = WIDEN_TOUCH * cv2.contourArea(quad)
        inside = bool((quad >= 0).all() and (quad <= np.array(size, np.float32)).all())
        touches = any(cv2.intersectConvexConvex(quad, o.astype(np.float32))[0] > reach
                      for o in others)
        free.append(inside and not touches)
    if not any(free):
        return None
    a, b = d * free[0], d * free[1]
    corners = np.array([tl - a, tr + b, br + b, bl - a], np.float32)
    return Blob(np.roll(corners, k, axis=0), blob.area, blob.centre, blob.hull)


#: A lengthened end may overlap another region by this share of its own area (a hand's
#: rectangle takes in a sliver of the felt around it).
WIDEN_TOUCH = 0.02


def spanned(frame: Frame, blob: Blob, x0: float, x1: float) -> Blob:
    """``blob``'s rectangle along ``frame`` (a frame of a lengthened copy of it:
    ``widened``) from frame x ``x0`` to ``x1``, and no shorter than ``blob``'s own. The
    rectangle is the region's hull and gives its centre, where its cards lie (a hand is
    seated, and other regions are kept apart from it, by them); its card-white is
    ``blob``'s, the span's not being measured.

    >>> card = np.array([[100, 0], [171, 0], [171, 100], [100, 100]], np.float32)
    >>> blob = Blob(card, 7100.0, (135.5, 50.0), card)
    >>> longer = make_frame(widened(blob, 0, 0.71, [], (400, 200)), 0)  # 1.22 frame px a pixel
    >>> span = spanned(longer, blob, 87.0, 260.0)
    >>> span.corners[:, 0].round().tolist()  # 29 + 260 / 1.22
    [100.0, 242.0, 242.0, 100.0]
    >>> [round(v) for v in span.centre], len(span.hull)
    ([171, 50], 4)
    """
    own = cv2.transform(blob.corners[None].astype(np.float32), frame.to_frame)[0][:, 0]
    x0, x1 = min(x0, float(own.min())), max(x1, float(own.max()))
    box = np.array([[x0, 0], [x1, 0], [x1, FRAME_CARD_H], [x0, FRAME_CARD_H]], np.float32)
    corners = np.roll(frame.image_points(box), frame.k, axis=0)
    centre = corners.mean(axis=0)
    return Blob(corners, blob.area, (float(centre[0]), float(centre[1])), corners.copy())


def _card_like(c: np.ndarray, min_area: float) -> bool:
    area = cv2.contourArea(c)
    _, (rw, rh), _ = cv2.minAreaRect(c)
    return bool(area >= min_area and min(rw, rh) >= 12 and area >= 0.45 * rw * rh)


#: Cards under SMALL_CARD pixels high in the working copy (a 12 MP photo of the whole
#: table taken from farther away: cards a tenth of a 1080p photo's share of the frame) are
#: found again on a copy reduced so that they are about WORK_CARD high, as in a 1080p photo
#: of the table, where every size in pixels here was chosen. Only photos reduced 3 times or
#: more (longer than 2,000 pixels, SMALL_FROM): in a 1080p photo, regions of chips and
#: print on an empty layout would measure a small "card", and its copy is reduced twice at
#: most. 2026-12-02, procedural tuning photos (seeds 920000-920009, two each) set in a
#: 4032x3024 frame of the same felt: 366 -> 466 of 480 read right (463 in their own frame).
SMALL_CARD, WORK_CARD, SMALL_FROM = 36, 55, 1 / 3


def find_blobs(image: np.ndarray, rejected: list[Blob] | None = None,
               layout: Layout | None = None,
               white: list[tuple[np.ndarray, np.ndarray]] | None = None,
               other_cuts: list[OtherCut] | None = None,
               white_by: WhiteBy = WhiteBy(),
               reduced: tuple[np.ndarray, float] | None = None) -> list[Blob]:
    """Card regions. Hands that touch make one region that is not card-like: it is eroded
    until it falls apart into card-like regions (each grown back by the erosion); what still
    is not card-like goes to ``rejected`` (to be confirmed by the dealer, never dropped),
    but for a lone card's outline (``lone_card``).
    ``layout``: the table's empty layout seen from where the photo was taken
    (:func:`layout_in_frame`): its print is then no card-white. ``white``: given, the
    working copy (:func:`reduce`) and its card-white are added to it. ``other_cuts``:
    given, the rows of touching hands that another cut parts otherwise are added to it
    (``_split_rows``). ``white_by``: as ``card_mask`` takes it. ``reduced``: the working
    copy and its scale, if made already (``reduce``: 59 ms for a 12 MP photo on this
    machine)."""
    left: list[Blob] = []
    blobs = _card_regions(image, left, layout, white, other_cuts, white_by, reduced)
    card_h = card_height(blobs)
    for b in left:
        if card_h is not None and lone_card(b, card_h):
            blobs.append(b)
        elif rejected is not None:
            rejected.append(b)
    return blobs


#: A region not card-like is a lone card all the same when its rectangle has a card's shape
#: (its sides' ratio within ``LONE_SLACK`` of a card's, ``hand_groups.CARD_W``) and size
#: (its long side from 1 - LONE_SLACK of the measured card height to ``LONE_LONG`` times it:
#: where hands lie apart, lone cards measure the card height as their width or less), and its
#: convex hull fills at least ``LONE_FILL`` of it: a court card whose art reaches its edge
#: leaves card-white only in a frame broken open (2026-12-03: on the tuning photos laid
#: apart, 25 of the 94 cards not read right were court cards lying alone, 18 of them in
#: regions set aside so).
LONE_SLACK, LONE_FILL, LONE_LONG = 0.15, 0.85, 1.9


def lone_card(blob: Blob, card_h: float, slack: float | None = None) -> bool:
    """Whether ``blob`` has a lone card's outline for cards measured ``card_h`` high, its
    width to its height within ``slack`` (a share; ``LONE_SLACK`` unless given) of a card's.

    >>> card = np.array([[0, 0], [71, 0], [71, 100], [0, 100]], np.float32)
    >>> lone_card(Blob(card, 2500.0, (35.5, 50.0), card), 100.0)
    True
    >>> lone_card(Blob(card, 2500.0, (35.5, 50.0), card), 71.0)   # measured as its width
    True
    >>> lone_card(Blob(card * [1.4, 1], 2500.0, (50.0, 50.0), card * [1.4, 1]), 100.0)  # square
    False
    >>> lone_card(Blob(card * 2, 2500.0, (71.0, 100.0), card * 2), 100.0)  # too large
    False
    >>> narrow = card * [0.8, 1]  # 0.57 as wide as high: a court card's two ends joined
    >>> lone_card(Blob(narrow, 2500.0, (28.4, 50.0), narrow), 100.0), lone_card(
    ...     Blob(narrow, 2500.0, (28.4, 50.0), narrow), 100.0, slack=0.3)
    (False, True)
    """
    short, long = blob_sides(blob)
    rect = short * long
    hull = float(cv2.contourArea(blob.hull.astype(np.float32).reshape(-1, 1, 2)))
    slack = LONE_SLACK if slack is None else slack
    return bool(rect > 0 and abs(short / long - CARD_W) <= slack * CARD_W
                and (1 - LONE_SLACK) * card_h <= long <= LONE_LONG * card_h
                and hull >= LONE_FILL * rect)


def _card_regions(image: np.ndarray, rejected: list[Blob], layout: Layout | None,
                  white: list[tuple[np.ndarray, np.ndarray]] | None = None,
                  other_cuts: list[OtherCut] | None = None,
                  white_by: WhiteBy = WhiteBy(),
                  reduced: tuple[np.ndarray, float] | None = None) -> list[Blob]:
    """``find_blobs`` but for lone cards set aside as not card-like."""
    work, s = reduce(image) if reduced is None else reduced
    printed = None if layout is None else layout.printed
    found: list[Blob] = []
    cut: list[OtherCut] = []
    min_area = MIN_BLOB_SHARE * work.shape[0] * work.shape[1]
    blobs, mask = _regions(work, s, printed, min_area, found, cut, white_by)
    if white is not None:
        white.append((work, mask))
    card_h = card_height(blobs)
    if card_h is None and s <= SMALL_FROM:  # cards too small even to be regions
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        card_h = card_height([_blob(c, s) for c in contours
                              if cv2.contourArea(c) >= min_area / 16])
    if s > SMALL_FROM or card_h is None or card_h * s >= SMALL_CARD:
        rejected += found
        if other_cuts is not None:
            other_cuts += cut
        return blobs
    f = max(1, round(card_h / WORK_CARD))
    h, w = image.shape[:2]
    work = image if f == 1 else cv2.resize(image, (w // f, h // f), interpolation=cv2.INTER_AREA)
    if printed is not None:
        printed = cv2.resize(printed, (work.shape[1], work.shape[0]),
                             interpolation=cv2.INTER_NEAREST)
    # the smallest region as in a photo WORK_SIDE pixels long, where cards are this size
    nominal = WORK_SIDE * WORK_SIDE * min(h, w) / max(h, w)
    return _regions(work, 1.0 / f, printed, MIN_BLOB_SHARE * nominal, rejected, other_cuts,
                    white_by)[0]


def _regions(work: np.ndarray, s: float, printed: np.ndarray | None, min_area: float,
             rejected: list[Blob] | None, other_cuts: list[OtherCut] | None = None,
             white_by: WhiteBy = WhiteBy()) -> tuple[list[Blob], np.ndarray]:
    """``find_blobs`` on the working copy ``work`` (the photo reduced ``s`` times), and
    its card-white."""
    uncut: list[np.ndarray] = []
    mask = card_mask(work, printed, min_area, uncut, white_by)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    # each region's card-like regions; a region of touching hands keeps the other ways it
    # can be parted, tried once the card height is known (``_parted``)
    regions: list[list[Blob]] = []
    partings: dict[int, tuple[Iterator[list[Blob]], np.ndarray, tuple[int, int]]] = {}
    for c in contours:
        if cv2.contourArea(c) < min_area:
            continue
        if _card_like(c, min_area):
            regions.append([_blob(c, s)])
            continue
        x, y, w, h = cv2.boundingRect(c)
        part = np.zeros((h + 2, w + 2), np.uint8)
        cv2.drawContours(part, [c], -1, 255, -1, offset=(1 - x, 1 - y))
        ways = _partings(part, (x - 1, y - 1), s, min_area)
        first = next(ways, None)
        if first is not None:
            partings[len(regions)] = (ways, part, (x - 1, y - 1))
            regions.append(first)
        elif rejected is not None:
            rejected.append(_blob(c, s))
    blobs = _split_rows(_parted(regions, partings, s, min_area, rejected), mask, s,
                        min_area, other_cuts)
    if other_cuts is not None and PRINT_UNCUT:
        other_cuts += _uncut_ways(blobs, uncut, s)
    return blobs, mask


#: What the print cut (``PRINT_CUT``) takes from a region is not always print: a hand of
#: court cards whose card-white is thin between the art and the pips (a gm-paris queen
#: over a seven of clubs on a plain felt) kept only its bottom card. Each region cut is
#: also read whole, and kept whole where it then reads as more hands (``OtherCut``).
#: 2026-12-05, plain felt: training designs 930000-930059 read 1,427 of 1,440 with the
#: cut, 1,431 without it, 1,431 with it and this; printed felt read alone as before (2 of
#: 720 more); held out, near-white table 86.11% -> 91.39% right, white tablecloth 93.61%
#: -> 95.56%, spread wide 91.94% -> 92.78%, no row worse, 0 silent (card_models/README.md).
PRINT_UNCUT = True


def _uncut_ways(blobs: list[Blob], uncut: list[np.ndarray], s: float) -> list[OtherCut]:
    """Each region the print cut took something from (``uncut``: outlines in the working
    copy reduced ``s`` times) as another way to part its regions among ``blobs``: whole
    (none where no region found lies in it)."""
    ways: list[OtherCut] = []
    for c in uncut:
        mine = [k for k, b in enumerate(blobs)
                if cv2.pointPolygonTest(c, (b.centre[0] * s, b.centre[1] * s), False) >= 0]
        if mine:
            ways.append((mine, [_blob(c, s)]))
    return ways


def _partings(part: np.ndarray, origin: tuple[int, int], s: float,
              min_area: float) -> Iterator[list[Blob]]:
    """The ways a region of touching hands falls apart into card-like regions, each made
    only when asked for: eroded more and more, then by its hands' cores
    (``_split_cores``)."""
    for k in (2, 4, 6, 9):
        eroded = cv2.erode(part, np.ones((2 * k + 1, 2 * k + 1), np.uint8))
        subs, _ = cv2.findContours(eroded, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        subs = [d + np.array(origin) for d in subs if cv2.contourArea(d) >= 0.5 * min_area]
        if len(subs) > 1 and all(_card_like(d, 0.5 * min_area) for d in subs):
            yield [_blob(d, s, grow=k) for d in subs]
    if cores := _split_cores(part, origin, s, min_area):
        yield cores


#: A region parted from touching hands narrower than this share of the card height cannot
#: hold a hand (a hand's short side is a card's height): the next way of parting is taken.
THIN_PART = 0.75


def _parted(regions: list[list[Blob]],
            partings: dict[int, tuple[Iterator[list[Blob]], np.ndarray, tuple[int, int]]],
            s: float, min_area: float, rejected: list[Blob] | None) -> list[Blob]:
    """The card-like regions of ``regions``, where each region of touching hands (its
    index in ``partings``: the other ways to part it, its card-white, its origin) is parted
    the first way with no part thinner than THIN_PART card heights (else the first way),
    with what that parting leaves of it."""
    card_h = card_height([b for found in regions for b in found])
    out: list[Blob] = []
    for i, found in enumerate(regions):
        if i in partings:
            ways, part, origin = partings[i]
            if card_h is not None and not _whole(found, card_h):
                found = next((p for p in ways if _whole(p, card_h)), found)
            # a hand that erosion wore down to crumbs (a court card's art leaves its
            # card-white thin) is in none of the parts: what the parts leave of the region
            # is a region of its own, never dropped
            for d in _left_over(part, origin, found, s, min_area):
                if _card_like(d, min_area):
                    found = [*found, _blob(d, s)]
                elif rejected is not None:
                    rejected.append(_blob(d, s))
        out += found
    return out


def _whole(parting: list[Blob], card_h: float) -> bool:
    """Whether no part of ``parting`` is too thin to hold a hand (``THIN_PART``)."""
    return all(blob_sides(b)[0] >= THIN_PART * card_h for b in parting)


def _left_over(part: np.ndarray, origin: tuple[int, int], found: list[Blob], s: float,
               min_area: float) -> list[np.ndarray]:
    """The outlines (reduced pixels) of what is left of a region's card-white ``part``
    outside the rectangles of the ``found`` regions parted from it, at least ``min_area``
    after an opening that drops the slivers along their edges."""
    rest = part.copy()
    for b in found:
        cv2.fillConvexPoly(rest, np.round(b.corners * s - origin).astype(np.int32), 0)
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    subs, _ = cv2.findContours(rest, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return [d + np.array(origin) for d in subs if cv2.contourArea(d) >= min_area]


def _split_cores(part: np.ndarray, origin: tuple[int, int], s: float,
                 min_area: float) -> list[Blob]:
    """Touching hands that erosion cannot part (a whole arc of hands, say): each hand's
    core (its card-white farthest from any edge, more than CORE_DEPTH of the deepest) seeds
    a watershed over the region, whose basins are the hands; [] unless there are two or
    more and every one is card-like."""
    dist = cv2.distanceTransform(part, cv2.DIST_L2, 5)
    core = cv2.compare(dist, CORE_DEPTH * float(dist.max()), cv2.CMP_GT)  # type: ignore[call-overload]
    n, labels = cv2.connectedComponents(core)
    if n < 3:  # background and one core: one hand
        return []
    markers = labels.astype(np.int32) + 1  # 1: the felt and the unknown, 2..n: the cores
    markers[(part > 0) & (core == 0)] = 0  # the unknown, to flood
    basins = cv2.watershed(cv2.cvtColor(part, cv2.COLOR_GRAY2BGR), markers)
    found: list[Blob] = []
    for k in range(2, n + 1):
        subs, _ = cv2.findContours(np.where(basins == k, 255, 0).astype(np.uint8),
                                   cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not subs:
            continue
        d = max(subs, key=cv2.contourArea) + np.array(origin)
        if cv2.contourArea(d) < 0.5 * min_area:
            continue
        if not _card_like(d, 0.5 * min_area):
            return []
        found.append(_blob(d, s))
    return found if len(found) > 1 else []


#: Frame pixels of card height that the edges' direction is measured at (``aligned_blob``).
ALIGN_CARD_H = 48
#: A rectangle turned less than this (degrees) from the blob's is not worth another read.
ALIGN_MIN_TURN = 3.0


def aligned_blob(pyr: Pyramid, blob: Blob) -> Blob | None:
    """The blob with the parallelogram that bounds it along its cards' edges in place of its
    minimum-area rectangle; None when the cards' edges are turned less than ALIGN_MIN_TURN
    degrees from that rectangle. A hand spread tight makes a region nearly square, whose
    minimum-area rectangle can lie turned from the cards (seen: 8 degrees); the frames cut
    along it then cross the cards' tops, and no index in them was read. The cards'
    direction is that of the strongest edges in the region, all cards of a hand lying
    square to each other: the mean of the gradients' directions taken four times (so edges
    90 degrees apart agree), weighted by the squared gradient; then each family of edges
    (tops and bottoms, sides) gives its own direction, as perspective shears a card."""
    hull = blob.hull
    short, _ = blob_sides(blob)
    img, f = pyr.level_for(ALIGN_CARD_H / max(short, 1e-3))
    pts = hull / f
    x0, y0 = np.maximum(np.floor(pts.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 3
    crop = img[y0:y1, x0:x1]
    if crop.shape[0] < 8 or crop.shape[1] < 8:
        return None
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    inside = np.zeros(gray.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(pts - (x0, y0)).astype(np.int32), 1)
    inside = cv2.dilate(inside, np.ones((5, 5), np.uint8)).astype(bool)
    mag2 = (gx * gx + gy * gy)[inside]
    if float(mag2.sum()) <= 0.0:  # no edges to go by
        return None
    theta = np.arctan2(gy[inside], gx[inside])
    angle = float(np.arctan2((mag2 * np.sin(4 * theta)).sum(), (mag2 * np.cos(4 * theta)).sum())
                  / 4)
    # under perspective a card's sides are not square to its top: each family of edges
    # (their gradients within 45 degrees of one axis) gives its own direction
    near = np.cos(2 * (theta - angle)) >= 0
    axes = []
    for family in (near, ~near):
        w = mag2[family]
        t = theta[family]
        normal = float(np.arctan2((w * np.sin(2 * t)).sum(), (w * np.cos(2 * t)).sum()) / 2)
        axes.append(np.array([-math.sin(normal), math.cos(normal)]))  # along the edges
    edge = blob.corners[1] - blob.corners[0]
    turn = (math.degrees(angle) - math.degrees(math.atan2(float(edge[1]), float(edge[0])))) % 90.0
    if min(turn, 90.0 - turn) < ALIGN_MIN_TURN:
        return None
    basis = np.stack(axes, axis=1)  # columns: the two edge directions
    if abs(float(np.linalg.det(basis))) < 0.9:  # sheared past 25 degrees, or one family
        c, s_ = math.cos(angle), math.sin(angle)  # had no edges: square to the mean
        basis = np.array([[c, -s_], [s_, c]])
    local = hull @ np.linalg.inv(basis).T
    # a region parted from its neighbours by erosion was grown back as a rectangle; its
    # hull was not
    _, (hw, hh), _ = cv2.minAreaRect(hull)
    grow = max(0.0, (sum(blob_sides(blob)) - hw - hh) / 4)
    (lx0, ly0), (lx1, ly1) = local.min(axis=0) - grow, local.max(axis=0) + grow
    box = np.array([[lx0, ly0], [lx1, ly0], [lx1, ly1], [lx0, ly1]]) @ basis.T
    return Blob(clockwise(np.asarray(box, np.float32)), blob.area, blob.centre, blob.hull)


#: The rim of a region left out of what it shows (``region_shows``), as a share of its
#: rectangle's short side: a region's outline is drawn around its card-white, and the
#: felt's colour bleeds into its edge. The felt's colour is taken from a ring FELT_RING
#: rims wide around it; a pixel within FELT_NEAR of that colour (8-bit Lab) shows felt.
PAPER_RIM, FELT_RING, FELT_NEAR = 0.08, 3, 20.0


def region_shows(work: np.ndarray, mask: np.ndarray, s: float,
                 hull: np.ndarray) -> tuple[float, float]:
    """(paper, felt): the shares of card-white (``mask``: uint8 0/255 on ``work``, the photo
    reduced ``s`` times, as ``reduce`` gives it) and of the felt's colour (that of the
    pixels around it, card-white left out) inside a region's convex hull (``hull``:
    full-resolution pixels), its rim (``PAPER_RIM``) left out. A card's face shows its
    paper across, pips and court art laid on it; a back shows paper only in its border, and
    its print hides the felt; an outline printed on the felt shows the felt inside it.

    >>> work = np.full((100, 100, 3), (40, 120, 40), np.uint8)     # green felt
    >>> mask = np.zeros((100, 100), np.uint8)
    >>> box = np.array([[10, 10], [70, 10], [70, 90], [10, 90]], np.float32)
    >>> work[10:90, 10:70] = 235; mask[10:90, 10:70] = 255         # a card's face
    >>> region_shows(work, mask, 1.0, box)
    (1.0, 0.0)
    >>> work[16:84, 16:64] = (120, 30, 30); mask[16:84, 16:64] = 0  # a back, a white border
    >>> [round(v, 2) for v in region_shows(work, mask, 1.0, box)]
    [0.1, 0.0]
    >>> work[16:84, 16:64] = (40, 120, 40)                          # an outline on the felt
    >>> [round(v, 2) for v in region_shows(work, mask, 1.0, box)]
    [0.1, 0.9]
    """
    pts = np.asarray(hull, np.float32).reshape(-1, 2) * s
    (_, (w, h), _) = cv2.minAreaRect(pts)
    rim = max(1, round(PAPER_RIM * min(w, h)))
    ring = FELT_RING * rim
    x0, y0 = np.maximum(np.floor(pts.min(axis=0)).astype(int) - ring - 1, 0)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + ring + 2
    part, white = work[y0:y1, x0:x1], mask[y0:y1, x0:x1]
    drawn = np.zeros(white.shape, np.uint8)
    cv2.fillConvexPoly(drawn, np.round(pts - [x0, y0]).astype(np.int32), 255)
    inside = cv2.erode(drawn, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8)) > 0
    n = np.count_nonzero(inside)
    if not n:
        return 0.0, 0.0
    paper = float(np.count_nonzero(white[inside]) / n)
    around = (cv2.dilate(drawn, np.ones((2 * ring + 1, 2 * ring + 1), np.uint8)) > 0) & (
        drawn == 0) & (white == 0)
    if not around.any():
        return paper, 0.0
    lab = cv2.cvtColor(part, cv2.COLOR_BGR2LAB).astype(np.float32)
    felt = np.median(lab[around], axis=0)
    near = np.linalg.norm(lab[inside] - felt, axis=1) < FELT_NEAR
    return paper, float(np.count_nonzero(near) / n)


#: A place the reader would send the dealer to (cards not read, a hand only another read
#: saw) that shows nothing is not one: a card's face always shows ink (its index, its
#: pips). Where the grey levels inside a place (its rim, ``PAPER_RIM``, left out) spread
#: from the 1st to the 99th percentile over less than PLAIN_SPREAD of its bright level
#: (the 90th percentile), it is the felt's own light (a brighter patch of a bare felt,
#: under a lamp, the rail beyond) and is not sent. 2026-12-07, procedural tuning photos
#: (seeds 920000-920029; full resolution): 908 such places over no card (bare felts of
#: every colour 591, near-white table under a warm cast 148, floor and rail 123, ...)
#: spread 0.00-0.14 but 17, still sent: the edges of a hard shadow (15, 0.23-0.54; they
#: spread as a card's paper does) and two more (0.35, 0.63); places over cards 0.24-1.03,
#: but two a read another way saw over bare felt beside a hand (0.05, 0.06). Print on the
#: felt (a layout's letters) is marked as cards are.
PLAIN_SPREAD = 0.18


def plain(image: np.ndarray, corners: np.ndarray | list[list[float]]) -> bool:
    """Whether the place ``corners`` (full-resolution pixels) of a BGR ``image`` shows no
    mark, only an even surface (``PLAIN_SPREAD``).

    >>> felt = np.full((200, 300, 3), (150, 160, 160), np.uint8)
    >>> felt[:, 150:] += 12                                    # a brighter patch of felt
    >>> box = [[60, 40], [240, 40], [240, 160], [60, 160]]
    >>> plain(felt, box)
    True
    >>> felt[80:100, 100:110] = 40                             # an index's ink
    >>> plain(felt, box)
    False
    >>> plain(felt, [[0, 0], [1, 0], [1, 1], [0, 1]])         # too small to tell: not plain
    False
    """
    pts = np.asarray(corners, np.float32).reshape(-1, 2)
    (_, (w, h), _) = cv2.minAreaRect(pts)
    rim = max(1, round(PAPER_RIM * min(w, h)))
    x0, y0 = np.maximum(np.floor(pts.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
    part = image[y0:y1, x0:x1]
    if part.size == 0:
        return False
    drawn = np.zeros(part.shape[:2], np.uint8)
    cv2.fillConvexPoly(drawn, np.round(pts - [x0, y0]).astype(np.int32), 255)
    # the crop's edge is the place's: eroded as beyond it lay nothing
    inside = cv2.erode(drawn, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8),
                       borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    if np.count_nonzero(inside) < 100:
        return False
    grey = cv2.cvtColor(part, cv2.COLOR_BGR2GRAY)[inside]
    low, high, bright = np.percentile(grey, (1, 99, 90))
    return bool(high - low < PLAIN_SPREAD * max(float(bright), 1.0))


#: A chip lying in a betting circle is round, and white or spotted with white at its edge:
#: its card-white passes, and it was sent to the dealer as "cards here could not be read"
#: (a printed layout compared with its empty photo, procedural tuning tables 920000-
#: 920029: 47 places, none over a card). A place whose convex hull is as round as an
#: ellipse (its overlap with the ellipse fitted to it, over their union, CHIP_ROUND or
#: more) and shorter than CHIP_LONG card heights is taken for a chip, not sent. 2026-12-07:
#: those 47 places overlap their ellipse 0.68-0.97 (two chips lying over each other are
#: less round), and are 0.32-0.64 card heights long; places over cards (pieces of cards
#: left unread, cards apart, under glare, at a slant: 20 on 240 tuning photos) 0.45-0.81,
#: and 0.42 card heights long at the least. 47 -> 15 places sent; every read, and every
#: count of cards missed with nothing said near them, the same on 19 tuning sets.
CHIP_ROUND, CHIP_LONG = 0.88, 0.7


def chip_like(blob: Blob, card_h: float) -> bool:
    """Whether a region found is round and small as a chip (``CHIP_ROUND``, ``CHIP_LONG``)
    where cards are ``card_h`` high.

    >>> def region(shape):
    ...     hull = cv2.convexHull(cv2.findNonZero(shape)).reshape(-1, 2).astype(np.float32)
    ...     corners = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float32)
    ...     return Blob(corners, float(np.count_nonzero(shape)), (0.0, 0.0), hull)
    >>> chip = cv2.circle(np.zeros((200, 200), np.uint8), (100, 100), 30, 255, -1)
    >>> [chip_like(region(chip), h) for h in (140.0, 70.0)]   # a chip; as large as a card
    [True, False]
    >>> piece = cv2.rectangle(np.zeros((200, 200), np.uint8), (70, 60), (130, 140), 255, -1)
    >>> chip_like(region(piece), 140.0)                        # a piece of a card
    False
    """
    long = max(blob_sides(blob))
    if long > CHIP_LONG * card_h or len(blob.hull) < 5:
        return False
    hull = np.asarray(blob.hull, np.float32).reshape(-1, 2)
    (cx, cy), axes, angle = cv2.fitEllipse(hull.reshape(-1, 1, 2))
    if not (np.isfinite(axes).all() and max(axes) <= 2 * long):
        return False  # a hull close to a line fits no ellipse of its size: not round
    origin = hull.min(axis=0) - max(axes)  # room for the ellipse on every side
    size = np.ceil(hull.max(axis=0) - origin + max(axes)).astype(int)
    shape, fitted = (np.zeros((size[1], size[0]), np.uint8) for _ in range(2))
    cv2.fillConvexPoly(shape, np.round(hull - origin).astype(np.int32), 1)
    cv2.ellipse(fitted, ((cx - origin[0], cy - origin[1]), axes, angle), 1, -1)
    union = np.count_nonzero(shape | fitted)
    return bool(union > 0 and np.count_nonzero(shape & fitted) >= CHIP_ROUND * union)


def blob_sides(blob: Blob) -> tuple[float, float]:
    """(short, long) sides of the blob's rectangle."""
    return box_sides(blob.corners)


def box_sides(corners: np.ndarray) -> tuple[float, float]:
    """(short, long) sides of a rectangle given by its four ``corners`` in turn."""
    c = corners
    a = float(np.linalg.norm(c[1] - c[0]))
    b = float(np.linalg.norm(c[3] - c[0]))
    return min(a, b), max(a, b)


#: A region longer than its short side by more than this is not taken for one hand when
#: the card height is measured (``card_height``).
HAND_RATIO = 1.6
#: The card height measured again after each cut (``_split_rows``) never falls below this
#: share of the first measure: cut pieces taken for hands once drove it to a third of a
#: card, and a photo's 24 cards read 2 right (procedural deck 920008). Since card-white's
#: specks are opened with a cross (``SPECKLE``), hands no longer break into such pieces on
#: any tuning or check photo (plain, light grey or printed felt): a guard, kept.
REMEASURE_FLOOR = 0.5
#: Regions smaller than this share of the largest region spread like a hand do not measure
#: the card height: chips, the chip tray's white chips and other small card-white on a
#: casino's felt (2026-12-02). On tuning and check photos with a printed layout and chips
#: (``synth.compose(layout=True)``, 1,440 cards each) read right 1,169 / 1,203 -> 1,171 /
#: 1,213, sure 760 / 714 -> 818 / 762 (0.2: 1,163 on tuning, 0.5: 1,149); on plain felt
#: the same reads (tuning, check and threshold decks).
FAN_SHARE = 0.3
#: ... and the card height is this percentile of their short sides, not their median: print
#: that joins hands to each other makes regions two hands large that still look like one
#: (2026-12-02: printed tuning / check photos 1,203 / 1,229 -> 1,220 / 1,233 right, sure
#: 843 / 780 -> 851 / 784; plain felt the same reads; 25: 1,227 / 1,242 printed but one card
#: fewer on the threshold decks).
HEIGHT_PCT = 35


def card_height(blobs: list[Blob]) -> float | None:
    """The card height in the photo, from the hands spread wider than tall (their short
    side is a card's height): the HEIGHT_PCT percentile of those at least FAN_SHARE as
    large as the largest; None when no blob tells. Without such hands, hands spread tight
    (about square) tell it; regions longer than HAND_RATIO times their short side count only
    when nothing else does: they are rows of touching hands, and a row that follows the
    table's arc is wider than a card is high.

    >>> def region(w, h):
    ...     box = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    ...     return Blob(box, w * h, (w / 2, h / 2), box)
    >>> card_height([region(100, 70), region(300, 20)])   # a hand spread wide, a sliver
    70.0
    >>> card_height([region(330, 320), region(20, 70)])   # a close-up of a hand spread tight
    320.0
    """
    sides = [(*blob_sides(b), b.area) for b in blobs]
    fans = [(lo, a) for lo, hi, a in sides if 1.12 * lo < hi <= HAND_RATIO * lo]
    # a close-up of hands spread tight shows no hand wider than tall, and a sliver of a card
    # cut by the photo's edge (its short side 20 pixels) measured the card height: every
    # hand was then cut as a row of hands
    # (2026-12-03, ``synth.close_up`` of procedural decks never trained on, hands 0 and 3 of
    # seeds 920030-920049: cards 400 / 1,500 pixels high read right 160 / 147 -> 167 / 166
    # of 180, framed tight 100 / 96 -> 102 / 105 of 115; whole tables read the same)
    fans = fans or [(lo, a) for lo, hi, a in sides if hi <= HAND_RATIO * lo]
    fans = fans or [(lo, a) for lo, hi, a in sides if hi > 1.12 * lo]
    if not fans:
        return None
    largest = max(a for _, a in fans)
    return float(np.percentile([lo for lo, a in fans if a >= FAN_SHARE * largest], HEIGHT_PCT))


def _split_rows(blobs: list[Blob], mask: np.ndarray, s: float, min_area: float,
                other_cuts: list[OtherCut] | None = None) -> list[Blob]:
    """Cut regions that are several hands touching in a row (longer than ROW_OF_HANDS card
    heights) in two at the narrowest waist of their card-white along the row, then each
    part again while it is still that long (how many hands a row holds is not known:
    hands are spread differently). ``other_cuts``: given, each such row that cutting where
    the card-white reaches least far across (``_cut_in_two``'s ``reach``) parts otherwise
    is added to it, for the reader to keep the parting whose parts read as hands."""
    first = card_height(blobs)
    if first is None:
        return blobs
    out, origin, card_h = _cut_rows(blobs, mask, s, min_area, first, remeasure=True)
    if other_cuts is not None:
        for i, row in enumerate(blobs):
            if blob_sides(row)[1] <= ROW_OF_HANDS * card_h:
                continue
            mine = [k for k, o in enumerate(origin) if o == i]
            other = _cut_rows([row], mask, s, min_area, card_h, reach=True)[0]
            if not _same_parts([out[k] for k in mine], other):
                other_cuts.append((mine, other))
    return out


def _cut_rows(blobs: list[Blob], mask: np.ndarray, s: float, min_area: float,
              card_h: float, reach: bool = False, remeasure: bool = False) -> tuple[
        list[Blob], list[int], float]:
    """``blobs`` each cut in two (``_cut_in_two``, with ``reach``) while longer than
    ROW_OF_HANDS card heights, 16 cuts at most: the parts, the index in ``blobs`` each
    came from, and the card height last used (with ``remeasure``, measured again after
    each cut, never under REMEASURE_FLOOR of ``card_h``; else ``card_h``)."""
    first = card_h
    out: list[Blob] = []
    origin: list[int] = []
    todo = [(b, i) for i, b in enumerate(blobs)]
    cuts = 0
    while todo:
        blob, i = todo.pop()
        parts = (_cut_in_two(blob, mask, s, min_area, reach)
                 if blob_sides(blob)[1] > ROW_OF_HANDS * card_h and cuts < 16 else [])
        cuts += bool(parts)
        if parts:
            todo += [(p, i) for p in parts]
            if remeasure:
                # the rows cut apart may now show single hands; pieces of hands cut up
                # (taken for hands) must not drive the measure down and every hand be cut
                # up in turn
                card_h = max(card_height(out + [b for b, _ in todo]) or card_h,
                             REMEASURE_FLOOR * first)
        else:
            out.append(blob)
            origin.append(i)
    return out, origin, card_h


def hands_in_row(blob: Blob, mask: np.ndarray, s: float, card_h: float) -> list[Blob]:
    """``blob``, a region longer than ROW_OF_HANDS card heights ``card_h`` that was set
    aside as not card-like (``find_blobs``' rejected), cut as a row of touching hands is
    (``_cut_rows``) in the card-white ``mask`` of the working copy (the photo reduced ``s``
    times); [] where it does not come apart. (Such a row is set aside when its court
    cards' art leaves holes in its card-white, and no erosion parts it into card-like
    regions.)

    >>> mask = np.zeros((200, 400), np.uint8)
    >>> mask[40:160, 20:150] = mask[40:160, 160:290] = 255  # two hands
    >>> mask[90:100, 150:160] = 255                          # touching
    >>> mask[70:130, 60:110] = 0                             # a court card's art
    >>> row = np.array([[20, 40], [290, 40], [290, 160], [20, 160]], np.float32)
    >>> parts = hands_in_row(Blob(row, 0.0, (155.0, 100.0), row), mask, 1.0, 100.0)
    >>> [tuple(round(side) for side in blob_sides(p)) for p in parts]
    [(119, 129), (119, 134)]
    >>> hands_in_row(Blob(row, 0.0, (155.0, 100.0), row), mask, 1.0, 200.0)  # one hand
    []
    """
    min_area = MIN_BLOB_SHARE * mask.shape[0] * mask.shape[1]
    parts = _cut_rows([blob], mask, s, min_area, card_h)[0]
    return parts if len(parts) > 1 else []


#: Two partings of a row are the same when each part's centre lies within this many
#: pixels of the photo of one of the other's (``_same_parts``).
SAME_PART = 4.0


def _same_parts(one: list[Blob], other: list[Blob]) -> bool:
    """Whether two partings of a row are the same: as many parts, each centred within
    SAME_PART pixels of one of the other's."""
    if len(one) != len(other):
        return False
    return all(min(math.dist(a.centre, b.centre) for b in other) < SAME_PART for a in one)


#: A region is cut in two only where its card-white across is narrower than this share of its
#: short side: touching hands meet at a waist, one hand spread wide has none (2026-12-03: on
#: the procedural tuning photos the cuts made were at 0.02-0.42; on hands spread 0.40-0.70
#: card heights, most wrong cuts at 0.8-0.98). Tuning and check photos read the same, printed
#: 1,220 / 1,232 -> 1,223 / 1,235; hands spread 0.55-0.70 (20 photos) 387 -> 419 of 480.
WAIST = 0.6


def _cut_in_two(blob: Blob, mask: np.ndarray, s: float, min_area: float,
                reach: bool = False) -> list[Blob]:
    """``blob`` cut across its long axis at the narrowest point of the mask's profile in
    its middle 30-70%: where there is least card-white across it, or with ``reach``
    where it reaches least far across (its first pixel to its last: a court card's art
    leaves only the card's frame, little card-white but a card's height across); [] unless
    both parts are card-like."""
    corners = blob.corners * s  # work pixels
    centre = corners.mean(axis=0)
    a, b = corners[1] - corners[0], corners[3] - corners[0]
    u = a if np.linalg.norm(a) >= np.linalg.norm(b) else b
    length = float(np.linalg.norm(u))
    u = u / max(length, 1e-6)
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    part = mask[y0:y1, x0:x1].copy()
    box = np.zeros_like(part)
    cv2.fillConvexPoly(box, np.round(corners - (x0, y0)).astype(np.int32), 255)
    part = cv2.bitwise_and(part, box)
    ys, xs = np.nonzero(part)
    lo, hi = int(0.3 * length), int(0.7 * length)
    if len(xs) == 0 or hi <= lo:
        return []
    t = (xs + x0 - centre[0]) * u[0] + (ys + y0 - centre[1]) * u[1] + length / 2
    bins = np.clip(t, 0, length).astype(int)
    # at each point along the row: how far its card-white reaches across, or how much of
    # it lies across
    if reach:
        across = (xs + x0 - centre[0]) * -u[1] + (ys + y0 - centre[1]) * u[0]
        top = np.full(int(length) + 1, -np.inf)
        bottom = np.full(int(length) + 1, np.inf)
        np.maximum.at(top, bins, across)
        np.minimum.at(bottom, bins, across)
        along = np.where(top >= bottom, top - bottom + 1, 0.0)
    else:
        along = np.bincount(bins, minlength=int(length) + 1)
    profile = np.convolve(along, np.ones(5) / 5, mode="same")
    cut = lo + int(np.argmin(profile[lo:hi]))
    if profile[cut] >= WAIST * min(np.linalg.norm(a), np.linalg.norm(b)):
        return []  # no waist: one hand, spread wide
    p = centre + (cut - length / 2) * u - (x0, y0)
    v = np.array([-u[1], u[0]])
    a_end, b_end = (tuple(round(float(c)) for c in p + sign * 2 * length * v)
                    for sign in (1, -1))
    cv2.line(part, a_end, b_end, 0, 3)
    subs, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    subs = [d + np.array([x0, y0]) for d in subs if cv2.contourArea(d) >= 0.5 * min_area]
    if len(subs) < 2 or not all(_card_like(d, 0.5 * min_area) for d in subs):
        return []
    return [_blob(d, s) for d in subs]


def frame_scale(frame: Frame) -> float:
    """Frame pixels per photo pixel (the mean, where a quadrilateral's frame shears).

    >>> box = np.array([[0, 0], [150, 0], [150, 100], [0, 100]], np.float32)
    >>> blob = Blob(box, 15000.0, (75.0, 50.0), box)
    >>> round(frame_scale(make_frame(blob, 0)), 2)   # a region 100 pixels high
    1.22
    >>> round(frame_scale(make_frame(blob, 1)), 2)   # turned: 150 pixels high
    0.81
    """
    return math.sqrt(abs(float(np.linalg.det(frame.to_frame[:, :2]))))


def make_frame(blob: Blob, k: int) -> Frame:
    p = np.roll(blob.corners, -k, axis=0)
    tl, tr, _, bl = p
    vert = float(np.linalg.norm(bl - tl))
    horiz = float(np.linalg.norm(tr - tl))
    scale = FRAME_CARD_H / max(vert, 1e-3)
    width = horiz * scale
    src = np.array([tl, tr, bl], np.float32)
    dst = np.array([[0, 0], [width, 0], [0, FRAME_CARD_H]], np.float32)
    to_frame = np.asarray(cv2.getAffineTransform(src, dst))
    to_image = np.asarray(cv2.getAffineTransform(dst, src))
    return Frame(blob, k, width, to_frame, to_image)


class Pyramid:
    """The photo and its halvings, so strips are cut from a level near their own scale."""

    def __init__(self, image: np.ndarray) -> None:
        self.levels = [image]
        #: The photo's colour cast where it clips the cards' white in a channel
        #: (``white_balance.clipped_cast``), which each strip's balance needs; set once
        #: the card-white is found.
        self.cast: np.ndarray | None = None

    def level_for(self, scale: float) -> tuple[np.ndarray, float]:
        """The level to sample from for a frame ``scale`` (frame px per full px)."""
        lvl = 0
        while scale * (2 ** (lvl + 1)) <= 0.75 and min(self.levels[-1].shape[:2]) > 64:
            lvl += 1
            if lvl >= len(self.levels):
                self.levels.append(cv2.pyrDown(self.levels[-1]))
        return self.levels[lvl], float(2**lvl)


def cut_strip(pyr: Pyramid, frame: Frame, x0: float, x1: float, top: float = 0.0,
              height: int = PATCH_H) -> np.ndarray:
    """Frame pixels [x0, x1) x [top, top + height), sampled from the photo."""
    scale = FRAME_CARD_H / max(
        float(np.linalg.norm(frame.blob.corners[(frame.k + 3) % 4] - frame.blob.corners[frame.k])),
        1e-3)
    img, f = pyr.level_for(scale)
    m = frame.to_frame.copy()
    m[:, :2] *= f  # level pixels -> frame pixels
    m[:, 2] -= (x0, top)
    w = max(1, math.ceil(x1 - x0))
    return cv2.warpAffine(img, m, (w, height), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def window_patches(strip: np.ndarray, offsets: list[int]) -> np.ndarray:
    """Patches of PATCH_W columns starting at each offset of a strip PATCH_H high."""
    out = np.empty((len(offsets), PATCH_H, PATCH_W, 3), np.uint8)
    for i, x in enumerate(offsets):
        out[i] = strip[:, x : x + PATCH_W]
    return out


def look_window(pyr: Pyramid, frame: Frame, x: float, s: float = 1.0,
                top: float = 0.0) -> np.ndarray:
    """The second look's normalised window (LOOK_H x LOOK_W) on the index whose card's left
    edge is at ``x`` along ``frame``'s top edge (its top edge ``top`` frame pixels below
    the frame's, see ``card_top``), with the card magnified ``s`` times."""
    x0 = s * x - LOOK_X
    window = cut_strip(pyr, frame.scaled(s), x0, x0 + LOOK_W, top=s * top,
                       height=LOOK_H)[:, :LOOK_W]
    return normalise_strip(window, pyr.cast)


#: How far above its frame's top edge (frame pixels) a card's top is looked for.
TOP_REACH = 14
#: Where what passes for paper reaches the top of that reach, no edge is seen: it is taken
#: for the card only when as bright as the card's paper, this share of it in every channel.
#: A near-white table (value 200; card paper ~255) passed for paper, and every index on it
#: was read through windows moved up into the table: 2026-12-04, one photo each of the
#: training designs' tables on it (seeds 930000-930029, 720 cards) read 558 right, 218
#: sure -> 580, 490; procedural decks never trained on (920000-920029) 522, 93 -> 561,
#: 383; light grey felt 677, 486 -> 681, 507. Reads on casino felts as before (procedural
#: 920000-920059, threshold decks 910000-910029, spread wide, camera tilted, printed felt;
#: the training designs' 930000-930059), 0 silent throughout. 0.95 lost 2 cards spread
#: wide; 0.85 kept fewer on the near-white table (540 right); never moving on paper from
#: the top lost 2 spread wide and 1 tilted.
TOP_SAME = 0.9


def card_top(pyr: Pyramid, frame: Frame, x: float) -> float:
    """Where the top edge of the card whose left edge is at ``x`` lies, in frame pixels
    from the frame's top edge, when it lies above it (else 0): the first of four rows of
    card paper running down to the frame's edge, in a band just right of the card's left
    edge. A hand's region can miss the top rows of a card (the region is found at reduced
    resolution and opened), and then the index is cut at the top; read through windows
    moved up to the card's edge, 30 procedural decks never trained on read 1,343 -> 1,350
    cards right."""
    band = cut_strip(pyr, frame, x + 3, x + 3 + 0.12 * FRAME_CARD_H, top=-TOP_REACH,
                     height=TOP_REACH + int(0.2 * FRAME_CARD_H)).astype(np.float32)
    inside = band[TOP_REACH:].reshape(-1, 3)
    k = int(0.85 * (len(inside) - 1))
    paper = np.partition(inside, k, axis=0)[k]  # the paper's level: its 85th percentile
    top = band[: TOP_REACH + 4]
    lo, hi = top.min(axis=2), top.max(axis=2)
    is_paper = (top >= 0.72 * paper).all(axis=2) & (hi - lo < 0.25 * float(paper.max()))
    rows = is_paper.mean(axis=1) > 0.6
    runs = np.flatnonzero(rows[:-3] & rows[1:-2] & rows[2:-1] & rows[3:])  # 4 rows of paper
    if not len(runs) or runs[0] >= TOP_REACH:
        return 0.0
    # paper from the band's very top shows no edge: a card standing that far above the
    # region, or a light table (a desk, a white cloth) passing for paper; only paper as
    # bright as the card's own is taken for the card
    if runs[0] == 0 and (np.median(top[:4].reshape(-1, 3), axis=0) < TOP_SAME * paper).any():
        return 0.0
    return float(runs[0] - TOP_REACH)
