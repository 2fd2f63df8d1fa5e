"""Labelled index-corner patches for training, cut exactly as the reader cuts them.

A small scene (one hand of 1-3 spread cards on felt, any rotation, a slight perspective,
uneven light, blur, noise, JPEG) is rendered; the reader's own blob finder and frames cut
windows along the top edge of every frame; each window is labelled from the ground truth:
the card whose visible, upright index corner it sits on, or "none". Also used by
``vision enroll`` to cut patches from labelled photos.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from dealer_assist.domain.cards import DECK, RANKS, SUITS, Card

from .faces import Face
from .geometry import (
    Blob,
    Frame,
    Pyramid,
    cut_strip,
    find_blobs,
    look_window,
    make_frame,
    window_patches,
)
from .net import (
    FRAME_CARD_H,
    LOOK_H,
    LOOK_W,
    NONE,
    PATCH_H,
    PATCH_W,
    STRIDE,
    normalise_strip,
)
from .synth import _card_layer, _felt, _paste, motion_kernel
from .white_balance import clipped_cast

#: Training windows start every STEP frame pixels along the top edge.
STEP = 3
#: ... and the reader's every RUN_STEP (the network's stride).
RUN_STEP = STRIDE
POS_TOL = 0.028 * FRAME_CARD_H
AMBIGUOUS = 0.07 * FRAME_CARD_H


@dataclass
class Patches:
    x: np.ndarray  # (N, PATCH_H, PATCH_W, 3) uint8
    rank: np.ndarray  # (N,) int, NONE for no index
    suit: np.ndarray  # (N,) int, -1 where rank is NONE


def slide_offsets(frame: Frame, step: int = STEP) -> np.ndarray:
    """Left edges of the windows the reader tries along a frame's top edge."""
    lo = -0.04 * FRAME_CARD_H
    hi = max(lo, frame.width - 0.5 * FRAME_CARD_H)
    return np.arange(lo, hi + 1e-6, step)


def anchors(corners: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The two index anchors of a card with corners TL, TR, BR, BL (clockwise, TL = the
    upright index): (corner, right unit vector, down unit vector)."""
    tl, tr, br, bl = corners
    right = (tr - tl) / max(float(np.linalg.norm(tr - tl)), 1e-6)
    down = (bl - tl) / max(float(np.linalg.norm(bl - tl)), 1e-6)
    return [(tl, right, down), (br, -right, -down)]


def index_corners(frame: Frame, cards: Sequence[tuple[Card | None, np.ndarray]]) -> list[
        tuple[Card | None, float]]:
    """The index corners that read upright along ``frame``'s top edge and are not under a
    higher card: (card, x) with x in frame pixels. ``cards`` bottom first, corners in
    full-resolution pixels; a card may be None (a card is there, which is not known)."""
    out: list[tuple[Card | None, float]] = []
    polys = [c.astype(np.float32) for _, c in cards]
    for j, (card, corners) in enumerate(cards):
        h = float(np.linalg.norm(corners[3] - corners[0]))
        for corner, right, down in anchors(corners):
            # visible? the rank and the suit of the index must not be under a higher card
            probes = [corner + right * 0.08 * h + down * f * h for f in (0.08, 0.2)]
            if any(cv2.pointPolygonTest(polys[u], (float(p[0]), float(p[1])), False) >= 0
                   for u in range(j + 1, len(cards)) for p in probes):
                continue
            pf = _to_frame_points(frame, np.array([corner, corner + down * h]))
            updir = pf[0] - pf[1]
            if updir[1] >= 0 or abs(math.atan2(updir[0], -updir[1])) > math.radians(20):
                continue
            if abs(pf[0][1]) > 0.07 * FRAME_CARD_H:
                continue
            scale = float(np.linalg.norm(updir)) / FRAME_CARD_H
            if not 0.85 < scale < 1.18:
                continue
            out.append((card, float(pf[0][0])))
    return out


def label_frame(frame: Frame, cards: Sequence[tuple[Card | None, np.ndarray]],
                offsets: np.ndarray) -> np.ndarray:
    """Per window: index into DECK, -1 for none, -2 for too close to call or on the index
    of a card not known (not trained). ``cards`` bottom first, corners in full-resolution
    pixels."""
    labels = np.full(len(offsets), -1, int)
    for card, x in index_corners(frame, cards):
        d = np.abs(offsets - x)
        labels[(d <= AMBIGUOUS) & (labels == -1)] = -2
        if card is not None:
            labels[d <= POS_TOL] = DECK.index(card)
    return labels


def _to_frame_points(frame: Frame, pts: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.transform(np.asarray(pts, np.float32)[None], frame.to_frame)[0])


#: Share of rendered hands photographed moving (a tablet held by hand): a straight blur
#: in any direction, this long as a share of the card's height. Without it, 10 tuning photos
#: blurred 7 pixels (6-7% of a card's height at 1080p) read 182 of 240 cards right, 21 sure;
#: with the second look's second model trained with it, 208 and 36 (card_models/README.md).
MOTION_SHARE, MOTION_LEN = 0.35, (0.01, 0.08)
#: Share of rendered hands under a light's reflection (glossy cards): one or two bright spots
#: of this radius (card heights), this much brighter.
GLARE_SHARE, GLARE_R, GLARE_GAIN = 0.2, (0.1, 0.4), (60.0, 160.0)


def photo_effects(img: np.ndarray, rng: np.random.Generator, card_h: float,
                  mishaps: bool) -> np.ndarray:
    """A rendered hand as a camera sees it: uneven and coloured light, focus blur, sensor
    noise, JPEG; with ``mishaps`` (training), now and then a reflection (``GLARE_SHARE``)
    or the camera moving (``MOTION_SHARE``). ``card_h``: the cards' height in pixels."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-0.5, 0.5, 2)
    light = rng.uniform(0.5, 1.15) * (1.0 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5))
    cast = rng.uniform(0.85, 1.1, 3).astype(np.float32)
    out = img.astype(np.float32) * light[..., None] * cast[None, None, :]
    if mishaps and rng.random() < GLARE_SHARE:
        for _ in range(int(rng.integers(1, 3))):
            cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
            r = rng.uniform(*GLARE_R) * card_h
            spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
            out += rng.uniform(*GLARE_GAIN) * spot[..., None]
    if mishaps and rng.random() < MOTION_SHARE:
        kernel = motion_kernel(rng.uniform(*MOTION_LEN) * card_h, rng.uniform(0, math.pi))
        out = cv2.filter2D(out, -1, kernel, borderType=cv2.BORDER_REFLECT)
    out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.4))
    out += rng.normal(0, rng.uniform(1.0, 6.0), out.shape).astype(np.float32)
    img8 = np.clip(out, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", img8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 95))])
    dec = cv2.imdecode(enc, cv2.IMREAD_COLOR) if ok else img8
    return np.asarray(dec)


def hand_scene(faces: dict[Card, Face], rng: np.random.Generator,
               cards: list[Card] | None = None, mishaps: bool = False) -> tuple[
        np.ndarray, list[tuple[Card, np.ndarray]]]:
    """One spread hand on felt: the photo and its cards (bottom first) with corners;
    ``mishaps``: see ``photo_effects``."""
    n = len(cards) if cards else int(rng.choice([3, 3, 3, 3, 2, 1]))
    chosen = cards or [DECK[int(i)] for i in rng.choice(52, n, replace=False)]
    ch = float(rng.uniform(80, 280))
    size = int(ch * 2.6)
    canvas = _felt(rng, size, size)
    hangle = rng.uniform(0, 360)
    sample = faces[chosen[0]].bgra
    w = sample.shape[1] * ch / sample.shape[0]
    step = rng.uniform(0.17, 0.30) * ch
    total_w = w + (n - 1) * step
    out: list[tuple[Card, np.ndarray]] = []
    ha = math.radians(hangle)
    hc, hs = math.cos(ha), math.sin(ha)
    for k, card in enumerate(chosen):
        bgr, alpha = _card_layer(faces[card], round(ch))
        chh, cw = alpha.shape
        a = math.radians(hangle + float(rng.normal(0, 1.5)))
        c, s = math.cos(a), math.sin(a)
        lx = -total_w / 2 + k * step + float(rng.normal(0, 0.01 * ch))
        ly = -chh / 2 + float(rng.normal(0, 0.025 * ch))
        tx = size / 2 + hc * lx - hs * ly
        ty = size / 2 + hs * lx + hc * ly
        m = np.array([[c, -s, tx], [s, c, ty]], np.float32)
        _paste(canvas, bgr, alpha, m, shadow=float(rng.uniform(0.2, 0.55)), rng=rng)
        corners = cv2.transform(np.array([[[0, 0], [cw, 0], [cw, chh], [0, chh]]], np.float32),
                                m)[0]
        out.append((card, corners))
    # a slight perspective
    src = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    dst = (src + rng.uniform(-0.06, 0.06, (4, 2)) * size).astype(np.float32)
    hm = cv2.getPerspectiveTransform(src, dst)
    lo = dst.min(0)
    hm = np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]]) @ hm
    ow, oh = (dst.max(0) - lo).astype(int)
    img = cv2.warpPerspective(canvas, hm, (int(ow), int(oh)), borderMode=cv2.BORDER_REFLECT)
    out = [(c, cv2.perspectiveTransform(p[None], hm)[0]) for c, p in out]
    return photo_effects(img, rng, ch, mishaps), out


def patches_from_photo(img: np.ndarray, cards: Sequence[tuple[Card | None, np.ndarray]],
                       rng: np.random.Generator, keep_none: float = 0.3) -> Patches:
    """Cut the reader's windows from a photo with known cards and label them (a card
    None: its index is not trained on, as neither an index nor none)."""
    xs: list[np.ndarray] = []
    ranks: list[int] = []
    suits: list[int] = []
    pyr, blobs = _found(img)
    for blob in blobs:
        inside = _cards_in(blob.corners, cards)
        for k in range(4):
            frame = make_frame(blob, k)
            offs = slide_offsets(frame)
            labels = label_frame(frame, inside, offs)
            pick = [i for i, lab in enumerate(labels)
                    if lab >= 0 or (lab == -1 and rng.random() < keep_none)]
            if not pick:
                continue
            x0 = float(offs[0])
            strip = normalise_strip(cut_strip(pyr, frame, x0, float(offs[-1]) + PATCH_W + 1),
                                   pyr.cast)
            ints = [round(float(offs[i]) - x0) for i in pick]
            xs.append(window_patches(strip, ints))
            for i in pick:
                lab = int(labels[i])
                if lab >= 0:
                    card = DECK[lab]
                    ranks.append(RANKS.index(card.rank))
                    suits.append(SUITS.index(card.suit))
                else:
                    ranks.append(NONE)
                    suits.append(-1)
    if not xs:
        return Patches(np.zeros((0, PATCH_H, PATCH_W, 3), np.uint8), np.zeros(0, int),
                       np.zeros(0, int))
    return Patches(np.concatenate(xs), np.array(ranks), np.array(suits))


def _found(img: np.ndarray) -> tuple[Pyramid, list[Blob]]:
    """A photo's card regions, and its pyramid to cut windows from, with the colour cast
    that clips its cards' white, as the reader measures it (``white_balance``): an
    enrolled deck's windows are balanced as the reader's are."""
    white: list[tuple[np.ndarray, np.ndarray]] = []
    blobs = find_blobs(img, white=white)
    pyr = Pyramid(img)
    pyr.cast = clipped_cast(*white[0])
    return pyr, blobs


def _cards_in(blob_corners: np.ndarray, cards: Sequence[tuple[Card | None, np.ndarray]]
              ) -> list[tuple[Card | None, np.ndarray]]:
    return [(c, p) for c, p in cards
            if cv2.pointPolygonTest(blob_corners.reshape(-1, 1, 2),
                                    tuple(map(float, p.mean(0))), False) >= 0]


#: Where the reader puts a found card's edge against where it is (frame pixels, measured on
#: generated tables: mean 0.6, standard deviation 2.7): the second look is trained on
#: windows cut that far off, with the card at each of these sizes (the reader reads it at
#: some of them, ``reader.LOOK_SIZES``).
LOOK_SHIFT = (0.6, 2.7, 6.0)  # mean, deviation, limit
LOOK_TRAIN_SIZES = (1.0, 0.9, 1.1)


def looks_from_photo(img: np.ndarray, cards: Sequence[tuple[Card | None, np.ndarray]],
                     rng: np.random.Generator) -> Patches:
    """The second look's windows (``geometry.look_window``) on every visible index of a
    photo with known cards, cut as the reader cuts them: at the card's edge give or take
    the reader's error (``LOOK_SHIFT``), at each size of ``LOOK_TRAIN_SIZES``."""
    xs: list[np.ndarray] = []
    ranks: list[int] = []
    suits: list[int] = []
    pyr, blobs = _found(img)
    mean, sd, limit = LOOK_SHIFT
    for blob in blobs:
        inside = _cards_in(blob.corners, cards)
        for k in range(4):
            frame = make_frame(blob, k)
            for card, x in index_corners(frame, inside):
                if card is None:
                    continue
                at = x + float(np.clip(rng.normal(mean, sd), -limit, limit))
                for s in LOOK_TRAIN_SIZES:
                    xs.append(look_window(pyr, frame, at, s))
                    ranks.append(RANKS.index(card.rank))
                    suits.append(SUITS.index(card.suit))
    if not xs:
        return Patches(np.zeros((0, LOOK_H, LOOK_W, 3), np.uint8), np.zeros(0, int),
                       np.zeros(0, int))
    return Patches(np.stack(xs), np.array(ranks), np.array(suits))


def _synth(faces: dict[Card, Face], seed: int, scenes: int,
           cut: Callable[..., Patches]) -> Patches:
    rng = np.random.default_rng(seed)
    parts = [cut(*hand_scene(faces, rng, mishaps=True), rng=rng) for _ in range(scenes)]
    return Patches(np.concatenate([p.x for p in parts]), np.concatenate([p.rank for p in parts]),
                   np.concatenate([p.suit for p in parts]))


def synth_looks(faces: dict[Card, Face], seed: int, scenes: int) -> Patches:
    """``looks_from_photo`` over ``scenes`` rendered hands."""
    return _synth(faces, seed, scenes, looks_from_photo)


def synth_patches(faces: dict[Card, Face], seed: int, scenes: int) -> Patches:
    """``patches_from_photo`` over ``scenes`` rendered hands."""
    return _synth(faces, seed, scenes, patches_from_photo)
