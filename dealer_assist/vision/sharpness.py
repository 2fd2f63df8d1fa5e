"""How sharp a photo of the table is, from the edges of its cards.

A card's edge is a step from the felt to card-white. Its width (the step's height over
its steepest rise) is about two working pixels in a sharp photo whatever the cards' size:
it is the camera's and the reduction's own softness. A camera moving as it takes the photo
widens the edges across the way it moved, and a photo out of focus widens them all; the
index of a card in a hand (a few working pixels high) is then read unsure or wrong.
"""

from __future__ import annotations

import cv2
import numpy as np

#: The least step (grey levels) between card-white and the felt beside an edge point for
#: it to be measured, and the least points measured in a direction for its width to count.
EDGE_STEP, EDGE_POINTS = 40, 30
#: How far (working pixels) each way across an edge its step is read: past a camera
#: moving's widest edges (about 4). 2026-12-04: at 3 a moving camera's photos measured
#: from 3.01 (3.22 at 5); sharp photos' widest were 2.36-2.52 at 3 to 6.
STEP_REACH = 5
#: Edge directions (of 180 degrees) measured apart: a camera moving widens one of them.
DIRECTIONS = 8
#: A photo is blurred when its widest edges are BLUR_WIDTH working pixels wide and
#: BLUR_SHARE of its cards' height or more (cards photographed up close, hundreds of pixels
#: high, read well with edges a few pixels wide). 2026-12-04, 270 sharp photos (procedural
#: decks 920000-920029 on every felt, lay and condition; the held-out designs on green
#: felt, on a near-white table and in 12 MP): the widest 2.48 (3 with too few edges to
#: measure). The camera moving (1/270 of the width, ``synth.in_condition``): 3.22-3.85 on
#: green felt (30 of 30 said blurred), held-out designs 2.98-3.62 (15 of 15), light grey
#: felt 3.07-3.56 (15 of 15), a near-white table 2.58-3.41 (14 of 15) and held out
#: 2.57-3.16 (10 of 15). Out of focus (1/1280; such photos read about 90% right):
#: 2.56-2.98 (16 of 30), held out 2.44-2.99 (6 of 15). Before the step was read across
#: each edge, sharp photos on a near-white table measured up to 4.57 and 4 of 15 held out
#: were said blurred, with the line at 3.0.
BLUR_WIDTH, BLUR_SHARE = 2.7, 0.03


def edge_width(work: np.ndarray, mask: np.ndarray,
               hulls: list[np.ndarray] | None = None) -> float | None:
    """The width, in pixels of ``work`` (a BGR photo), of the edges of its card-white
    ``mask`` (uint8 0/255) in the direction they are widest (the median in each of
    ``DIRECTIONS``); None where too few edges are seen (``EDGE_POINTS``). ``hulls``: the
    outlines of the regions found to be cards (in pixels of ``work``), the only card-white
    measured (a light felt's shadow edge can leave card-white as soft as that edge).

    >>> card = np.full((200, 300, 3), 40, np.uint8)
    >>> card[50:150, 100:170] = 230
    >>> mask = np.where(card[..., 0] > 100, 255, 0).astype(np.uint8)
    >>> round(edge_width(card, mask), 1)             # a sharp step: 2 pixels (Sobel's 3x3)
    2.0
    >>> moved = cv2.blur(card, (7, 1))                # the camera moved 7 pixels sideways
    >>> round(edge_width(moved, mask), 1)            # as wide, across the way it moved
    6.9
    >>> edge_width(card, np.zeros_like(mask)) is None
    True
    >>> edge_width(card, mask, []) is None           # no region found to be cards
    True
    """
    if hulls is not None:
        cards = np.zeros_like(mask)
        cv2.fillPoly(cards, [np.round(h).astype(np.int32) for h in hulls], 255)
        mask = cv2.bitwise_and(mask, cv2.dilate(cards, np.ones((5, 5), np.uint8)))
    gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
    edge = cv2.subtract(cv2.dilate(mask, np.ones((3, 3), np.uint8)), mask)
    ys, xs = np.nonzero(edge)
    if len(ys) < EDGE_POINTS:
        return None
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    steepest = cv2.dilate(cv2.magnitude(gx, gy), np.ones((5, 5), np.uint8))
    # the step, read along the gradient across the edge (at the nearest pixels): the
    # brightest ahead of the point less the darkest behind it, STEP_REACH pixels each way.
    # (The darkest pixel anywhere near was often a pip's ink beside a soft shadow line,
    # making that soft edge look like a high step risen slowly: a wide, blurred edge.)
    along = np.arange(-STEP_REACH, STEP_REACH + 1, dtype=np.float32)
    gxs, gys = gx[ys, xs], gy[ys, xs]
    slope = np.maximum(np.hypot(gxs, gys), 1e-3)
    h, w = gray.shape
    across_x = np.clip(np.rint(xs[:, None] + (gxs / slope)[:, None] * along), 0, w - 1)
    across_y = np.clip(np.rint(ys[:, None] + (gys / slope)[:, None] * along), 0, h - 1)
    profile = gray[across_y.astype(np.intp), across_x.astype(np.intp)].astype(np.float32)
    step = profile[:, STEP_REACH:].max(axis=1) - profile[:, :STEP_REACH + 1].min(axis=1)
    ok = step >= EDGE_STEP
    # Sobel's 3x3 weighs a rise of one grey level per pixel as 8
    width = step[ok] / np.maximum(steepest[ys, xs][ok] / 8, 1e-3)
    turn = np.degrees(np.arctan2(gys[ok], gxs[ok])) % 180
    way = np.minimum((turn * DIRECTIONS / 180).astype(int), DIRECTIONS - 1)
    medians = [float(np.median(width[way == k])) for k in range(DIRECTIONS)
               if np.count_nonzero(way == k) >= EDGE_POINTS]
    return max(medians) if medians else None


def blurred(width: float | None, card_h: float | None) -> bool:
    """Whether edges ``width`` wide (``edge_width``) blur cards ``card_h`` high (both in
    working pixels) enough to say so (``BLUR_WIDTH``, ``BLUR_SHARE``).

    >>> blurred(3.6, 55.0), blurred(2.2, 55.0), blurred(3.6, 400.0), blurred(None, 55.0)
    (True, False, False, False)
    """
    if width is None:
        return False
    return width >= BLUR_WIDTH and (card_h is None or width >= BLUR_SHARE * card_h)
