"""Teaching the reader a casino's own deck from a few labelled photos.

A labelled photo is a JPEG/PNG and a JSON file listing its cards with their corners (the
format ``scripts/vision_generate.py`` writes: ``{"cards": [{"card": "AS", "corners":
[[x, y] x4]}, ...]}``, corners clockwise from the upright index). The reader's own windows
are cut along every hand in the photos (and in a few re-lit, blurred, noisier copies of
them) and labelled from the corners: an index and which, or no index. A small correction of
the network's two output layers (an *adapter*: a linear map of the window embedding added to
the rank and suit logits) is then fitted to those windows with numpy, pulled towards zero so
that it only changes what the photos show. The second look, which carries most of a card's
read (``reader.SECOND_WEIGHT``), gets the same kind of correction per model, fitted to its
own windows on every labelled index (linear in its hidden layer, ``net.LOOK_EMBEDDING``).
The corrections are saved to a small ``.npz``, each with the digest of the model it was
fitted on; loaded (``scan --deck FILE``) they are applied to every window the reader reads.

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

from .net import N_RANK, N_SUIT, NONE, SECOND_NAMES, IndexNet, SecondLook
from .reader import Reader
from .trainset import Patches, looks_from_photo, patches_from_photo

#: L2 pull of the adapter towards zero, per window.
RIDGE = 3e-3
#: ... and of the second look's. On 30 procedural decks never trained on (seeds
#: 920000-920029; enrolled from 4 photos, read on 2 others, 1,440 cards): 1e-3, 1e-2 and 3e-2
#: read 1,399, 1,398 and 1,401 right, sure of 1,215, 1,155 and 1,123 (index network's
#: correction alone: 1,399, 1,065; none: 1,384, 973), but the surest wrong read nothing
#: else flags scored 0.960 (one silent error), 0.884 and 0.826 (alone 0.797; none 0.704).
#: 3e-2 keeps the margin of the reader without a deck.
LOOK_RIDGE = 3e-2
#: the second look's rank head: 13 ranks (it reads found cards only, so no "no index")
N_LOOK_RANK = N_RANK - 1
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


def fit_heads(emb: np.ndarray, zr: np.ndarray, zs: np.ndarray, rank: np.ndarray,
              suit: np.ndarray, rank_weight: np.ndarray, temperature: float = 1.0,
              steps: int = STEPS, ridge: float = RIDGE) -> dict[str, np.ndarray]:
    """The correction (``rw``, ``rb``, ``sw``, ``sb``) of a network's rank and suit logits
    ``zr``, ``zs``, linear in its embedding ``emb``, minimising the cross-entropy of the
    labelled windows (``rank``; ``suit``, -1 where no index shows) weighted by
    ``rank_weight`` (the suits of the windows on an index weigh 0.5 in all), plus ``ridge``
    x its squared size (Adam, full batch)."""
    pos = suit >= 0
    yr = np.eye(zr.shape[1], dtype=np.float32)[rank]
    ys = np.eye(zs.shape[1], dtype=np.float32)[suit[pos]]
    nf = emb.shape[1]
    params = {"rw": np.zeros((nf, zr.shape[1]), np.float32),
              "rb": np.zeros(zr.shape[1], np.float32),
              "sw": np.zeros((nf, zs.shape[1]), np.float32),
              "sb": np.zeros(zs.shape[1], np.float32)}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    t = temperature
    w = rank_weight.astype(np.float32)
    ws = (w[pos] / w[pos].sum() * 0.5).astype(np.float32)
    for it in range(1, steps + 1):
        pr = np.exp(_log_softmax((zr + emb @ params["rw"] + params["rb"]) / t))
        ps = np.exp(_log_softmax((zs[pos] + emb[pos] @ params["sw"] + params["sb"]) / t))
        gr = (pr - yr) * w[:, None] / t
        gs = (ps - ys) * ws[:, None] / t
        grads = {"rw": emb.T @ gr + ridge * params["rw"], "rb": gr.sum(0),
                 "sw": emb[pos].T @ gs + ridge * params["sw"], "sb": gs.sum(0)}
        for k, g in grads.items():
            m[k] = 0.9 * m[k] + 0.1 * g
            v2[k] = 0.999 * v2[k] + 0.001 * g * g
            mh, vh = m[k] / (1 - 0.9**it), v2[k] / (1 - 0.999**it)
            params[k] -= LEARNING_RATE * mh / (np.sqrt(vh) + 1e-8)
    return params


def fit_adapter(net: IndexNet, data: Patches, steps: int = STEPS,
                ridge: float = RIDGE) -> dict[str, np.ndarray]:
    """The index network's correction for the enrolled windows (``fit_heads``)."""
    raw = net.raw(data.x)
    nf = raw.shape[1] - N_RANK - N_SUIT
    pos = data.suit >= 0
    # windows on an index weigh as much, in all, as the windows without one
    w = np.where(pos, 0.5 / max(int(pos.sum()), 1), 0.5 / max(int((~pos).sum()), 1))
    return fit_heads(raw[:, :nf] / net.emb_scale, raw[:, nf : nf + N_RANK],
                     raw[:, nf + N_RANK :], data.rank, data.suit, w, net.temperature,
                     steps, ridge)


def enrolment_looks(photos: list[tuple[np.ndarray, dict[str, object]]],
                    variants: int = 3, seed: int = 0) -> Patches:
    """The second look's windows on every labelled index (``looks_from_photo``), in the
    photos and their re-lit, blurred, noisier copies."""
    rng = np.random.default_rng(seed)
    parts = [looks_from_photo(v, labelled_cards(truth), rng)
             for img, truth in photos for v in _variants(img, rng, variants)]
    parts = [p for p in parts if len(p.x)]
    if not parts:
        return Patches(np.zeros((0, 1, 1, 3), np.uint8), np.zeros(0, int), np.zeros(0, int))
    return Patches(np.concatenate([p.x for p in parts]), np.concatenate([p.rank for p in parts]),
                   np.concatenate([p.suit for p in parts]))


def fit_looks(second: SecondLook, data: Patches, steps: int = STEPS,
              ridge: float = LOOK_RIDGE) -> dict[str, np.ndarray]:
    """Each second-look model's correction for the enrolled look windows, its keys
    prefixed ``look0_``, ``look1_``, ... (``net.look_adapter``)."""
    out: dict[str, np.ndarray] = {}
    w = np.full(len(data.x), 0.5 / max(len(data.x), 1), np.float32)
    for i, (emb, z) in enumerate(second.raw(data.x)):
        fitted = fit_heads(emb, z[:, :N_LOOK_RANK], z[:, N_LOOK_RANK:], data.rank, data.suit,
                           w, 1.0, steps, ridge)
        out |= {f"look{i}_{k}": v for k, v in fitted.items()}
        out[f"look{i}_model"] = np.array(second.digests[i])
    return out


def enroll(reader: Reader, photos: list[tuple[np.ndarray, dict[str, object]]]) -> dict[
        str, np.ndarray]:
    """The enrolled deck shown in ``photos`` (corrections for the index network and, when
    the reader has one, each second-look model); empty when no index was found."""
    data = enrolment_windows(photos)
    if not (data.rank != NONE).any():
        return {}
    deck = {**fit_adapter(reader.net, data), "model": np.array(reader.net.digest)}
    if reader.second is not None:
        looks = enrolment_looks(photos)
        if len(looks.x):
            deck |= fit_looks(reader.second, looks, ridge=LOOK_RIDGE)
    return deck


def save(adapter: dict[str, np.ndarray], path: str | Path) -> None:
    np.savez_compressed(path, **adapter)  # type: ignore[arg-type]


def load(path: str | Path) -> dict[str, np.ndarray]:
    """An enrolled deck saved by ``save``, checked: the index network's correction and the
    model it was fitted on, and any second-look model's (each whole)."""
    need = {"rw": 2, "rb": 1, "sw": 2, "sb": 1}
    groups = {"": N_RANK} | {f"look{i}_": N_LOOK_RANK for i in range(len(SECOND_NAMES))}
    what = f"{path}: not an enrolled deck (expected arrays rw, rb, sw, sb)"
    with np.load(path) as data:
        files = set(data.files)
        if not set(need) <= files <= {g + k for g in groups for k in [*need, "model"]}:
            raise ValueError(what)
        if "model" not in files:
            raise ValueError(f"{path}: enrolled before decks were tied to a card model; "
                             "enroll it again from its labelled photos")
        present = [g for g in groups if any(f.startswith(g) for f in files)]
        if any(not {g + k for k in [*need, "model"]} <= files for g in present):
            raise ValueError(what)
        out = {g + k: data[g + k].astype(np.float32) for g in present for k in need}
        out |= {g + "model": np.array(str(data[g + "model"])) for g in present}
    for g in present:
        if any(out[g + k].ndim != d for k, d in need.items()):
            raise ValueError(what)
        if out[g + "rw"].shape[1] != groups[g] or out[g + "sw"].shape[1] != N_SUIT:
            raise ValueError(f"{path}: enrolled for another model")
    return out


def load_labelled(image: Path, labels: Path) -> tuple[np.ndarray, dict[str, object]]:
    from .loading import load as load_image

    truth = json.loads(labels.read_text(encoding="utf-8"))
    if not isinstance(truth, dict):
        raise ValueError('labels must be {"cards": [...]}')
    return load_image(image), truth
