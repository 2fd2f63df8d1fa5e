"""A colour cast that clips the cards' white in one channel.

Each index strip is balanced on its own card's white (``net.normalise_strip``: each
channel divided by its bright level). Under a warm lamp the camera has not balanced, the
paper's red is past what the sensor holds (blue 130, green 210, red 255 where it would be
300), so the red channel is divided by too little and a black index comes out red: a club
read as a diamond, sure. The photo's own cast is measured where the paper is not clipped
(paper in the shade of the cards over it, a card's edge), and a strip's clipped channel
is given the white level the cast says it has.
"""

from __future__ import annotations

import cv2
import numpy as np

#: A channel is clipped at this level (uint8).
CLIPPED = 250
#: Paper measured for the cast: card-white pixels no channel of which is clipped, lit at
#: least PAPER_LIT (their brightest channel) and inked at most PAPER_INK (their darkest).
PAPER_LIT, PAPER_INK = 120, 50
#: Fewer such pixels than this (of every other pixel each way) do not measure a cast;
#: about PAPER_TAKEN of them, evenly taken, do.
PAPER_SEEN, PAPER_TAKEN = 50, 2000
#: A cast is strong enough to mend when a channel of the paper is at most CAST_STRONG of
#: its brightest. A cream card stock under a balanced light measures 0.8-0.92 (procedural
#: decks); a tungsten lamp unbalanced (blue, green, red x 0.6, 0.85, 1.3) 0.47-0.53; the
#: shade (x 1.35, 1.0, 0.65) 0.56-0.64.
CAST_STRONG = 0.7


def clipped_cast(work: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """The photo's colour cast on its cards' paper (each channel's share of the
    brightest, median over paper not clipped), when it is strong (``CAST_STRONG``) and
    the paper is clipped in a channel somewhere; else None. ``work``: the photo's working
    copy (BGR uint8), ``mask``: its card-white (``geometry.card_mask``).

    >>> paper = np.zeros((40, 40, 3), np.uint8)
    >>> paper[:20] = (130, 210, 255)       # in the light: red clipped
    >>> paper[20:] = (100, 150, 215)       # in a card's shade
    >>> [round(float(c), 2) for c in clipped_cast(paper, np.full((40, 40), 255, np.uint8))]
    [0.47, 0.7, 1.0]
    >>> paper[:20] = (215, 235, 250)       # cream paper in a balanced light
    >>> paper[20:] = (180, 197, 210)
    >>> clipped_cast(paper, np.full((40, 40), 255, np.uint8)) is None
    True
    """
    # every other pixel each way is plenty, and the channels' extremes are taken by OpenCV
    # (numpy's along three channels cost 5 ms a 1080p photo, on every scan; split on a
    # strided view 0.9 ms, on a copy resized 0.2 ms)
    half = (max(1, work.shape[1] // 2), max(1, work.shape[0] // 2))
    sub = cv2.resize(work, half, interpolation=cv2.INTER_NEAREST)
    inside = cv2.resize(mask, half, interpolation=cv2.INTER_NEAREST) > 0
    b, g, r = cv2.split(sub)
    top = cv2.max(cv2.max(b, g), r)
    clipped = top >= CLIPPED
    if not (clipped & inside).any():
        return None
    at = np.flatnonzero(inside & ~clipped & (top >= PAPER_LIT)
                        & (cv2.min(cv2.min(b, g), r) > PAPER_INK))
    if len(at) < PAPER_SEEN:
        return None
    at = at[:: max(1, len(at) // PAPER_TAKEN)]
    paper = sub.reshape(-1, 3)[at].astype(np.float32)
    cast = np.median(paper / top.reshape(-1)[at, None], axis=0)
    if float(cast.min()) > CAST_STRONG:
        return None
    return np.asarray(cast / cast.max(), np.float32)


def mended_white(white: np.ndarray, cast: np.ndarray | None) -> np.ndarray:
    """A strip's white level per channel (``white``, float), its clipped channels raised
    to what ``cast`` says they are beside the channels not clipped; unchanged without a
    cast or with every channel clipped.

    >>> cast = np.array([0.47, 0.7, 1.0], np.float32)
    >>> mended_white(np.array([130.0, 210.0, 255.0], np.float32), cast).round().tolist()
    [130.0, 210.0, 300.0]
    >>> mended_white(np.array([255.0, 255.0, 255.0], np.float32), cast).tolist()
    [255.0, 255.0, 255.0]
    >>> mended_white(np.array([130.0, 210.0, 240.0], np.float32), cast).tolist()
    [130.0, 210.0, 240.0]
    """
    if cast is None:
        return white
    clipped = white >= CLIPPED
    if clipped.all() or not clipped.any():
        return white
    # the paper's brightness in the cast's own terms, from the channels that hold it
    level = float((white[~clipped] / cast[~clipped]).max())
    return np.where(clipped, np.maximum(white, level * cast), white).astype(np.float32)
