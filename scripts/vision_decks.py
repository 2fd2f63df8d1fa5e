"""Procedural card decks for training the index reader: many fonts, index sizes, positions.

Held-out deck designs differ from the training designs mostly in the corner index: its
typeface, its size, where it sits and how the suit sits under the rank. Each procedural deck
draws one random choice of all of these (fonts from Debian's fonts-dejavu-core,
fonts-liberation, fonts-freefont-ttf, fonts-urw-base35, fonts-crosextra-carlito and
fonts-linuxlibertine, on some decks from fourteen more families or OpenCV's stroke fonts, all
installed by scripts/bootstrap; suits from font glyphs or drawn shapes), and a face with
pips near the index or court-card art (flat blocks of colour, or on half the decks line art
reaching up beside the index), so that the network learns what an
index is rather than what five particular decks look like. Training only (Pillow).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from dealer_assist.domain.cards import DECK, Card, Rank, Suit
from dealer_assist.vision.faces import Face

FONT_ROOT = Path("/usr/share/fonts")
#: Typefaces for the rank (upright; a few italics for variety).
RANK_FONTS = (
    "truetype/dejavu/DejaVuSans.ttf", "truetype/dejavu/DejaVuSans-Bold.ttf",
    "truetype/dejavu/DejaVuSansCondensed.ttf", "truetype/dejavu/DejaVuSansCondensed-Bold.ttf",
    "truetype/dejavu/DejaVuSerif.ttf", "truetype/dejavu/DejaVuSerif-Bold.ttf",
    "truetype/dejavu/DejaVuSerifCondensed.ttf", "truetype/dejavu/DejaVuSerifCondensed-Bold.ttf",
    "truetype/dejavu/DejaVuSansMono.ttf", "truetype/dejavu/DejaVuSansMono-Bold.ttf",
    "truetype/dejavu/DejaVuSans-ExtraLight.ttf",
    "truetype/liberation/LiberationSans-Regular.ttf", "truetype/liberation/LiberationSans-Bold.ttf",
    "truetype/liberation/LiberationSerif-Regular.ttf",
    "truetype/liberation/LiberationSerif-Bold.ttf",
    "truetype/liberation/LiberationSansNarrow-Regular.ttf",
    "truetype/liberation/LiberationSansNarrow-Bold.ttf",
    "truetype/liberation/LiberationMono-Regular.ttf", "truetype/liberation/LiberationMono-Bold.ttf",
    "truetype/freefont/FreeSans.ttf", "truetype/freefont/FreeSansBold.ttf",
    "truetype/freefont/FreeSerif.ttf", "truetype/freefont/FreeSerifBold.ttf",
    "truetype/freefont/FreeMono.ttf", "truetype/freefont/FreeMonoBold.ttf",
    "opentype/urw-base35/NimbusSans-Regular.otf", "opentype/urw-base35/NimbusSans-Bold.otf",
    "opentype/urw-base35/NimbusSansNarrow-Regular.otf",
    "opentype/urw-base35/NimbusSansNarrow-Bold.otf",
    "opentype/urw-base35/NimbusRoman-Regular.otf", "opentype/urw-base35/NimbusRoman-Bold.otf",
    "opentype/urw-base35/NimbusMonoPS-Regular.otf", "opentype/urw-base35/NimbusMonoPS-Bold.otf",
    "opentype/urw-base35/C059-Roman.otf", "opentype/urw-base35/C059-Bold.otf",
    "opentype/urw-base35/P052-Roman.otf", "opentype/urw-base35/P052-Bold.otf",
    "opentype/urw-base35/URWBookman-Light.otf", "opentype/urw-base35/URWBookman-Demi.otf",
    "opentype/urw-base35/URWGothic-Book.otf", "opentype/urw-base35/URWGothic-Demi.otf",
    "truetype/crosextra/Carlito-Regular.ttf", "truetype/crosextra/Carlito-Bold.ttf",
    "opentype/linux-libertine/LinLibertine_R.otf", "opentype/linux-libertine/LinLibertine_RB.otf",
    "opentype/linux-libertine/LinBiolinum_R.otf", "opentype/linux-libertine/LinBiolinum_RB.otf",
    "truetype/dejavu/DejaVuSerif-Italic.ttf", "truetype/liberation/LiberationSans-Italic.ttf",
    "opentype/urw-base35/NimbusRoman-Italic.otf",
)
#: Typefaces with the four suit glyphs.
SUIT_FONTS = (
    "truetype/dejavu/DejaVuSans.ttf", "truetype/dejavu/DejaVuSans-Bold.ttf",
    "truetype/dejavu/DejaVuSerif.ttf", "truetype/freefont/FreeSerif.ttf",
    "truetype/freefont/FreeSans.ttf", "truetype/freefont/FreeMono.ttf",
)
SUIT_GLYPHS = {Suit.CLUBS: "\u2663", Suit.DIAMONDS: "\u2666", Suit.HEARTS: "\u2665",
               Suit.SPADES: "\u2660"}
H = 360
#: Share of procedural decks with a jumbo index (rank JUMBO_RANK_H of the card height), as
#: on the large-index decks casinos deal for their cameras and overhead displays: the ranks
#: of ordinary decks (``DeckStyle.rank_h``) stop short of them, and their suit reaches
#: below the first index window (0.36 card heights).
JUMBO_SHARE = 0.25
JUMBO_RANK_H = (0.14, 0.21)
#: Share of procedural decks whose court cards carry line art (outlines and hatching in the
#: inks of the index, on patches of colour) reaching up beside the index, as on most printed
#: decks: flat colour blocks alone never taught the reader to ignore strokes next to a rank.
LINE_ART_SHARE = 0.5
#: Share of procedural decks whose rank is set in one of ``EXTRA_RANK_FONTS`` or drawn with
#: OpenCV's stroke (Hershey) fonts at a random stroke weight: more shapes of each rank (a
#: Q's tail short or long, through the bowl or under it; a 1 with or without a flag) than
#: ``RANK_FONTS`` alone give.
EXTRA_FONT_SHARE = 0.3
EXTRA_RANK_FONTS = (
    "truetype/open-sans/OpenSans-Regular.ttf", "truetype/open-sans/OpenSans-Bold.ttf",
    "truetype/open-sans/OpenSans-CondBold.ttf", "truetype/open-sans/OpenSans-Light.ttf",
    "truetype/open-sans/OpenSans-ExtraBold.ttf",
    "truetype/lato/Lato-Regular.ttf", "truetype/lato/Lato-Bold.ttf",
    "truetype/lato/Lato-Black.ttf", "truetype/lato/Lato-Light.ttf",
    "opentype/cantarell/Cantarell-Regular.otf", "opentype/cantarell/Cantarell-Bold.otf",
    "opentype/cantarell/Cantarell-ExtraBold.otf",
    "opentype/ebgaramond/EBGaramond12-Regular.otf", "opentype/ebgaramond/EBGaramond12-Bold.otf",
    "opentype/ebgaramond/EBGaramond08-Regular.otf",
    "truetype/gentium-basic/GenBasR.ttf", "truetype/gentium-basic/GenBasB.ttf",
    "truetype/gentium-basic/GenBkBasR.ttf", "truetype/gentium-basic/GenBkBasB.ttf",
    "truetype/fonts-oldstandard/OldStandard-Regular.ttf",
    "truetype/fonts-oldstandard/OldStandard-Bold.ttf",
    "truetype/comfortaa/Comfortaa-Regular.ttf", "truetype/comfortaa/Comfortaa-Bold.ttf",
    "fonts-go/Go-Regular.ttf", "fonts-go/Go-Bold.ttf", "fonts-go/Go-Medium.ttf",
    "fonts-go/Go-Mono.ttf", "fonts-go/Go-Mono-Bold.ttf",
    "opentype/stix-word/STIX-Regular.otf", "opentype/stix-word/STIX-Bold.otf",
    "truetype/quicksand/Quicksand-Regular.ttf", "truetype/quicksand/Quicksand-Bold.ttf",
    "truetype/charis/CharisSIL-Regular.ttf", "truetype/charis/CharisSIL-Bold.ttf",
    "opentype/cabin/Cabin-Regular.otf", "opentype/cabin/Cabin-Bold.otf",
    "opentype/cabin/Cabin-SemiBold.otf",
    "truetype/oxygen/Oxygen-Sans.ttf", "truetype/oxygen/Oxygen-Sans-Bold.ttf",
    "truetype/roboto/unhinted/RobotoTTF/Roboto-Regular.ttf",
    "truetype/roboto/unhinted/RobotoTTF/Roboto-Bold.ttf",
    "truetype/roboto/unhinted/RobotoTTF/Roboto-Black.ttf",
    "truetype/roboto/unhinted/RobotoCondensed-Regular.ttf",
    "truetype/roboto/unhinted/RobotoCondensed-Bold.ttf",
)
#: OpenCV's stroke typefaces with upright capitals (its script faces have none a deck uses).
HERSHEY_FACES = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
                 cv2.FONT_HERSHEY_TRIPLEX)


def available(fonts: tuple[str, ...]) -> list[Path]:
    return [FONT_ROOT / f for f in fonts if (FONT_ROOT / f).is_file()]


@lru_cache(maxsize=4096)
def _font(path: str, px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, px)


def _char(ch: str, font: str, px: int) -> np.ndarray:
    """The ink of one letter (float mask, with a margin). ``font`` is a font file, or
    ``hershey:FACE:WEIGHT`` for an OpenCV stroke font with strokes WEIGHT x px wide."""
    if font.startswith("hershey:"):
        _, face, weight = font.split(":")
        thick = max(1, round(float(weight) * px))
        scale = cv2.getFontScaleFromHeight(int(face), px, thick)
        (w, h), base = cv2.getTextSize(ch, int(face), scale, thick)
        img = np.zeros((h + base + 2 * thick + 4, w + 2 * thick + 4), np.uint8)
        cv2.putText(img, ch, (thick + 2, h + thick + 2), int(face), scale, 255, thick,
                    cv2.LINE_AA)
        return img.astype(np.float32) / 255.0
    f = _font(font, px)
    box = f.getbbox(ch)
    img = Image.new("L", (box[2] + 4, box[3] + 4), 0)
    ImageDraw.Draw(img).text((2, 2), ch, font=f, fill=255)
    return np.asarray(img, np.float32) / 255.0


def extra_rank_font(rng: np.random.Generator) -> str:
    """A rank typeface from ``EXTRA_RANK_FONTS``, or (a third of the time) a stroke font."""
    fonts = available(EXTRA_RANK_FONTS)
    if not fonts or rng.random() < 1 / 3:
        face = HERSHEY_FACES[int(rng.integers(len(HERSHEY_FACES)))]
        face |= cv2.FONT_ITALIC if rng.random() < 0.15 else 0
        return f"hershey:{face}:{rng.uniform(0.05, 0.14):.3f}"
    return str(fonts[int(rng.integers(len(fonts)))])


def _glyph(text: str, font: str, px: int, spacing: float = 0.0) -> np.ndarray:
    """The ink of ``text`` (float mask, tight box), letters ``spacing`` x px apart extra."""
    parts = [_char(ch, font, px) for ch in text]
    if len(parts) == 1:
        m = parts[0]
    else:
        hh = max(p.shape[0] for p in parts)
        gap = round(spacing * px)
        trimmed = [_trim_x(p) for p in parts]
        width = sum(p.shape[1] for p in trimmed) + gap * (len(parts) - 1)
        # a negative gap (a tight "10") must not make it narrower than its widest glyph
        m = np.zeros((hh, max(width, *(p.shape[1] for p in trimmed), 1)), np.float32)
        x = 0
        for p in trimmed:
            x0 = max(0, min(x, m.shape[1] - p.shape[1]))
            m[: p.shape[0], x0 : x0 + p.shape[1]] = np.maximum(m[: p.shape[0], x0 : x0 +
                                                                p.shape[1]], p)
            x = x0 + p.shape[1] + gap
    return _trim(m)


def _bgr(colour: np.ndarray) -> tuple[float, ...]:
    """A colour array as the tuple of floats OpenCV's drawing functions take."""
    return tuple(float(v) for v in colour)


def _trim_x(m: np.ndarray) -> np.ndarray:
    xs = np.nonzero(m.max(0) > 0.1)[0]
    return m[:, xs.min() : xs.max() + 1] if len(xs) else m


def _trim(m: np.ndarray) -> np.ndarray:
    ys = np.nonzero(m.max(1) > 0.1)[0]
    xs = np.nonzero(m.max(0) > 0.1)[0]
    if not len(xs):
        return m
    return m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _drawn_suit(suit: Suit, size: int, rng: np.random.Generator) -> np.ndarray:
    """A suit drawn from circles and polygons, its proportions varied."""
    s = 200
    img = np.zeros((s, s), np.uint8)
    fat = rng.uniform(0.85, 1.15)
    if suit is Suit.DIAMONDS:
        wd = s * rng.uniform(0.28, 0.42)
        pts = np.array([[s / 2, 5], [s / 2 + wd, s / 2], [s / 2, s - 5], [s / 2 - wd, s / 2]])
        cv2.fillPoly(img, [pts.astype(np.int32)], 255)
    elif suit is Suit.HEARTS or suit is Suit.SPADES:
        r = int(s * 0.26 * fat)
        cy = int(s * 0.33)
        cv2.circle(img, (s // 2 - r + 8, cy), r, 255, -1)
        cv2.circle(img, (s // 2 + r - 8, cy), r, 255, -1)
        tip = s - 8 if suit is Suit.HEARTS else int(s * 0.80)
        pts = np.array([[s // 2 - 2 * r + 10, cy + r // 3], [s // 2 + 2 * r - 10, cy + r // 3],
                        [s // 2, tip]])
        cv2.fillPoly(img, [pts.astype(np.int32)], 255)
        if suit is Suit.SPADES:
            img = img[::-1].copy()
            img = np.roll(img, -int(s * 0.12), axis=0)
            stem = np.array([[s // 2, int(s * 0.6)], [s // 2 + int(s * 0.16), s - 4],
                             [s // 2 - int(s * 0.16), s - 4]])
            cv2.fillPoly(img, [stem.astype(np.int32)], 255)
    else:
        r = int(s * 0.2 * fat)
        cv2.circle(img, (s // 2, int(s * 0.27)), r, 255, -1)
        cv2.circle(img, (s // 2 - int(1.05 * r), int(s * 0.27) + int(1.5 * r)), r, 255, -1)
        cv2.circle(img, (s // 2 + int(1.05 * r), int(s * 0.27) + int(1.5 * r)), r, 255, -1)
        stem = np.array([[s // 2, int(s * 0.5)], [s // 2 + int(s * 0.14), s - 4],
                         [s // 2 - int(s * 0.14), s - 4]])
        cv2.fillPoly(img, [stem.astype(np.int32)], 255)
    m = _trim(img.astype(np.float32) / 255.0)
    h = max(3, size)
    w = max(2, round(m.shape[1] * h / m.shape[0]))
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)


def _fit_height(m: np.ndarray, h: int, xscale: float) -> np.ndarray:
    h = max(3, h)
    w = max(2, round(m.shape[1] * h / max(m.shape[0], 1) * xscale))
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)


def _stamp(canvas: np.ndarray, mask: np.ndarray, colour: np.ndarray, x: int, y: int) -> None:
    hh, ww = mask.shape
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(canvas.shape[1], x + ww), min(canvas.shape[0], y + hh)
    if x1 <= x0 or y1 <= y0:
        return
    m = mask[y0 - y : y1 - y, x0 - x : x1 - x, None]
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - m) + colour[None, None, :] * m


class DeckStyle:
    """One random deck design: the index and face style every card of the deck shares."""

    def __init__(self, rng: np.random.Generator) -> None:
        fonts = available(RANK_FONTS)
        sfonts = available(SUIT_FONTS)
        self.rng = rng
        self.aspect = rng.uniform(0.64, 0.74)
        self.rank_font = str(fonts[int(rng.integers(len(fonts)))])
        self.rank_h = rng.uniform(0.045, 0.14)  # rank cap height / card height
        self.rank_x = rng.uniform(0.6, 1.2)  # horizontal squeeze
        self.ten_spacing = rng.uniform(-0.12, 0.08)
        self.ten_as_io = rng.random() < 0.1
        self.suit_h = self.rank_h * rng.uniform(0.55, 1.05)
        self.suit_font = str(sfonts[int(rng.integers(len(sfonts)))]) if rng.random() < 0.6 else ""
        self.suit_x = rng.uniform(0.8, 1.2)
        self.margin_x = rng.uniform(0.012, 0.07)
        self.margin_y = rng.uniform(0.012, 0.08)
        self.gap = rng.uniform(0.0, 0.35) * self.rank_h
        self.align = rng.choice(["centre", "centre", "left"])
        self.bold = int(rng.choice([0, 0, 0, 1, -1]))
        tint = rng.choice(["white", "white", "cream", "grey"])
        base = {"white": (250, 250, 250), "cream": (215, 235, 245), "grey": (228, 228, 228)}[
            str(tint)]
        self.paper = np.array(base, np.float32) + rng.uniform(-8, 5, 3)
        self.red = np.array([rng.uniform(0, 60), rng.uniform(0, 50), rng.uniform(150, 235)],
                            np.float32)  # BGR
        self.black = np.full(3, rng.uniform(0, 60), np.float32)
        self.border = rng.random() < 0.5
        self.inner_frame = rng.random() < 0.3
        self.pip_h = rng.uniform(0.09, 0.17)
        self.pip_top = rng.uniform(0.08, 0.2)
        self.pip_col = rng.uniform(0.24, 0.34)
        self.court_box = rng.uniform(0.13, 0.25)
        self.line_art = False  # set by ``procedural_deck``

    def suit_mask(self, suit: Suit) -> np.ndarray:
        px = max(3, round(self.suit_h * H))
        if self.suit_font:
            m = _glyph(SUIT_GLYPHS[suit], self.suit_font, px * 2)
            return _fit_height(m, px, self.suit_x)
        return _drawn_suit(suit, px, np.random.default_rng(int(suit.value.encode()[0])))

    def _line_art(self, img: np.ndarray, colour: np.ndarray) -> None:
        """Court art in the box ``court_box`` from the sides (a little wider than the flat
        blocks' reach, so it starts beside the index): patches of colour, then outlines,
        hatching and arcs in black and in the suit's ink."""
        rng = self.rng
        h, w = img.shape[:2]
        b = self.court_box
        x0, y0 = round(b * w), round(rng.uniform(0.3, 0.7) * b * h)
        x1, y1 = w - x0, h - y0
        aw, ah = x1 - x0, y1 - y0
        art = img[y0:y1, x0:x1]
        art[:] = rng.uniform(170, 250, 3)
        for _ in range(int(rng.integers(3, 9))):
            pts = (rng.uniform(0, 1, (int(rng.integers(3, 7)), 2)) * (aw, ah)).astype(np.int32)
            cv2.fillPoly(art, [pts], _bgr(rng.uniform(0, 255, 3)))
        inks = [self.black, colour]
        for _ in range(int(rng.integers(10, 30))):
            ink = _bgr(inks[int(rng.integers(2))])
            thick = int(rng.integers(1, 4))
            if rng.random() < 0.6:
                pts = (rng.uniform(0, 1, (int(rng.integers(2, 6)), 2)) * (aw, ah)).astype(np.int32)
                cv2.polylines(art, [pts], False, ink, thick, cv2.LINE_AA)
            else:
                c = (int(rng.integers(aw)), int(rng.integers(ah)))
                axes = (int(rng.integers(3, max(4, aw // 2))), int(rng.integers(3, max(4, ah // 3))))
                start = float(rng.uniform(0, 360))
                cv2.ellipse(art, c, axes, float(rng.uniform(0, 180)), start,
                            start + float(rng.uniform(60, 300)), ink, thick, cv2.LINE_AA)
        if rng.random() < 0.5:
            cv2.rectangle(img, (x0, y0), (x1, y1), _bgr(self.black), 1)

    def index(self, card: Card) -> np.ndarray:
        """The index (rank over suit) as an RGBA-like pair: mask (float) and colour."""
        text = card.rank.symbol if card.rank is not Rank.TEN else ("IO" if self.ten_as_io
                                                                   else "10")
        px = round(self.rank_h * H)
        rm = _glyph(text, self.rank_font, max(8, px * 2), self.ten_spacing)
        rm = _fit_height(rm, px, self.rank_x)
        if self.bold:
            k = np.ones((2, 2), np.uint8)
            rm = cv2.dilate(rm, k) if self.bold > 0 else cv2.erode(rm, k) * 0.5 + rm * 0.5
        sm = self.suit_mask(card.suit)
        gap = round(self.gap * H)
        w = max(rm.shape[1], sm.shape[1])
        out = np.zeros((rm.shape[0] + gap + sm.shape[0], w), np.float32)
        rx = (w - rm.shape[1]) // 2 if self.align == "centre" else 0
        sx = (w - sm.shape[1]) // 2 if self.align == "centre" else 0
        out[: rm.shape[0], rx : rx + rm.shape[1]] = rm
        out[rm.shape[0] + gap :, sx : sx + sm.shape[1]] = sm
        return out

    def face(self, card: Card) -> np.ndarray:
        rng = self.rng
        w = round(H * self.aspect)
        img = np.empty((H, w, 3), np.float32)
        img[:] = self.paper
        colour = self.red if card.suit.is_red else self.black
        if self.inner_frame:
            m = round(0.035 * H)
            cv2.rectangle(img, (m, m), (w - m, H - m), _bgr(colour * 0.5 + 60), 1)
        # the face: pips in columns, or court art in a box, or a big ace pip
        pip = self.suit_mask(card.suit)
        pip = _fit_height(pip, round(self.pip_h * H), 1.0)
        v = card.rank.value
        if 2 <= v <= 10:
            cols = {2: [1], 3: [1]}.get(v, [0, 2])
            xs = [self.pip_col * w, w / 2, (1 - self.pip_col) * w]
            rows = max(2, min(4, (v + 1) // 2 if v > 3 else v))
            for c in cols:
                for r in range(rows):
                    y = self.pip_top * H + r * (H * (1 - 2 * self.pip_top) - pip.shape[0]) / max(
                        rows - 1, 1)
                    _stamp(img, pip, colour, round(xs[c] - pip.shape[1] / 2), round(y))
            if v in (5, 7, 8, 9, 10) or v == 3:
                _stamp(img, pip, colour, round(w / 2 - pip.shape[1] / 2),
                       round(H / 2 - pip.shape[0] / 2 + rng.uniform(-0.15, 0.0) * H))
        elif v == 14:
            big = _fit_height(pip, round(rng.uniform(0.15, 0.4) * H), 1.0)
            _stamp(img, big, colour, round(w / 2 - big.shape[1] / 2), round(H / 2 - big.shape[0] / 2))
        elif self.line_art:
            self._line_art(img, colour)
        else:
            b = self.court_box
            x0, y0, x1, y1 = round(b * w), round(0.7 * b * H), round((1 - b) * w), round(
                (1 - 0.7 * b) * H)
            art = rng.uniform(0, 255, (6, 4, 3)).astype(np.float32)
            art = cv2.resize(art, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
            for _ in range(6):
                cx, cy = rng.integers(0, art.shape[1]), rng.integers(0, art.shape[0])
                cv2.circle(art, (int(cx), int(cy)), int(rng.integers(5, 30)),
                           _bgr(rng.uniform(0, 255, 3)), -1)
            img[y0:y1, x0:x1] = art
            cv2.rectangle(img, (x0, y0), (x1, y1), (30, 30, 30), 1)
        # both indices
        idx = self.index(card)
        ix, iy = round(self.margin_x * H), round(self.margin_y * H)
        _stamp(img, idx, colour, ix, iy)
        _stamp(img, idx[::-1, ::-1], colour, w - ix - idx.shape[1], H - iy - idx.shape[0])
        if self.border:
            cv2.rectangle(img, (0, 0), (w - 1, H - 1), (90, 90, 90), 1)
        alpha = np.zeros((H, w), np.uint8)
        cv2.rectangle(alpha, (0, 0), (w - 1, H - 1), 255, -1)
        r = round(rng.uniform(0.02, 0.06) * H)
        # rounded corners: only the corner square outside the arc is cut away (cutting the
        # arc's whole square, as before 2026-12-02, left felt-coloured notches inside the
        # card beside the index)
        for cx, cy, x0, y0 in ((r, r, 0, 0), (w - 1 - r, r, w - r, 0), (r, H - 1 - r, 0, H - r),
                               (w - 1 - r, H - 1 - r, w - r, H - r)):
            alpha[y0 : y0 + r, x0 : x0 + r] = 0
            cv2.circle(alpha, (cx, cy), r, 255, -1)
        alpha = cv2.GaussianBlur(alpha, (3, 3), 0)
        bgra = np.dstack([np.clip(img, 0, 255).astype(np.uint8), alpha])
        return bgra


def procedural_deck(seed: int) -> dict[Card, Face]:
    """One procedural deck, the same for the same seed. Whether a deck has a jumbo index,
    line-art court cards or an extra typeface are draws of its own (seeded by ``[seed, 1]``,
    ``[seed, 2]`` and ``[seed, 3]``), each added later without changing the other decks."""
    rng = np.random.default_rng(seed)
    style = DeckStyle(rng)
    own = np.random.default_rng([seed, 1])
    if own.random() < JUMBO_SHARE:
        ratio = style.suit_h / style.rank_h
        style.rank_h = own.uniform(*JUMBO_RANK_H)
        style.suit_h = style.rank_h * ratio
        style.gap = min(style.gap, 0.15 * style.rank_h)
        style.margin_y = min(style.margin_y, 0.04)
    art = np.random.default_rng([seed, 2])
    if art.random() < LINE_ART_SHARE:
        style.line_art = True
        style.court_box = art.uniform(0.1, 0.2)
    extra = np.random.default_rng([seed, 3])
    if extra.random() < EXTRA_FONT_SHARE:
        style.rank_font = extra_rank_font(extra)
    return {card: Face(card, f"proc-{seed}", style.face(card)) for card in DECK}


def preview(seed: int, cards: tuple[str, ...] = ("AS", "KH", "10D", "QC", "7S", "JD")) -> np.ndarray:
    from dealer_assist.domain.cards import parse_card

    deck = procedural_deck(seed)
    cells = []
    for c in cards:
        im = deck[parse_card(c)].bgra
        a = im[..., 3:4] / 255.0
        cells.append((im[..., :3] * a + 255 * (1 - a)).astype(np.uint8)[:130, :90])
    return np.hstack(cells)


if __name__ == "__main__":
    import sys

    rows = [preview(s) for s in range(int(sys.argv[1]) if len(sys.argv) > 1 else 8)]
    cv2.imwrite(sys.argv[2] if len(sys.argv) > 2 else "/tmp/proc.png", np.vstack(rows))
    print(sys.argv[2] if len(sys.argv) > 2 else "/tmp/proc.png")
