"""The procedural training decks (scripts/vision_decks.py) look like cards: opaque but for
their rounded corners."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from dealer_assist.domain.cards import parse_card

pytest.importorskip("PIL")  # the fonts are drawn with Pillow (reportlab's own dependency)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from vision_decks import procedural_deck


@pytest.mark.parametrize("seed", [920044, 920015, 7])
def test_a_procedural_card_is_opaque_but_for_its_rounded_corners(seed: int) -> None:
    """Only the corner outside each arc is cut (radius at most 0.06 of the card's height);
    cutting the arc's whole square, as once, left felt-coloured notches inside every card
    beside its index."""
    for card in ("AS", "KD", "10H"):
        alpha = procedural_deck(seed)[parse_card(card)].bgra[..., 3]
        h, w = alpha.shape
        corner = int(np.ceil(0.06 * h)) + 2
        inside = np.ones_like(alpha, bool)
        inside[[0, -1], :] = inside[:, [0, -1]] = False  # the blurred edge
        for ys in (slice(0, corner), slice(h - corner, h)):
            for xs in (slice(0, corner), slice(w - corner, w)):
                inside[ys, xs] = False
        assert (alpha[inside] > 250).all(), (seed, card)
        assert alpha[0, 0] < 5 and alpha[-1, -1] < 5 and alpha[0, -1] < 5 and alpha[-1, 0] < 5
        # the arc itself is card: the corner square's far side, next to the straight edges
        assert alpha[corner - 1, 1] > 200 and alpha[1, corner - 1] > 200
