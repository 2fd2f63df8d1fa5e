"""How much colour a photo shows: in a photo of faint colour red suits look black.

A photo whose colour is drained (a phone's faded or mono filter, a camera's colour turned
down) shows hearts and diamonds nearly as dark as spades and clubs, and the index networks,
which learnt the suit's colour with its shape, read them black, sure. A photo with no colour
at all is refused when it is loaded (``loading.colourless``: its channels equal, as a
black-and-white JPEG's, or about 2% of its colour left). One showing less than
``RAISE_UNDER`` is read with its colour raised (``raised``); one showing less than
``FAINT_COLOUR`` is told so too, and each of its reads sent to the dealer
(``reader.FAINT_NOTE``).

2026-12-08, 30 tuning photos each of procedural decks (920000-) and of the training
designs (930000-), cards read right of 720 (silent errors), before and after:

| colour left | procedural | training designs |
|---|---|---|
| 5% | 380 (42) -> 596 (0) | 383 (55) -> 667 (0) |
| 15% | 418 (17) -> 670 (0) | 469 (15) -> 714 (0) |
| 30% | 617 (0) -> 692 (0) | 682 (0) -> 705 (0) |
| 40% | 653 (0) -> 669 (0) | 711 (0) -> 714 (0) |
| all of it | 704 (0), the same | 715 (0), the same |

Read raised but not sent, those with 5% of their colour left held 1 silent error
(procedural), with 15% none: every read of a photo that faint is sent.
"""

from __future__ import annotations

import cv2
import numpy as np

#: The colour a photo shows is the colour its COLOUR_PIXELS-th most colourful pixel of the
#: working copy (``geometry.reduce``, at most 1,000 pixels a side) reaches: a red index or
#: two, a chip, a court card's robe, the felt; not a pixel or two of noise.
COLOUR_PIXELS = 50
#: A photo showing less colour than this (``colour_shown``) is told that its suits' colours
#: may not be told apart, and one showing less than RAISE_UNDER is read with its colour
#: raised. 2026-12-08, 30 tuning photos of each kind in each of 28 sets (every set of
#: ``scripts/vision_sweep``, each of ``synth.CONDITIONS`` and of ``benchmarks/vision.py``'s
#: exposures, cards face down, a hand printed on the felt, chips on the cards) showed
#: 58-99 as taken (58: a training design laid apart at 12 MP; every other set 66 or more),
#: so none is raised or told; the four sample photos 80-94. With 40% of their colour left
#: 40-70, 30% 32-62, 15% 18-41, 5% 7-18, none 0.
FAINT_COLOUR, RAISE_UNDER = 45.0, 55.0
#: A photo of faint colour is read with its colour raised so that it shows RAISED_TO (as a
#: photo as taken does: ``FAINT_COLOUR``), at most RAISE_MOST times. Every photo under 90
#: raised so (half the plain tuning photos) read the same cards right, one fewer sure.
RAISED_TO, RAISE_MOST = 90.0, 12.0
#: Pixels darker than this (8-bit) are measured against it, not their own brightness: the
#: noise of a dark pixel is no colour.
DARK = 32


def colour_shown(work: np.ndarray) -> float:
    """How much colour a photo's working copy (BGR) shows: the chroma its
    ``COLOUR_PIXELS``-th most colourful pixel reaches, lightly smoothed, in percent of the
    pixel's brightness (its brightest channel; ``DARK`` at least).

    >>> grey = np.full((100, 100, 3), 128, np.uint8)
    >>> colour_shown(grey)
    0.0
    >>> grey[40:60, 40:60] = (40, 40, 200)               # a red index's ink
    >>> round(colour_shown(grey))
    80
    >>> faded = grey.copy()
    >>> faded[40:60, 40:60] = (100, 100, 124)            # the same, its colour drained
    >>> colour_shown(faded) < FAINT_COLOUR
    True
    """
    b, g, r = cv2.split(cv2.GaussianBlur(work, (0, 0), 1.0))
    top, bottom = cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r)
    # in whole percent, on 8 bits: cv2's arithmetic, not numpy's, as it runs on every read
    chroma = cv2.divide(cv2.subtract(top, bottom), np.maximum(top, np.uint8(DARK)), scale=100.0)
    counts = np.bincount(chroma.ravel(), minlength=256)
    above = np.cumsum(counts[::-1])  # pixels at least as colourful as 255, 254, ...
    return float(255 - int(np.searchsorted(above, min(COLOUR_PIXELS + 1, chroma.size))))


def raised(image: np.ndarray, shown: float) -> np.ndarray:
    """A BGR photo showing ``shown`` colour (``colour_shown``) with its colour raised
    ``RAISED_TO / shown`` times (at most ``RAISE_MOST``): each pixel's distance from its
    grey (the mean of its channels), its grey kept, cut to 8 bits.

    >>> px = np.array([[[100, 100, 124]]], np.uint8)     # grey 108, red 16 above it
    >>> raised(px, 30.0)[0, 0].tolist()                    # three times as far
    [84, 84, 156]
    """
    k = min(RAISE_MOST, RAISED_TO / max(shown, 1e-3))
    mix = np.full((3, 3), (1.0 - k) / 3.0, np.float32) + k * np.eye(3, dtype=np.float32)
    return np.asarray(cv2.transform(image, mix))
