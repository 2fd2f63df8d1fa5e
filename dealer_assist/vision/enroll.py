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

A scan the dealer confirmed is a labelled photo too: :func:`confirmed_labels` labels its
reads with the cards logged at each seat (``vision enroll-table`` learns a table's deck from
its logged scans). A card that is there but not known is labelled ``null``: its index is
left out of the windows rather than taught as "no index".

Ranks and suits are learned apart, so a deck enrolled from photos showing each rank and each
suit a few times covers the 52 cards. ``card_models/README.md`` has the measured effect.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dealer_assist.domain.cards import Card, parse_card
from dealer_assist.domain.errors import CardError

from .net import N_RANK, N_SUIT, NONE, SECOND_NAMES, IndexNet, SecondLook
from .reader import MIRRORED_NOTE, Reader, mirrored
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


def labelled_cards(truth: dict[str, object]) -> list[tuple[Card | None, np.ndarray]]:
    """The cards of a labels file, in its order (bottom card of a hand first); a card
    ``null`` is one that is there but not known (its index is not trained on)."""
    try:
        cards = truth["cards"]
        assert isinstance(cards, list)
        return [(None if c["card"] is None else parse_card(c["card"]),
                 np.asarray(c["corners"], np.float32).reshape(4, 2)) for c in cards]
    except (KeyError, TypeError, ValueError, AssertionError, CardError) as exc:
        raise ValueError(f'labels must be {{"cards": [{{"card", "corners"}}]}}: {exc}') from exc


def read_upright(image: np.ndarray, result: dict[str, Any]) -> tuple[np.ndarray,
                                                                     dict[str, Any]]:
    """A photo and its read, turned back where the photo was read mirrored (a front
    camera's: ``reader.MIRRORED_NOTE``), so that its labels lie on indices that read
    upright; else as they are.

    >>> photo = np.zeros((4, 10, 3), np.uint8)
    >>> photo[:, 0] = 255                                   # its left column white
    >>> read = {"cards": [{"card": "AS", "corners": [[1, 0], [3, 0], [3, 3], [1, 3]]}],
    ...         "needs_confirmation": [{"hand": None, "card": None, "reason": MIRRORED_NOTE}]}
    >>> turned, labels = read_upright(photo, read)
    >>> int(turned[0, 9, 0]), labels["cards"][0]["corners"][0]
    (255, [8, 0])
    """
    if not any(n.get("reason") == MIRRORED_NOTE for n in result.get("needs_confirmation", [])):
        return image, result
    return cv2.flip(image, 1), mirrored(result, image.shape[1])


def confirmed_labels(result: dict[str, Any], confirmed: Mapping[str, Sequence[str]]
                     ) -> dict[str, list[dict[str, Any]]]:
    """Labels for ``vision enroll`` from a scan and the cards the dealer confirmed at each
    seat ("1".."7", or "dealer"): a read whose card is among its seat's confirmed cards
    keeps it (each confirmed card once); in a hand read as exactly three cards at a seat of
    three, the one read left over takes the one confirmed card left (the card the dealer
    fixed). Every other read is labelled ``None``: a card is there, but which is not known,
    so its index is neither taught as a card nor as "no index". Reads keep the scan's order
    (each hand's bottom card first), which says which card lies over which.

    >>> scan = {"cards": [
    ...     {"card": "AS", "seat": 1, "corners": [[0, 0]] * 4},
    ...     {"card": "5H", "seat": 1, "corners": [[1, 0]] * 4},   # the dealer made it 6H
    ...     {"card": "KD", "seat": 1, "corners": [[2, 0]] * 4},
    ...     {"card": "2C", "seat": 4, "corners": [[9, 9]] * 4}]}  # no bet at seat 4
    >>> [c["card"] for c in confirmed_labels(scan, {"1": ["AS", "KD", "6H"]})["cards"]]
    ['AS', '6H', 'KD', None]
    >>> [c["card"] for c in confirmed_labels(scan, {"1": ["AS", "QD", "6H"]})["cards"]]
    ['AS', None, None, None]
    """
    reads = list(result.get("cards", []))
    names: list[str | None] = [None] * len(reads)
    by_seat: dict[str, list[int]] = {}
    for i, read in enumerate(reads):
        by_seat.setdefault(str(read.get("seat")), []).append(i)
    for seat, where in by_seat.items():
        left = list(confirmed.get(seat, []))
        for i in where:
            if reads[i]["card"] in left:
                left.remove(reads[i]["card"])
                names[i] = reads[i]["card"]
        unmatched = [i for i in where if names[i] is None]
        if len(where) == 3 == len(confirmed.get(seat, [])) and len(unmatched) == 1 == len(left):
            names[unmatched[0]] = left[0]
    return {"cards": [{"card": name, "corners": read["corners"]}
                      for name, read in zip(names, reads, strict=True)]}


def _variants(img: np.ndarray, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """The photo and ``n`` copies re-lit, blurred or sharpened, with noise."""
    out = [img]
    for _ in range(n):
        lit = img.astype(np.float32) * rng.uniform(0.7, 1.15) * rng.uniform(0.92, 1.08, 3)
        x = np.asarray(cv2.GaussianBlur(lit, (0, 0), rng.uniform(0.3, 1.2)), np.float32)
        x += rng.normal(0, rng.uniform(1, 5), x.shape).astype(np.float32)
        out.append(np.clip(x, 0, 255).astype(np.uint8))
    return out


#: Re-lit, blurred, noisier copies of each enrolled photo, cut as well as the photo itself.
VARIANTS = 3


def _joined(parts: list[Patches]) -> Patches:
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


def enroll(reader: Reader, photos: Iterable[tuple[np.ndarray, dict[str, object]]]) -> dict[
        str, np.ndarray]:
    """The enrolled deck shown in ``photos`` (corrections for the index network and, when
    the reader has one, each second-look model); empty when no index was found. The photos
    are taken one at a time (only their windows are kept), so they may come from a
    generator: a shift's worth of photos is never in memory at once."""
    # each kind of window draws from its own generator (as when they were cut apart)
    rng_w, rng_l = np.random.default_rng(0), np.random.default_rng(0)
    windows: list[Patches] = []
    looks: list[Patches] = []
    for img, truth in photos:
        cards = labelled_cards(truth)
        windows += [patches_from_photo(v, cards, rng_w, keep_none=0.5)
                    for v in _variants(img, rng_w, VARIANTS)]
        if reader.second is not None:
            looks += [looks_from_photo(v, cards, rng_l) for v in _variants(img, rng_l, VARIANTS)]
    data = _joined(windows)
    if not (data.rank != NONE).any():
        return {}
    deck = {**fit_adapter(reader.net, data), "model": np.array(reader.net.digest)}
    look_data = _joined(looks)
    if reader.second is not None and len(look_data.x):
        deck |= fit_looks(reader.second, look_data, ridge=LOOK_RIDGE)
    return deck


def dumps(adapter: dict[str, np.ndarray]) -> bytes:
    """The enrolled deck as the bytes of its ``.npz`` file (``save`` writes them)."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **adapter)  # type: ignore[arg-type]
    return buffer.getvalue()


def save(adapter: dict[str, np.ndarray], path: str | Path) -> Path:
    """Write the enrolled deck to ``path`` (``.npz`` added if missing, as numpy does) in
    one step: a scan reading the file meanwhile sees the old deck or the new, never half
    of one. Returns the file written."""
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_name(path.name + ".npz")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".deck-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(dumps(adapter))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load(path: str | Path, data: bytes | None = None) -> dict[str, np.ndarray]:
    """An enrolled deck saved by ``save``, checked: the index network's correction and the
    model it was fitted on, and any second-look model's (each whole). ``data``: the file's
    bytes when already read (``path`` then only names it in messages)."""
    need = {"rw": 2, "rb": 1, "sw": 2, "sb": 1}
    groups = {"": N_RANK} | {f"look{i}_": N_LOOK_RANK for i in range(len(SECOND_NAMES))}
    what = f"{path}: not an enrolled deck (expected arrays rw, rb, sw, sb)"
    if data is None:
        data = Path(path).read_bytes()
    # an .npz is a zip file; np.load reads anything else as a pickle (refused, but with a
    # message about pickles)
    if not data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        raise ValueError(what)
    try:
        with np.load(io.BytesIO(data)) as npz:
            files = set(npz.files)
            if not set(need) <= files <= {g + k for g in groups for k in [*need, "model"]}:
                raise ValueError(what)
            if "model" not in files:
                raise ValueError(f"{path}: enrolled before decks were tied to a card model; "
                                 "enroll it again from its labelled photos")
            present = [g for g in groups if any(f.startswith(g) for f in files)]
            if any(not {g + k for k in [*need, "model"]} <= files for g in present):
                raise ValueError(what)
            out = {g + k: npz[g + k].astype(np.float32) for g in present for k in need}
            out |= {g + "model": np.array(str(npz[g + "model"])) for g in present}
    except (zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"{what} ({exc})") from None
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
