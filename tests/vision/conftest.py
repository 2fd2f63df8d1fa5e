from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dealer_assist.vision.faces import CARD_DECK_ROOT
from dealer_assist.vision.reader import Reader

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_images"


@pytest.fixture(scope="session")
def reader() -> Reader:
    return Reader()


@pytest.fixture(scope="session")
def can_render() -> None:
    if shutil.which("rsvg-convert") is None or not CARD_DECK_ROOT.is_dir():
        pytest.skip("needs Debian librsvg2-bin and kdegames-card-data-kf5 (scripts/bootstrap)")
