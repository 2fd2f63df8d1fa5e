"""Synthetic table photos with their ground truth, reproducible from a seed.

A scene is composed on a flat "table plane" (felt, up to seven player hands along an arc and
the dealer's hand across from them, each hand three cards spread so that the lower cards
show only their index strip), then photographed: any rotation, a moderate perspective,
uneven light, a colour cast, blur, sensor noise and JPEG compression.

With ``layout=True`` the felt is a casino's Three Card Poker layout: each seat's betting
circles (ante, play, pair plus) printed in white or gold, with chips on most of them (white
chips among them), the game's name and its dealer rule printed across the table, and the
dealer's chip tray: things a real table photo shows that are not cards. ``in_condition``
changes a photo the ways a real one can differ (:data:`CONDITIONS`: the floor around the
table, warm dim light, a tilted camera, a wider 12 MP frame, a hard shadow),
``compose(felt=...)`` draws a chosen felt. ``up_close`` draws a phone's photo of one to
three hands, as sharp as the faces it is given.

Ground truth per card: the card, its four corners in the photo (clockwise from the corner
whose index reads upright), the hand number and the seat (1..7, or ``"dealer"``). The seat
zones (as an admin would draw them) come with every scene, as polygons in photo pixels.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from dealer_assist.domain.cards import DECK, Card

from .faces import Face

Seat = int | str

#: Card height on the table plane, in pixels (the photo then scales it).
PLANE_CARD_H = 180
PLANE_W, PLANE_H = 2600, 1500
#: A larger table (``compose(table=...)``) is drawn magnified so that its cards have this
#: many times as many pixels as in the photo (at its centre; a card nearer the camera is
#: shown up to about 10% larger): no card is drawn from fewer pixels than it is shown with.
SHARP_MARGIN = 1.2


@dataclass
class TruthCard:
    card: str
    corners: list[list[float]]
    hand: int
    seat: Seat
    deck: str


@dataclass
class Scene:
    image: np.ndarray  # BGR uint8, before JPEG encoding
    jpeg: bytes
    cards: list[TruthCard]
    zones: dict[str, list[list[float]]]
    meta: dict[str, Any] = field(default_factory=dict)

    def truth(self) -> dict[str, Any]:
        return {
            "cards": [
                {"card": c.card, "corners": c.corners, "hand": c.hand, "seat": c.seat,
                 "deck": c.deck}
                for c in self.cards
            ],
            "zones": self.zones,
            "meta": self.meta,
        }


def _felt(rng: np.random.Generator, w: int, h: int,
          hsv: tuple[float, float, float] | None = None) -> np.ndarray:
    hue = float(rng.choice([rng.uniform(35, 85), rng.uniform(95, 125), rng.uniform(0, 180)]))
    sat = rng.uniform(110, 240)
    val = rng.uniform(60, 150)
    if hsv is not None:  # drawn all the same: the rest of the photo is as without it
        hue, sat, val = hsv
    base = np.array([[[hue, sat, val]]], np.uint8)
    bgr = cv2.cvtColor(base, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
    small = rng.normal(0, 1, (h // 16 + 1, w // 16 + 1)).astype(np.float32)
    tex = cv2.resize(cv2.GaussianBlur(small, (0, 0), 2.0), (w, h), interpolation=cv2.INTER_LINEAR)
    fine = rng.normal(0, 1, (h, w)).astype(np.float32)
    img = bgr[None, None, :] * (1.0 + 0.05 * tex[..., None] + 0.03 * fine[..., None])
    return np.asarray(np.clip(img, 0, 255))


def _card_layer(face: Face, h: int) -> tuple[np.ndarray, np.ndarray]:
    src = face.bgra
    w = round(src.shape[1] * h / src.shape[0])
    img = cv2.resize(src, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    return img[..., :3], img[..., 3] / 255.0


def _paste(canvas: np.ndarray, bgr: np.ndarray, alpha: np.ndarray, m: np.ndarray,
           shadow: float, rng: np.random.Generator, zoom: float = 1.0) -> None:
    """Warp a card (affine ``m``) onto ``canvas`` with a soft shadow under it (its offset
    and softness in pixels of a canvas ``zoom`` times the table plane)."""
    h, w = alpha.shape
    pts = cv2.transform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), m)[0]
    x0, y0 = np.floor(pts.min(0)).astype(int) - 12
    x1, y1 = np.ceil(pts.max(0)).astype(int) + 12
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, canvas.shape[1]), min(y1, canvas.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    mm = m.copy()
    mm[:, 2] -= (x0, y0)
    size = (x1 - x0, y1 - y0)
    wb = cv2.warpAffine(bgr, mm, size, flags=cv2.INTER_LINEAR, borderValue=0)
    wa = cv2.warpAffine(alpha, mm, size, flags=cv2.INTER_LINEAR, borderValue=0)
    roi = canvas[y0:y1, x0:x1]
    if shadow > 0:
        sh = np.roll(wa, (round(zoom * int(rng.integers(1, 4))),
                          round(zoom * int(rng.integers(-2, 3)))), axis=(0, 1))
        sh = cv2.GaussianBlur(sh, (0, 0), 2.5 * zoom) * shadow
        roi *= (1.0 - sh)[..., None]
    roi *= (1.0 - wa)[..., None]
    roi += wb * wa[..., None]


#: Chip colours (BGR): white, red, green, black, blue, purple, yellow.
CHIPS = ((236, 236, 236), (40, 40, 190), (60, 140, 40), (35, 35, 35), (170, 80, 30),
         (140, 50, 120), (40, 200, 230))
GOLD, WHITE = (70, 175, 215), (232, 232, 232)


def _chip(canvas: np.ndarray, centre: tuple[float, float], r: float,
          rng: np.random.Generator) -> None:
    """A chip seen from above: a disc with contrasting spots around its edge and a ring."""
    body = CHIPS[int(rng.integers(len(CHIPS)))]
    spot = WHITE if body != CHIPS[0] else CHIPS[1 + int(rng.integers(len(CHIPS) - 1))]
    c = (round(centre[0]), round(centre[1]))
    cv2.circle(canvas, c, round(r), body, -1, cv2.LINE_AA)
    turn = float(rng.uniform(0, 45))
    for a in range(0, 360, 45):
        t = math.radians(a + turn)
        cv2.circle(canvas, (round(c[0] + 0.8 * r * math.cos(t)), round(c[1] + 0.8 * r * math.sin(t))),
                   max(1, round(0.16 * r)), spot, -1, cv2.LINE_AA)
    cv2.circle(canvas, c, round(0.55 * r), spot, max(1, round(0.06 * r)), cv2.LINE_AA)


def _print_layout(canvas: np.ndarray, places: list[tuple[Seat, float, float, float]],
                  playing: set[Seat], card_h: float, rng: np.random.Generator,
                  bets: bool = True, zoom: float = 1.0) -> None:
    """A casino's layout on the felt: each seat's three betting circles beyond its hand,
    chips on most of the ``playing`` seats' circles (unless not ``bets``: drawn aside, so
    the same draws are made), the game's name and dealer rule across the table, the chip
    tray. ``places`` and ``card_h`` in pixels of a canvas ``zoom`` times the table plane."""
    aside = canvas if bets else canvas.copy()
    ink = WHITE if rng.random() < 0.5 else GOLD
    line = max(2, round(0.025 * card_h))
    cx, cy = zoom * PLANE_W / 2, zoom * PLANE_H * 0.25
    font = cv2.FONT_HERSHEY_SIMPLEX
    for seat, x, y, _ in places:
        if seat == "dealer":
            continue
        ux, uy = x - cx, y - cy
        n = math.hypot(ux, uy)
        ux, uy = ux / n, uy / n
        # play and ante side by side beyond the hand, pair plus behind them
        for label, out, along in (("PLAY", 1.5, -0.45), ("ANTE", 1.5, 0.45),
                                  ("PAIR PLUS", 2.35, 0.0)):
            px = x + ux * out * card_h - uy * along * card_h
            py = y + uy * out * card_h + ux * along * card_h
            cv2.circle(canvas, (round(px), round(py)), round(0.37 * card_h), ink, line,
                       cv2.LINE_AA)
            scale = 0.0038 * card_h
            (tw, _), _ = cv2.getTextSize(label, font, scale, line)
            cv2.putText(canvas, label, (round(px - tw / 2), round(py + 0.28 * card_h)), font,
                        scale, ink, line, cv2.LINE_AA)
            if seat in playing and rng.random() < 0.75:  # a chip, or two side by side
                offsets = (0.0,) if rng.random() < 0.6 else (-0.11, 0.11)
                for dx in offsets:
                    _chip(aside, (px + dx * card_h, py - 0.05 * card_h), 0.2 * card_h, rng)
    for k, text in enumerate(("THREE CARD POKER", "DEALER PLAYS WITH QUEEN HIGH OR BETTER")):
        scale, thick = (0.014 - 0.006 * k) * card_h, round((0.05 - 0.02 * k) * card_h)
        (tw, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thick)
        cv2.putText(canvas, text, (round(cx - tw / 2), round(cy + (2.2 + 0.6 * k) * card_h)),
                    cv2.FONT_HERSHEY_DUPLEX, scale, ink, thick, cv2.LINE_AA)
    # the chip tray behind the dealer: tubes of chips seen edge on, as stripes
    x0, y0, tube, deep = cx - 3.0 * card_h, cy - 1.4 * card_h, 0.26 * card_h, 0.55 * card_h
    cv2.rectangle(canvas, (round(x0 - 10), round(y0 - 10)),
                  (round(x0 + 20 * tube + 10), round(y0 + deep + 10)), (30, 30, 30), -1)
    for i in range(20):
        colour = CHIPS[int(rng.integers(len(CHIPS)))]
        for j in range(0, round(deep), max(2, round(0.04 * card_h))):
            cv2.rectangle(canvas, (round(x0 + i * tube + 2), round(y0 + j)),
                          (round(x0 + (i + 1) * tube - 2), round(y0 + j + 0.03 * card_h)),
                          colour, -1)


def _lay_chips(canvas: np.ndarray, cards: list[tuple[str, np.ndarray]], n: int,
               card_h: float, rng: np.random.Generator,
               place: Callable[[np.ndarray, float, np.random.Generator], np.ndarray],
               ) -> list[str]:
    """Lay a chip on each of ``n`` of ``cards`` (name, corners TL TR BR BL) drawn at
    random, where ``place`` puts it on the card; the names of those cards."""
    if not n:
        return []
    names = []
    for k in rng.choice(len(cards), size=min(n, len(cards)), replace=False):
        name, corners = cards[int(k)]
        at = place(corners, card_h, rng)
        _chip(canvas, (float(at[0]), float(at[1])), 0.2 * card_h, rng)
        names.append(name)
    return names


def _anywhere_on(corners: np.ndarray, card_h: float, rng: np.random.Generator) -> np.ndarray:
    """A point on the card's diagonal (a payout pushed against a hand, a marker)."""
    return np.asarray(corners[0] + (corners[2] - corners[0]) * rng.uniform(0, 1))


def _over_an_index(corners: np.ndarray, card_h: float,
                   rng: np.random.Generator) -> np.ndarray:
    """A point over one of the card's index corners, up to 0.3 card heights in from its
    side and 0.05-0.45 down from its end (a bet pushed up against the hand)."""
    tl, tr, br, bl = corners
    across, along = (tr - tl) / np.linalg.norm(tr - tl), (bl - tl) / np.linalg.norm(bl - tl)
    corner, sign = (tl, 1.0) if rng.random() < 0.5 else (br, -1.0)
    return np.asarray(corner + sign * card_h * (across * rng.uniform(0.0, 0.3)
                                                + along * rng.uniform(0.05, 0.45)))


#: The size of the cards of a hand printed on the felt (``compose(pictured=True)``), as a
#: share of the cards dealt.
PICTURED = 0.55


def _picture_hand(canvas: np.ndarray, faces: list[Face],
                  places: list[tuple[Seat, float, float, float]], card_h: float,
                  full: np.ndarray, size: tuple[int, int],
                  rng: np.random.Generator, zoom: float = 1.0) -> list[np.ndarray]:
    """Print a fanned hand of ``faces``, PICTURED as large as the cards dealt, on the felt
    around the dealer, away from every hand and inside the photo (``full`` takes the
    canvas, ``zoom`` times the table plane as ``places`` and ``card_h`` are, to the photo
    of ``size``); its cards' corners on the canvas."""
    cx, cy = zoom * PLANE_W / 2, zoom * PLANE_H * 0.25
    spots = np.array([(cx + dx * card_h, cy + dy * card_h) for dx in np.arange(-4.0, 4.01, 0.5)
                      for dy in np.arange(-1.0, 4.01, 0.5)], np.float32)
    seen = cv2.perspectiveTransform(spots[None], full)[0]
    margin = 0.1 * min(size)
    free = [p for p, q in zip(spots, seen, strict=True)
            if min(math.hypot(p[0] - x, p[1] - y) for _, x, y, _ in places) > 1.6 * card_h
            and margin < q[0] < size[0] - margin and margin < q[1] < size[1] - margin]
    if not free:
        raise ValueError("no room on the felt for a pictured hand")
    px, py = free[int(rng.integers(len(free)))]
    a = math.radians(rng.uniform(-30, 30))
    c, s = math.cos(a), math.sin(a)
    h = round(PICTURED * card_h)
    out = []
    for k, face in enumerate(faces):
        bgr, alpha = _card_layer(face, h)
        lx, ly = (k - 1) * 0.22 * h - bgr.shape[1] / 2, -h / 2
        m = np.array([[c, -s, px + c * lx - s * ly], [s, c, py + s * lx + c * ly]], np.float32)
        _paste(canvas, bgr, alpha, m, shadow=0.0, rng=rng)
        w = bgr.shape[1]
        out.append(cv2.transform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), m)[0])
    return out


def _hand_layout(noise: np.ndarray, compact: float) -> list[tuple[Seat, float, float, float]]:
    """(seat, x, y, angle) of each hand's centre on the table plane; angles in degrees.
    ``noise``: 9 standard normal draws; ``compact`` shrinks the arc (1.0 = full size)."""
    cx, cy = PLANE_W / 2, PLANE_H * 0.25
    rx, ry = PLANE_W * 0.30 * compact, PLANE_H * 0.50 * compact
    out: list[tuple[Seat, float, float, float]] = []
    for i in range(7):
        # seat 1 at the dealer's left (photo right), seat 7 at the far left
        t = math.radians(18 + i * (144 / 6))
        x = cx + rx * math.cos(t)
        y = cy + ry * math.sin(t)
        angle = math.degrees(t) - 90 + 6 * float(noise[i])
        out.append((i + 1, x, y, angle))
    out.append(("dealer", cx + 20 * float(noise[7]), cy + 40.0, 5 * float(noise[8])))
    return out


def _fit(points: np.ndarray, hmat: np.ndarray, rot: float, out_w: int, out_h: int,
         shrink: float) -> np.ndarray:
    """The full plane -> photo homography that rotates and fits ``points`` in the frame."""
    pts = cv2.perspectiveTransform(points[None].astype(np.float32), hmat)[0]
    ca, sa = math.cos(math.radians(rot)), math.sin(math.radians(rot))
    r = np.array([[ca, -sa, 0], [sa, ca, 0], [0, 0, 1]])
    pts_r = pts @ r[:2, :2].T
    lo, hi = pts_r.min(0), pts_r.max(0)
    scale = min(out_w * 0.94 / (hi[0] - lo[0]), out_h * 0.94 / (hi[1] - lo[1])) * shrink
    mid = (lo + hi) / 2
    t = np.array([[scale, 0, out_w / 2 - scale * mid[0]],
                  [0, scale, out_h / 2 - scale * mid[1]], [0, 0, 1]])
    return np.asarray(t @ r @ hmat)


def _zone(x: float, y: float, angle: float, w: float, h: float) -> np.ndarray:
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    rect = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    rot = np.array([[c, -s], [s, c]])
    return np.asarray(rect @ rot.T + np.array([x, y]))


def _photographed(img: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, bytes, int]:
    """``img`` (float BGR) as a camera takes it: a smooth gradient of light and a spot, a
    colour cast, the lens's softness, sensor noise; the 8-bit photo, its JPEG and the
    JPEG's quality."""
    out_h, out_w = img.shape[:2]
    yy, xx = np.mgrid[0:out_h, 0:out_w].astype(np.float32)
    gx, gy = rng.uniform(-0.35, 0.35, 2)
    light = 1.0 + gx * (xx / out_w - 0.5) + gy * (yy / out_h - 0.5)
    sx, sy = rng.uniform(0, out_w), rng.uniform(0, out_h)
    spot = np.exp(-(((xx - sx) ** 2 + (yy - sy) ** 2) / (2 * (0.35 * out_w) ** 2)))
    light = light * rng.uniform(0.65, 0.95) + rng.uniform(0.1, 0.35) * spot
    cast = rng.uniform(0.88, 1.08, 3).astype(np.float32)
    img = img * light[..., None] * cast[None, None, :]
    sigma = rng.uniform(0.3, 1.1) * out_w / 1920
    img = cv2.GaussianBlur(img, (0, 0), sigma)
    img += rng.normal(0, rng.uniform(1.5, 5.0), img.shape).astype(np.float32)
    img8 = np.clip(img, 0, 255).astype(np.uint8)
    quality = int(rng.integers(60, 95))
    ok, enc = cv2.imencode(".jpg", img8, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return img8, enc.tobytes(), quality


#: A lamp's reflection in glossy cards (``compose(glare=True)``): one or two, each a pool of
#: light this wide (card heights) and this much brighter (8-bit levels) at its middle,
#: flat there and soft at its rim, centred within a card height of a card; the matte
#: felt shows GLARE_FELT of it.
GLARE_R, GLARE_GAIN, GLARE_FELT = (0.25, 0.7), (120.0, 230.0), 0.15


def lamp_glare(img: np.ndarray, paper: np.ndarray, cards: np.ndarray,
               rng: np.random.Generator) -> np.ndarray:
    """``img`` (float BGR) with a lamp reflected in its glossy cards: ``paper`` is 1 on
    the cards, 0 on the felt; ``cards``: each card's four corners in the photo (the
    reflection is drawn over the cards, where it matters)."""
    h, w = img.shape[:2]
    card_h = float(np.median(np.linalg.norm(cards[:, 3] - cards[:, 0], axis=1)))
    centres = cards.mean(axis=1)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = np.zeros((h, w), np.float32)
    for _ in range(int(rng.integers(1, 3))):
        cx, cy = centres[int(rng.integers(len(centres)))] + rng.uniform(-1, 1, 2) * card_h
        r = rng.uniform(*GLARE_R) * card_h
        pool = np.exp(-((((xx - cx) ** 2 + (yy - cy) ** 2) / (r * r)) ** 2))
        light = np.maximum(light, rng.uniform(*GLARE_GAIN) * pool)
    gloss = paper + GLARE_FELT * (1.0 - paper)
    return img + (light * gloss)[..., None]


def compose(
    decks: dict[str, dict[Card, Face]],
    seed: int,
    size: tuple[int, int] = (1920, 1080),
    seats: int | None = None,
    hard: bool = True,
    layout: bool = False,
    empty: bool = False,
    view: int | None = None,
    felt: tuple[float, float, float] | None = None,
    spread: tuple[float, float] = (0.19, 0.27),
    table: float = 1.0,
    glare: bool = False,
    face_down: tuple[int, ...] = (),
    back: np.ndarray | None = None,
    pictured: bool = False,
    chips_on: int = 0,
    chips_over_index: int = 0,
) -> Scene:
    """Compose one table photo. ``decks``: faces per design; one design is drawn per scene.
    ``seats``: number of occupied player seats (1..7, random when None). ``layout``: the
    felt printed with a casino's layout, chips on it (drawn from their own seed, so the
    cards lie where they do without it). ``empty``: the same photo without the cards and
    bets (the reference photo of the empty layout seat zones are drawn on; the truth still
    lists the cards that photo leaves out). ``view``: the camera moved (turned up to 15
    degrees, its tilt and distance changed a little; drawn from its own seed), as a tablet
    held from about the same place again; the table and the light are the same. ``felt``:
    the felt's colour (OpenCV's hue 0-180, saturation and value 0-255) in place of a
    random saturated one (a grey felt: ``(0, 0, 160)``); the rest of the photo is the same.
    ``spread``: the range each hand's spread is drawn from (from one card's left edge to
    the next's, in card heights; a card is 0.71 wide, so past that its cards lie apart).
    ``table``: the table's size in card heights against the default, whose seats lie about
    1.7 card heights apart, closer than a casino's (2.5: about a real table's; see
    ``LAYS``); its cards are drawn smaller on the same felt, the felt drawn magnified
    where the photo shows them larger than that (``SHARP_MARGIN``). With both left as they are,
    the photo is the one drawn before they were added. ``glare``: a lamp above the table
    reflected in the glossy cards (``lamp_glare``); the matte felt around them barely
    shows it; the photo is otherwise the same. ``face_down``: hands (numbered as in the
    truth, the dealer's last) lying face down, drawn with ``back`` (BGRA,
    ``faces.load_back``); the truth leaves their cards out (nothing there is to be read)
    and ``meta["face_down"]`` lists their corners. ``pictured``: a hand of three other cards
    printed on the felt around the dealer, PICTURED times as large (a pay table's art; in
    the empty layout's photo too), in ``meta["pictured"]``, not in the truth.
    ``chips_on``: that many chips lying on cards (a payout pushed against a hand, a
    marker), each centred on a card drawn at random, anywhere on it; the truth is the
    same. ``chips_over_index``: that many chips lying over cards' index corners, the
    rank or the suit or both hidden (a bet pushed up against the hand; drawn from their own
    seed after ``chips_on``'s): the index corner on the left of a card drawn at random or
    the one on its right, the chip's centre up to 0.3 card heights in from the side and
    0.05-0.45 down from the end; ``meta["chips_over_index"]`` names those cards (a
    face-down one among them, if ``face_down`` lays any)."""
    rng = np.random.default_rng(seed)
    deck_name = sorted(decks)[int(rng.integers(len(decks)))]
    faces = decks[deck_name]
    n_seats = int(seats if seats is not None else rng.choice([7, 7, 7, 6, 5, 4, 3, 2, 1]))
    order = rng.permutation(len(DECK))
    canvas = _felt(rng, PLANE_W, PLANE_H, felt)
    felt_colour = np.median(canvas[::50, ::50].reshape(-1, 3), axis=0).astype(np.float32)
    noise = rng.normal(0, 1, 9)
    occupied = [*sorted(rng.choice(7, size=n_seats, replace=False).tolist()), 7]
    card_h = PLANE_CARD_H * rng.uniform(0.9, 1.1) / table
    out_w, out_h = size
    src = np.array([[0, 0], [PLANE_W, 0], [PLANE_W, PLANE_H], [0, PLANE_H]], np.float32)
    rot = rng.uniform(0, 360) if hard else rng.uniform(-10, 10)
    persp = 0.10 if hard else 0.04
    jitter = rng.uniform(-persp, persp, (4, 2)) * np.array([PLANE_W, PLANE_H])
    hmat = cv2.getPerspectiveTransform(src, (src + jitter).astype(np.float32))
    shrink = rng.uniform(0.9, 1.0)
    # the photo frames the table as tightly as it can: a more compact arc when rotated
    for compact in (1.0, 0.93, 0.87, 0.82):
        places = _hand_layout(noise, compact)
        half = 1.3 + spread[1] - 0.27
        pts = np.array([[x + dx, y + dy] for _, x, y, _ in places
                        for dx in (-half * card_h, half * card_h) for dy in (-card_h, card_h)])
        full = _fit(pts, hmat, rot, out_w, out_h, shrink)
        probe = cv2.perspectiveTransform(
            np.array([[[PLANE_W / 2, PLANE_H / 2], [PLANE_W / 2, PLANE_H / 2 + card_h]]],
                     np.float32), full)[0]
        if np.linalg.norm(probe[1] - probe[0]) >= 0.12 * min(out_w, out_h):
            break
    if view is not None:  # the same table, the camera moved
        moved = np.random.default_rng([seed, view, 3])
        jitter = jitter + moved.uniform(-0.03, 0.03, (4, 2)) * np.array([PLANE_W, PLANE_H])
        full = _fit(pts, cv2.getPerspectiveTransform(src, (src + jitter).astype(np.float32)),
                    rot + moved.uniform(-15, 15), out_w, out_h,
                    min(1.0, shrink * moved.uniform(0.95, 1.05)))

    # a larger table's cards are fewer pixels on the plane than in a close photo of it
    # (laid apart: 72 against about 170): the plane is then drawn magnified, up to
    # ``table`` times, so no card is drawn from fewer pixels than the photo shows it with
    zoom = 1.0
    if table > 1:
        seen_h = float(np.linalg.norm(probe[1] - probe[0]))
        zoom = min(table, max(1.0, SHARP_MARGIN * seen_h / card_h))
        canvas = cv2.resize(canvas, (round(zoom * PLANE_W), round(zoom * PLANE_H)),
                            interpolation=cv2.INTER_LINEAR)
    drawn = full @ np.diag([1 / zoom, 1 / zoom, 1.0])  # the canvas -> the photo
    places_drawn = [(seat, zoom * x, zoom * y, a) for seat, x, y, a in places]
    if layout:
        _print_layout(canvas, places_drawn, {places[i][0] for i in occupied}, zoom * card_h,
                      np.random.default_rng([seed, 1]), bets=not empty, zoom=zoom)
    truth_plane: list[tuple[str, np.ndarray, int, Seat]] = []
    zones_plane: dict[str, np.ndarray] = {}
    for seat, x, y, angle in places:
        zones_plane[str(seat)] = _zone(x, y, angle, card_h * 2.2, card_h * 1.6)
    blank = canvas.copy() if empty else None
    paper = np.zeros(canvas.shape[:2], np.float32) if glare else None
    next_card = 0
    for hand_no, li in enumerate(occupied):
        seat, hx, hy, hangle = places[li]
        sample = faces[DECK[int(order[next_card])]].bgra
        w = sample.shape[1] * card_h / sample.shape[0]
        step = rng.uniform(*spread) * card_h
        total_w = w + 2 * step
        for k in range(3):
            card = DECK[int(order[next_card])]
            next_card += 1
            shown = faces[card]
            if hand_no in face_down:
                if back is None:
                    raise ValueError("face_down needs the deck's back")
                shown = Face(card, deck_name, back)
            bgr, alpha = _card_layer(shown, round(zoom * card_h))
            ch, cw = alpha.shape
            a = math.radians(hangle + float(rng.normal(0, 1.5)))
            c, s = math.cos(a), math.sin(a)
            # position of this card's top-left in hand coordinates (origin: hand centre)
            lx = -total_w / 2 + k * step + float(rng.normal(0, 0.01 * card_h))
            ly = -ch / (2 * zoom) + float(rng.normal(0, 0.025 * card_h))
            ha = math.radians(hangle)
            hc, hs = math.cos(ha), math.sin(ha)
            tx = hx + hc * lx - hs * ly
            ty = hy + hs * lx + hc * ly
            m = np.array([[c, -s, zoom * tx], [s, c, zoom * ty]], np.float32)
            _paste(canvas, bgr, alpha, m, shadow=float(rng.uniform(0.25, 0.55)), rng=rng,
                   zoom=zoom)
            corners = cv2.transform(
                np.array([[[0, 0], [cw, 0], [cw, ch], [0, ch]]], np.float32), m
            )[0]
            truth_plane.append((str(card), corners / zoom, hand_no, seat))
            if paper is not None:
                cv2.fillConvexPoly(paper, np.round(corners).astype(np.int32), 1.0)

    cards_drawn = [(name, zoom * corners) for name, corners, _, _ in truth_plane]
    _lay_chips(canvas, cards_drawn, chips_on, zoom * card_h, np.random.default_rng([seed, 9]),
               _anywhere_on)
    covered = _lay_chips(canvas, cards_drawn, chips_over_index, zoom * card_h,
                         np.random.default_rng([seed, 10]), _over_an_index)
    picture: list[np.ndarray] = []
    if pictured:  # printed: on the empty layout as well
        for printed in (canvas, blank) if blank is not None else (canvas,):
            picture = _picture_hand(printed, [faces[DECK[int(i)]] for i in order[next_card:][:3]],
                                    places_drawn, zoom * card_h, drawn, size,
                                    np.random.default_rng([seed, 8]), zoom)
    if blank is not None:
        canvas = blank  # every random draw made as with the cards: the same frame and light
    img = cv2.warpPerspective(canvas, drawn, (out_w, out_h), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    inside = cv2.warpPerspective(np.ones(canvas.shape[:2], np.float32), drawn, (out_w, out_h),
                                 flags=cv2.INTER_LINEAR, borderValue=0)[..., None]
    img = img * inside + felt_colour[None, None, :] * (1.0 - inside)
    if paper is not None and blank is None:
        on_paper = cv2.warpPerspective(paper, drawn, (out_w, out_h), flags=cv2.INTER_LINEAR)
        seen = cv2.perspectiveTransform(
            np.array([c for _, c, _, _ in truth_plane], np.float32).reshape(1, -1, 2), full
        )[0].reshape(-1, 4, 2)
        img = lamp_glare(img, on_paper, seen, np.random.default_rng([seed, 7]))

    img8, enc, quality = _photographed(img, rng)

    cards: list[TruthCard] = []
    down: list[list[list[float]]] = []
    for name, corners, hand_no, seat in truth_plane:
        p = cv2.perspectiveTransform(corners[None].astype(np.float32), full)[0]
        at = [[round(float(x), 1), round(float(y), 1)] for x, y in p]
        if hand_no in face_down:
            down.append(at)
        else:
            cards.append(TruthCard(name, at, hand_no, seat, deck_name))
    zones = {}
    for key, poly in zones_plane.items():
        p = cv2.perspectiveTransform(poly[None].astype(np.float32), full)[0]
        zones[key] = [[round(float(x), 1), round(float(y), 1)] for x, y in p]
    meta = {"seed": seed, "deck": deck_name, "size": [out_w, out_h], "rotation": round(rot, 1),
            "jpeg_quality": quality, "layout": layout, **({"empty": True} if empty else {}),
            **({"face_down": down} if down else {}),
            **({"chips_over_index": covered} if covered else {}),
            **({"pictured": [[[round(float(x), 1), round(float(y), 1)] for x, y in
                              cv2.perspectiveTransform(q[None].astype(np.float32), drawn)[0]]
                             for q in picture]} if picture else {})}
    return Scene(img8, enc, cards, zones, meta)


def another_take(image: np.ndarray, seed: int, shake: float = 1.5,
                 light: float = 0.07) -> bytes:
    """The same frame photographed again at another time (a JPEG): the camera shaken by up
    to ``shake`` pixels, the light brighter or darker by up to ``light`` and tilted across
    the frame by up to twice that, new sensor noise. What a fixed camera's photo of the
    empty layout is to a photo taken later (``compose(..., empty=True)`` is exact)."""
    rng = np.random.default_rng([seed, 2])
    h, w = image.shape[:2]
    dx, dy = rng.uniform(-shake, shake, 2)
    shift = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
    moved: np.ndarray = cv2.warpAffine(image, shift, (w, h),
                                       borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gain = rng.uniform(1 - light, 1 + light) * (
        1 + light * (rng.uniform(-1, 1) * (xx / w - 0.5) + rng.uniform(-1, 1) * (yy / h - 0.5)))
    noise = rng.normal(0, 3, moved.shape).astype(np.float32)
    out = moved * gain[..., None] + noise
    ok, enc = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8),
                           [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return enc.tobytes()


def motion_kernel(length: float, angle: float) -> np.ndarray:
    """A straight blur ``length`` pixels long at ``angle`` radians, summing to 1.

    >>> k = motion_kernel(5.0, 0.0)
    >>> k.shape, round(float(k.sum()), 6), k[3].astype(float).round(2).tolist()
    ((7, 7), 1.0, [0.0, 0.2, 0.2, 0.2, 0.2, 0.2, 0.0])
    """
    size = 2 * math.ceil(length / 2) + 1
    k = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = math.cos(angle) * (length - 1) / 2, math.sin(angle) * (length - 1) / 2
    cv2.line(k, (round(4 * (c - dx)), round(4 * (c - dy))), (round(4 * (c + dx)), round(4 * (c + dy))),
             1.0, 1, cv2.LINE_AA, shift=2)
    return np.asarray(k / k.sum(), np.float32)


#: What a real photo of a table can bring that ``compose`` does not draw (a chosen felt
#: colour is ``compose(felt=...)``): the photo taken wider, a light floor and the table's
#: wooden rail around the felt; a white tablecloth around it; warm tungsten light the camera
#: did not balance, under-exposed, with sensor noise; the camera tilted (the table's far
#: side 0.6 times as wide as its near side); a 12 MP photo from farther away (the same
#: table in a 4032x3024 frame, the felt carried out to its edges: the cards a third of
#: their share of the frame); the camera moving as it took the photo (a tablet held by
#: hand: a straight blur 1/270 of the photo's width, 7 pixels at 1080p, in a direction
#: the seed gives); the camera focused a little off the table (a Gaussian blur of 1/1280
#: of the photo's width, 1.5 pixels at 1080p); a hard shadow across the middle of the
#: photo (a person or a lamp's arm between the light and the table), the photo's far side
#: of it lit SHADOW_LIGHT as brightly, its edge SHADOW_EDGE of the photo's width soft, in a
#: direction the seed gives.
CONDITIONS = ("floor and rail", "white tablecloth", "warm dim light", "camera tilted",
              "12 MP from farther", "camera moving", "out of focus", "hard shadow")
#: The blur of "camera moving" and of "out of focus", as a share of the photo's width.
MOVING_BLUR, FOCUS_BLUR = 1 / 270, 1 / 1280
SHADOW_LIGHT, SHADOW_EDGE = 0.4, 1 / 270

#: How dealers lay a hand's cards, beyond the tight fan of every table drawn by default
#: (``compose`` keywords): spread wide, on a table whose seats lie farther apart (hands
#: spread so wide would touch on the default arc), and laid side by side apart on a table
#: of a real table's size, its seats about four card heights apart, in a 12 MP photo (in a
#: 1080p photo of a whole real table the cards are 40-75 pixels high).
LAYS: dict[str, dict[str, Any]] = {
    "spread wide": {"spread": (0.35, 0.65), "table": 1.6},
    "laid apart": {"spread": (0.75, 0.95), "table": 2.5, "size": (4032, 3024)},
}


def in_condition(image: np.ndarray, condition: str,
                 seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``image`` as photographed in one of :data:`CONDITIONS`, and the 3x3 matrix taking
    its pixels to the new photo's (for the truth's corners).

    >>> photo, moved = in_condition(np.zeros((100, 200, 3), np.uint8), "floor and rail")
    >>> photo.shape, moved[0].tolist()
    ((100, 200, 3), [0.800000011920929, 0.0, 20.0])
    >>> shaded, _ = in_condition(np.full((100, 200, 3), 200, np.uint8), "hard shadow")
    >>> int(shaded.min()), int(shaded.max())   # beyond the edge, 0.4 of the light (cut to 8 bits)
    (79, 200)
    >>> in_condition(np.zeros((10, 10, 3), np.uint8), "fog")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: no condition "fog": one of floor and rail, white tablecloth, ...
    """
    h, w = image.shape[:2]
    if condition in ("floor and rail", "white tablecloth"):
        small = cv2.resize(image, (int(w * 0.8), int(h * 0.8)), interpolation=cv2.INTER_AREA)
        out = np.empty_like(image)
        out[:] = (150, 170, 185) if condition == "floor and rail" else (235, 238, 240)
        y0, x0 = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
        y1, x1 = y0 + small.shape[0], x0 + small.shape[1]
        if condition == "floor and rail":
            rail = round(0.02 * w)
            cv2.rectangle(out, (x0 - rail, y0 - rail), (x1 + rail, y1 + rail), (30, 60, 100), -1)
        out[y0:y1, x0:x1] = small
        return out, np.array([[0.8, 0, x0], [0, 0.8, y0], [0, 0, 1]], np.float32)
    if condition == "warm dim light":
        noise = np.random.default_rng([seed, 4]).normal(0, 6, image.shape)
        warm = image.astype(np.float32) * np.array([0.45, 0.6, 0.75]) + noise
        return np.clip(warm, 0, 255).astype(np.uint8), np.eye(3, dtype=np.float32)
    if condition == "camera tilted":
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        dst = np.array([[0.2 * w, 0.1 * h], [0.8 * w, 0.1 * h], [w, h], [0, h]], np.float32)
        m = np.asarray(cv2.getPerspectiveTransform(src, dst), np.float32)
        tilted = cv2.warpPerspective(image, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(tilted), m
    if condition == "12 MP from farther":
        top, left = max(0, (3024 - h) // 2), max(0, (4032 - w) // 2)
        wide = cv2.copyMakeBorder(image, top, max(0, 3024 - h - top), left,
                                  max(0, 4032 - w - left), cv2.BORDER_REPLICATE)
        return np.asarray(wide), np.array([[1, 0, left], [0, 1, top], [0, 0, 1]], np.float32)
    if condition == "camera moving":
        angle = np.random.default_rng([seed, 5]).uniform(0, np.pi)
        kernel = motion_kernel(MOVING_BLUR * w, float(angle))
        return (np.asarray(cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_REFLECT)),
                np.eye(3, dtype=np.float32))
    if condition == "out of focus":
        return (np.asarray(cv2.GaussianBlur(image, (0, 0), FOCUS_BLUR * w)),
                np.eye(3, dtype=np.float32))
    if condition == "hard shadow":
        turn = np.random.default_rng([seed, 6]).uniform(0, 2 * np.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        across = ((xx - w / 2) * math.cos(turn)
                  + (yy - h / 2) * math.sin(turn)) / (SHADOW_EDGE * w)
        gain = 1 - (1 - SHADOW_LIGHT) / (1 + np.exp(np.clip(-across, -50, 50)))
        return (np.clip(image * gain[..., None], 0, 255).astype(np.uint8),
                np.eye(3, dtype=np.float32))
    raise ValueError(f'no condition "{condition}": one of {", ".join(CONDITIONS)}')


def stored_in(image: np.ndarray, condition: str, seed: int = 0) -> tuple[bytes, np.ndarray]:
    """``image`` photographed in one of :data:`CONDITIONS` (:func:`in_condition`) and stored
    as a camera stores it: its JPEG (quality 90), and the matrix moving its pixels there."""
    photo, moved = in_condition(image, condition, seed)
    ok, jpeg = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return jpeg.tobytes(), moved


def close_up(scene: Scene, hand: int, card_px: float,
             half: float = 1.5) -> tuple[np.ndarray, list[TruthCard], list[bool]]:
    """A phone held over one hand of ``scene``: the photo's window ``half`` card heights
    above and below the hand's centre (4:3), resized so that its cards are ``card_px``
    pixels high (magnified from a 12 MP table's 360, it is softer than a phone's close-up);
    the truth's cards where they lie in it, and which of them it shows whole (the others
    are cut by its edge or outside it)."""
    cards = [c for c in scene.cards if c.hand == hand]
    if not cards:
        raise ValueError(f"no hand {hand} in the scene")
    card_h = float(np.linalg.norm(np.subtract(cards[0].corners[3], cards[0].corners[0])))
    cx, cy = np.array([p for c in cards for p in c.corners], float).mean(axis=0)
    f = card_px / card_h
    hh, hw = half * card_h, half * card_h * 4 / 3
    m = np.array([[f, 0, -(cx - hw) * f], [0, f, -(cy - hh) * f]], np.float32)
    w, h = round(2 * hw * f), round(2 * hh * f)
    photo = cv2.warpAffine(scene.image, m, (w, h), borderMode=cv2.BORDER_REFLECT,
                           flags=cv2.INTER_AREA if f < 1 else cv2.INTER_CUBIC)
    moved = np.vstack([m, [0, 0, 1]]).astype(np.float32)
    truth = moved_truth(scene.cards, moved)
    return np.asarray(photo), truth, shown_whole(truth, w, h)


def shown_whole(cards: list[TruthCard], w: int, h: int) -> list[bool]:
    """Which of ``cards`` a ``w`` x ``h`` photo shows whole (every corner inside it).

    >>> card = TruthCard("AS", [[0, 0], [71, 0], [71, 100], [0, 100]], 0, 1, "d")
    >>> shown_whole([card], 200, 100), shown_whole([card], 200, 101)
    ([False], [True])
    """
    return [all(0 <= x < w and 0 <= y < h for x, y in c.corners) for c in cards]


def moved_truth(cards: list[TruthCard], moved: np.ndarray) -> list[TruthCard]:
    """The truth's cards where ``in_condition`` put them."""
    return [TruthCard(c.card, [[round(float(x), 1), round(float(y), 1)] for x, y in
                               cv2.perspectiveTransform(np.array([c.corners], np.float32),
                                                        moved)[0]],
                      c.hand, c.seat, c.deck) for c in cards]


def up_close(decks: dict[str, dict[Card, Face]], seed: int, card_px: float,
             size: tuple[int, int] = (4032, 3024), hands: int | None = None,
             spread: tuple[float, float] = (0.19, 0.27), gap: tuple[float, float] = (0.05, 1.0),
             tilt: float = 0.04) -> tuple[Scene, list[bool]]:
    """A phone held over one to three hands (``hands``, random when None) laid in a row on
    the felt, any way round: drawn at the photo's own size from ``decks``' faces, so with
    faces rasterised at least ``card_px`` high (``faces.load_deck(deck, height)``) its cards
    are as sharp as a phone's close-up, not magnified as :func:`close_up`'s are. Each card
    is ``card_px`` high, within 10%; each hand spread by ``spread`` card heights (as
    ``compose``'s), ``gap`` card heights from the next (the row's ends are often cut by
    the photo's edge); the photo is tilted by up to ``tilt`` of its sides at each corner.
    The scene (its seats are the hands' places in the row, from 1; no zones) and which
    cards it shows whole."""
    rng = np.random.default_rng([seed, 8])
    deck_name = sorted(decks)[int(rng.integers(len(decks)))]
    faces = decks[deck_name]
    n = int(hands if hands is not None else rng.integers(1, 4))
    out_w, out_h = size
    canvas = _felt(rng, out_w, out_h)
    order = rng.permutation(len(DECK))
    card_h = card_px * rng.uniform(0.9, 1.1)
    card_w = card_h * faces[DECK[0]].bgra.shape[1] / faces[DECK[0]].bgra.shape[0]
    steps = rng.uniform(*spread, n) * card_h
    gaps = rng.uniform(*gap, n) * card_h
    widths = card_w + 2 * steps
    row = float(widths.sum() + gaps[1:].sum())
    along = -row / 2 + np.concatenate([[0.0], np.cumsum(widths[:-1] + gaps[1:])]) + widths / 2
    turn = math.radians(rng.uniform(0, 360))
    ux, uy = math.cos(turn), math.sin(turn)
    mid = np.array([out_w, out_h]) * (0.5 + rng.uniform(-0.08, 0.08, 2))
    truth_plane: list[tuple[str, np.ndarray, int]] = []
    for h in range(n):
        off = float(rng.normal(0, 0.15 * card_h))
        hx = mid[0] + ux * along[h] - uy * off
        hy = mid[1] + uy * along[h] + ux * off
        ha = turn + math.radians(rng.normal(0, 6))
        hc, hs = math.cos(ha), math.sin(ha)
        for k in range(3):
            card = DECK[int(order[3 * h + k])]
            bgr, alpha = _card_layer(faces[card], round(card_h))
            ch, cw = alpha.shape
            a = ha + math.radians(rng.normal(0, 1.5))
            c, s = math.cos(a), math.sin(a)
            lx = -widths[h] / 2 + k * steps[h] + float(rng.normal(0, 0.01 * card_h))
            ly = -ch / 2 + float(rng.normal(0, 0.025 * card_h))
            m = np.array([[c, -s, hx + hc * lx - hs * ly], [s, c, hy + hs * lx + hc * ly]],
                         np.float32)
            _paste(canvas, bgr, alpha, m, shadow=float(rng.uniform(0.25, 0.55)), rng=rng)
            corners = cv2.transform(
                np.array([[[0, 0], [cw, 0], [cw, ch], [0, ch]]], np.float32), m)[0]
            truth_plane.append((str(card), corners, h))
    frame = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
    moved = (frame + rng.uniform(-tilt, tilt, (4, 2)) * [out_w, out_h]).astype(np.float32)
    hmat = cv2.getPerspectiveTransform(frame, moved)
    img = cv2.warpPerspective(canvas, hmat, size, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
    img8, enc, quality = _photographed(img, rng)
    cards = moved_truth([TruthCard(name, corners.tolist(), h, h + 1, deck_name)
                         for name, corners, h in truth_plane], hmat)
    meta = {"seed": seed, "deck": deck_name, "size": [out_w, out_h], "card_px": card_px,
            "hands": n, "jpeg_quality": quality}
    return Scene(img8, enc, cards, {}, meta), shown_whole(cards, out_w, out_h)
