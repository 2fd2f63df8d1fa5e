"""Teaching the reader a casino's own deck from a few labelled photos.

A labelled photo is a JPEG/PNG and a JSON file listing its cards with their corners (the
format ``scripts/vision_generate.py`` writes: ``{"cards": [{"card": "AS", "corners":
[[x, y] x4]}, ...]}``, corners clockwise from the upright index). The reader's windows are
cut on every visible index corner, and the network's embedding of each is averaged per card:
these *prototypes* are saved to a small ``.npz`` and, when loaded (``scan --deck FILE``),
weigh every read towards the enrolled look of each card.

Experimental: measured on a held-out design it did not yet improve accuracy (see
``card_models/README.md``); do not rely on it at a live table.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from dealer_assist.domain.cards import DECK, RANKS, SUITS, Card, parse_card

from .net import NONE
from .reader import Reader
from .trainset import patches_from_photo


def labelled_cards(truth: dict) -> list[tuple[Card, np.ndarray]]:
    try:
        return [(parse_card(c["card"]), np.asarray(c["corners"], np.float32).reshape(4, 2))
                for c in truth["cards"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f'labels must be {{"cards": [{{"card", "corners"}}]}}: {exc}') from exc


def prototypes(reader: Reader, photos: list[tuple[np.ndarray, dict]]) -> dict[str, np.ndarray]:
    """Mean L2-normalised embedding per card over every labelled index window."""
    rng = np.random.default_rng(0)
    sums: dict[str, np.ndarray] = {}
    for img, truth in photos:
        p = patches_from_photo(img, labelled_cards(truth), rng, keep_none=0.0)
        pos = p.rank != NONE
        if not pos.any():
            continue
        _, _, feats = reader.net.predict(p.x[pos])
        feats = feats / (np.linalg.norm(feats, axis=1, keepdims=True) + 1e-6)
        for f, r, s in zip(feats, p.rank[pos], p.suit[pos], strict=True):
            name = str(Card(RANKS[int(r)], SUITS[int(s)]))
            sums[name] = sums.get(name, 0) + f
    return {k: v / (np.linalg.norm(v) + 1e-6) for k, v in sums.items()}


def save(protos: dict[str, np.ndarray], path: str | Path) -> None:
    np.savez_compressed(path, **protos)


def load(path: str | Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        out = {k: data[k].astype(np.float32) for k in data.files}
    for k in out:
        if parse_card(k) not in DECK:
            raise ValueError(f"{path}: {k} is not a card")
    return out


def load_labelled(image: Path, labels: Path) -> tuple[np.ndarray, dict]:
    from .loading import load as load_image

    return load_image(image), json.loads(labels.read_text(encoding="utf-8"))
