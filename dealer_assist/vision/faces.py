"""Card faces rasterised from the SVG decks of Debian's ``kdegames-card-data-kf5``.

Used by the scene generator, the training script and the tests; the reader itself never
needs it. Rasterising calls ``rsvg-convert`` (Debian ``librsvg2-bin``) once per card and
caches the PNGs under ``~/.cache/dealer_assist/faces`` (or ``$DEALER_ASSIST_FACE_CACHE``).
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from dealer_assist.domain.cards import DECK, Card, Rank, Suit

CARD_DECK_ROOT = Path("/usr/share/carddecks")

#: The designs of kdegames-card-data-kf5 with a standard corner index (rank over suit in the
#: top-left and bottom-right corners), as on every casino deck. Left out: the oxygen family
#: (rank top-right, suit elsewhere: in a dealer's spread the index of a lower card is hidden),
#: future (not a playing-card face), xskat-german (German suits and ranks), konqi-modern
#: (72x96 bitmaps inside an SVG rsvg-convert refuses) and xskat-french (its card elements
#: have no dimensions for rsvg-convert).
ALL_DECKS: tuple[str, ...] = (
    "ancient-egyptians",
    "dondorf",
    "gm-paris",
    "jolly-royal",
    "nicu-ornamental",
    "nicu-white",
    "penguins",
    "standard",
    "tigullio-international",
)

#: Designs kept out of training, to measure on.
HELD_OUT_DECKS: tuple[str, ...] = ("dondorf", "nicu-white", "tigullio-international")
#: nicu-ornamental shares nicu-white's index font, so it is kept out of training too.
TRAIN_DECKS: tuple[str, ...] = ("ancient-egyptians", "gm-paris", "jolly-royal", "penguins",
                                "standard")

#: Face height in pixels of the cached rasters.
FACE_HEIGHT = 360

_RANK_IDS = {
    **{Rank(v): str(v) for v in range(2, 11)},
    Rank.ACE: "1",
    Rank.JACK: "jack",
    Rank.QUEEN: "queen",
    Rank.KING: "king",
}
_SUIT_IDS = {Suit.CLUBS: "club", Suit.DIAMONDS: "diamond", Suit.HEARTS: "heart", Suit.SPADES: "spade"}


class FaceError(RuntimeError):
    """Card art is missing or could not be rasterised."""


def svg_id(card: Card) -> str:
    return f"{_RANK_IDS[card.rank]}_{_SUIT_IDS[card.suit]}"


def cache_root() -> Path:
    env = os.environ.get("DEALER_ASSIST_FACE_CACHE")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "dealer_assist" / "faces"


def deck_svg(deck: str) -> Path:
    folder = CARD_DECK_ROOT / f"svg-{deck}"
    found = sorted(folder.glob("*.svgz")) + sorted(folder.glob("*.svg"))
    if not found:
        raise FaceError(
            f"no SVG for deck {deck!r} under {folder} (install Debian kdegames-card-data-kf5)"
        )
    return found[0]


def _crop_to_card(rgba: np.ndarray) -> np.ndarray:
    """Crop an exported element to its opaque card area and return it flattened to BGR on
    white where transparent (rounded corners keep an alpha channel: BGRA)."""
    alpha = rgba[:, :, 3]
    ys, xs = np.nonzero(alpha > 16)
    if len(xs) == 0:
        raise FaceError("empty card raster")
    return rgba[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _render(svg: Path, element: str, dpi: float, out: Path) -> np.ndarray:
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise FaceError("rsvg-convert not found (install Debian librsvg2-bin)")
    subprocess.run(
        [exe, "-i", element, "-d", f"{dpi:.2f}", "-p", f"{dpi:.2f}", "-o", str(out), str(svg)],
        check=True,
        capture_output=True,
    )
    img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise FaceError(f"could not rasterise {element} of {svg}")
    return _crop_to_card(img)


class _Rasteriser:
    """Renders elements of ``deck``'s SVG (a face's id, "back") ``height`` pixels high, at
    the resolution that makes its first face that high, into ``tmp``."""

    def __init__(self, deck: str, height: int, tmp: Path) -> None:
        data = deck_svg(deck).read_bytes()
        self.svg, self.height, self.tmp = tmp / "deck.svg", height, tmp
        self.svg.write_bytes(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
        probe = _render(self.svg, svg_id(DECK[0]), 96.0, tmp / "probe.png")
        self.dpi = 96.0 * height * 1.05 / probe.shape[0]

    def __call__(self, element: str) -> np.ndarray:
        img = _render(self.svg, element, self.dpi, self.tmp / f"{element}.png")
        w = round(img.shape[1] * self.height / img.shape[0])
        return np.asarray(cv2.resize(img, (w, self.height), interpolation=cv2.INTER_AREA))


def render_deck(deck: str, height: int = FACE_HEIGHT) -> Path:
    """Rasterise the 52 faces of ``deck`` into the cache (once) and return their folder."""
    target = cache_root() / f"{deck}-{height}"
    if (target / "done").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # rendered aside and moved into place whole: processes rendering the same deck at once
    # (tests run in parallel on a fresh machine) never read a face another is still writing
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            rasterise = _Rasteriser(deck, height, Path(tmp))

            def one(card: Card) -> None:
                cv2.imwrite(str(staging / f"{card}.png"), rasterise(svg_id(card)))

            with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
                list(pool.map(one, DECK))
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    (staging / "done").write_text("ok\n")
    if target.exists() and not (target / "done").exists():
        shutil.rmtree(target, ignore_errors=True)  # left half-written by an older version
    try:
        staging.rename(target)
    except OSError:  # another process put it in place first
        shutil.rmtree(staging, ignore_errors=True)
    return target


def load_back(deck: str, height: int = FACE_HEIGHT) -> np.ndarray:
    """The back of ``deck``'s cards (BGRA, ``height`` pixels high, as its faces), rasterised
    once into the cache: to draw a face-down card."""
    target = cache_root() / f"{deck}-{height}-back.png"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            back = _Rasteriser(deck, height, Path(tmp))("back")
        # written aside and moved into place whole: no process reads it half-written
        staged = target.parent / f".{target.stem}-{os.getpid()}.png"
        cv2.imwrite(str(staged), back)
        os.replace(staged, target)
    img = cv2.imread(str(target), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise FaceError(f"cached back {target} is unreadable")
    return np.asarray(img)


@dataclass(frozen=True)
class Face:
    card: Card
    deck: str
    bgra: np.ndarray  # H x W x 4, uint8


def load_deck(deck: str, height: int = FACE_HEIGHT) -> dict[Card, Face]:
    folder = render_deck(deck, height)
    faces: dict[Card, Face] = {}
    for card in DECK:
        img = cv2.imread(str(folder / f"{card}.png"), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise FaceError(f"cached face {folder / f'{card}.png'} is unreadable")
        faces[card] = Face(card, deck, img)
    return faces
