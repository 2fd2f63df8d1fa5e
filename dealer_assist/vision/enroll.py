"""Teaching the reader a casino's own deck from a few labelled photos.

A labelled photo is a JPEG/PNG and a JSON file listing its cards with their corners (the
format ``scripts/vision_generate.py`` writes: ``{"cards": [{"card": "AS", "corners":
[[x, y] x4]}, ...]}``, corners clockwise from the upright index). The reader's own windows
are cut along every hand in the photos (and in a few re-lit, blurred, noisier copies of
them) and labelled from the corners: an index and which, or no index. A small correction of
the network's two output layers (an *adapter*: a linear map of the window embedding added to
the rank and suit logits) is then fitted to those windows with numpy, pulled towards zero so
that it only changes what the photos show. The adapter is saved to a small ``.npz``; loaded
(``scan --deck FILE``) it is applied to every window the reader reads.

Ranks and suits are learned apart, so a deck enrolled from photos showing each rank and each
suit a few times covers the 52 cards. ``card_models/README.md`` has the measured effect.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from dealer_assist.domain.cards import Card, parse_card
from dealer_assist.domain.errors import CardError

from .net import N_RANK, N_SUIT, NONE, IndexNet
from .reader import Reader
from .trainset import Patches, patches_from_photo

#: L2 pull of the adapter towards zero, per window.
RIDGE = 3e-3
STEPS = 300
LEARNING_RATE = 0.05


def labelled_cards(truth: dict[str, object]) -> list[tuple[Card, np.ndarray]]:
    try:
        cards = truth["cards"]
        assert isinstance(cards, list)
        return [(parse_card(c["card"]), np.asarray(c["corners"], np.float32).reshape(4, 2))
                for c in cards]
    except (KeyError, TypeError, ValueError, AssertionError, CardError) as exc:
        raise ValueError(f'labels must be {{"cards": [{{"card", "corners"}}]}}: {exc}') from exc


def _variants(img: np.ndarray, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """The photo and ``n`` copies re-lit, blurred or sharpened, with noise."""
    out = [img]
    for _ in range(n):
        lit = img.astype(np.float32) * rng.uniform(0.7, 1.15) * rng.uniform(0.92, 1.08, 3)
        x = np.asarray(cv2.GaussianBlur(lit, (0, 0), rng.uniform(0.3, 1.2)), np.float32)
        x += rng.normal(0, rng.uniform(1, 5), x.shape).astype(np.float32)
        out.append(np.clip(x, 0, 255).astype(np.uint8))
    return out


def enrolment_windows(photos: list[tuple[np.ndarray, dict[str, object]]],
                      variants: int = 3, seed: int = 0) -> Patches:
    rng = np.random.default_rng(seed)
    parts: list[Patches] = []
    for img, truth in photos:
        cards = labelled_cards(truth)
        for v in _variants(img, rng, variants):
            parts.append(patches_from_photo(v, cards, rng, keep_none=0.5))
    parts = [p for p in parts if len(p.x)]
    if not parts:
        return Patches(np.zeros((0, 1, 1, 3), np.uint8), np.zeros(0, int), np.zeros(0, int))
    return Patches(np.concatenate([p.x for p in parts]), np.concatenate([p.rank for p in parts]),
                   np.concatenate([p.suit for p in parts]))


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    return np.asarray(z - np.log(np.exp(z).sum(axis=1, keepdims=True)))


def fit_adapter(net: IndexNet, data: Patches, steps: int = STEPS,
                ridge: float = RIDGE) -> dict[str, np.ndarray]:
    """The adapter (``rw``, ``rb``, ``sw``, ``sb``) minimising the cross-entropy of the
    enrolled windows plus ``ridge`` x its squared size (Adam, full batch)."""
    raw = net.raw(data.x)
    nf = raw.shape[1] - N_RANK - N_SUIT
    emb = raw[:, :nf] / net.emb_scale
    zr, zs = raw[:, nf : nf + N_RANK], raw[:, nf + N_RANK :]
    pos = data.suit >= 0
    yr = np.eye(N_RANK, dtype=np.float32)[data.rank]
    ys = np.eye(N_SUIT, dtype=np.float32)[data.suit[pos]]
    params = {"rw": np.zeros((nf, N_RANK), np.float32), "rb": np.zeros(N_RANK, np.float32),
              "sw": np.zeros((nf, N_SUIT), np.float32), "sb": np.zeros(N_SUIT, np.float32)}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    t = net.temperature
    # windows on an index weigh as much, in all, as the windows without one
    w = np.where(pos, 0.5 / max(int(pos.sum()), 1), 0.5 / max(int((~pos).sum()), 1))
    w = w.astype(np.float32)
    for it in range(1, steps + 1):
        pr = np.exp(_log_softmax((zr + emb @ params["rw"] + params["rb"]) / t))
        ps = np.exp(_log_softmax((zs[pos] + emb[pos] @ params["sw"] + params["sb"]) / t))
        gr = (pr - yr) * w[:, None] / t
        gs = (ps - ys) * (w[pos] / w[pos].sum() * 0.5)[:, None] / t
        grads = {"rw": emb.T @ gr + ridge * params["rw"], "rb": gr.sum(0),
                 "sw": emb[pos].T @ gs + ridge * params["sw"], "sb": gs.sum(0)}
        for k, g in grads.items():
            m[k] = 0.9 * m[k] + 0.1 * g
            v2[k] = 0.999 * v2[k] + 0.001 * g * g
            mh, vh = m[k] / (1 - 0.9**it), v2[k] / (1 - 0.999**it)
            params[k] -= LEARNING_RATE * mh / (np.sqrt(vh) + 1e-8)
    return params


def enroll(reader: Reader, photos: list[tuple[np.ndarray, dict[str, object]]]) -> dict[
        str, np.ndarray]:
    """The adapter for the deck shown in ``photos``; empty when no index was found."""
    data = enrolment_windows(photos)
    if not (data.rank != NONE).any():
        return {}
    return {**fit_adapter(reader.net, data), "model": np.array(reader.net.digest)}


def save(adapter: dict[str, np.ndarray], path: str | Path) -> None:
    np.savez_compressed(path, **adapter)  # type: ignore[arg-type]


def load(path: str | Path) -> dict[str, np.ndarray]:
    need = {"rw": 2, "rb": 1, "sw": 2, "sb": 1}
    with np.load(path) as data:
        if not set(need) <= set(data.files) <= {*need, "model"}:
            raise ValueError(f"{path}: not an enrolled deck (expected arrays rw, rb, sw, sb)")
        if "model" not in data.files:
            raise ValueError(f"{path}: enrolled before decks were tied to a card model; "
                             "enroll it again from its labelled photos")
        out = {k: data[k].astype(np.float32) for k in need}
        out["model"] = np.array(str(data["model"]))
    if any(out[k].ndim != d for k, d in need.items()):
        raise ValueError(f"{path}: not an enrolled deck (expected arrays rw, rb, sw, sb)")
    if out["rw"].shape[1] != N_RANK or out["sw"].shape[1] != N_SUIT:
        raise ValueError(f"{path}: enrolled for another model")
    return out


def load_labelled(image: Path, labels: Path) -> tuple[np.ndarray, dict[str, object]]:
    from .loading import load as load_image

    truth = json.loads(labels.read_text(encoding="utf-8"))
    if not isinstance(truth, dict):
        raise ValueError('labels must be {"cards": [...]}')
    return load_image(image), truth
