from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealer_assist.vision.faces import CARD_DECK_ROOT
from dealer_assist.vision.reader import Reader

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_images"


def on_cards(quads: list[list[list[float]]], corners: list[list[float]]) -> bool:
    """Whether a read card's centre (``corners``: the read's) lies on one of the cards
    ``quads`` (each its four corners in the photo)."""
    centre = tuple(float(v) for v in np.mean(corners, axis=0))
    return any(cv2.pointPolygonTest(np.asarray(q, np.float32), centre, False) >= 0
               for q in quads)


@pytest.fixture(scope="session")
def reader() -> Reader:
    return Reader()


@pytest.fixture(scope="session")
def can_render() -> None:
    if shutil.which("rsvg-convert") is None or not CARD_DECK_ROOT.is_dir():
        pytest.skip("needs Debian librsvg2-bin and kdegames-card-data-kf5 (scripts/bootstrap)")
