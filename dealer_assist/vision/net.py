"""The index-corner network, run by ``cv2.dnn`` on whole strips.

Input: a strip ``PATCH_H`` pixels high cut along the top edge of a hand (see
``geometry.cut_strip``), normalised by :func:`normalise_strip`. The network is fully
convolutional with unpadded convolutions and a total stride of ``STRIDE`` pixels, so column
``j`` of its output is exactly what it says about the ``PATCH_H x PATCH_W`` window starting
at pixel ``STRIDE * j``: whether an upright index (rank over suit) sits there and which. One
forward pass over a strip replaces one pass per window. Outputs per column: the embedding
(``vision enroll`` averages it per card), a rank head (13 ranks plus "no index here") and a
suit head. Trained by ``scripts/vision_train.py`` (PyTorch, training only) and exported to
``card_models/index_net.onnx``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import cv2
import numpy as np

from dealer_assist.domain.cards import RANKS, SUITS

from .white_balance import mended_white

PATCH_H, PATCH_W = 44, 26
#: Patch height in units of the card height (the card is normalised to ``PATCH_H / PATCH_FH``
#: pixels high): deep enough for indices printed low, as on nicu-white.
PATCH_FH = 0.36
#: Card height, in frame pixels, at which strips are cut.
FRAME_CARD_H = PATCH_H / PATCH_FH
#: Output columns are this many input pixels apart.
STRIDE = 4
NONE = len(RANKS)  # the "no index here" class of the rank head
N_RANK, N_SUIT = len(RANKS) + 1, len(SUITS)
#: The second look's window on a found card's index, in frame pixels: taller than the index
#: network's (0.49 card heights against 0.36), so that the suit of a jumbo index is whole in
#: it, and starting ``LOOK_X`` pixels left of the card's edge.
LOOK_H, LOOK_W, LOOK_X = 60, 32, 3
#: Normalised strips: the card's white is mapped to this grey level (uint8).
WHITE_LEVEL = 200.0

F32 = np.float32
#: An enrolled deck: rank and suit logit corrections, linear in the embedding ("rw", "rb",
#: "sw", "sb"), and the digest of the model they were fitted on ("model"). A deck enrolled
#: for the second look too holds one such correction per second-look model, its keys
#: prefixed "look0_", "look1_", ... (see ``look_adapter``).
Adapter = dict[str, np.ndarray]


def look_adapter(deck: Adapter | None, i: int) -> Adapter | None:
    """The correction an enrolled deck holds for the ``i``-th second-look model, if any.

    >>> deck = {"rw": np.zeros(1), "look1_rw": np.ones(1), "look1_model": np.array("ab")}
    >>> sorted(look_adapter(deck, 1)), look_adapter(deck, 0)
    (['model', 'rw'], None)
    """
    prefix = f"look{i}_"
    sub = {k[len(prefix):]: v for k, v in (deck or {}).items() if k.startswith(prefix)}
    return sub or None


def adapt(emb: np.ndarray, zr: np.ndarray, zs: np.ndarray, adapter: Adapter | None) -> tuple[
        np.ndarray, np.ndarray]:
    """Rank and suit logits corrected by an enrolled deck's adapter (unchanged without)."""
    if not adapter:
        return zr, zs
    return (zr + emb @ adapter["rw"] + adapter["rb"], zs + emb @ adapter["sw"] + adapter["sb"])


def normalise_strip(strip: np.ndarray, cast: np.ndarray | None = None) -> np.ndarray:
    """A BGR uint8 strip with lighting and colour cast removed: each channel divided by its
    own bright level (the card's white, the 85th percentile), white mapped to
    ``WHITE_LEVEL``; where the photo's ``cast`` clips the white in a channel, that
    channel's level is the cast's (``white_balance.mended_white``). The network scales
    uint8 to its input range itself."""
    flat = strip[::2, ::2].reshape(-1, 3)
    k = int(flat.shape[0] * 0.85)
    white = mended_white(np.partition(flat, k, axis=0)[k].astype(F32), cast)
    gain = WHITE_LEVEL / (white + 8.0)
    out = strip.astype(F32) * gain[None, None, :]
    return np.asarray(np.clip(out, 0, 255).astype(np.uint8))


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=-1, keepdims=True))


def onnx_net(model: bytes) -> cv2.dnn.Net:
    """A ``cv2.dnn`` network from an ONNX file's bytes."""
    return cv2.dnn.readNetFromONNX(np.frombuffer(model, np.uint8))


class IndexNet:
    """The ONNX network under ``cv2.dnn``; also reads lists of single windows."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        model = self.path.read_bytes()
        self.net = onnx_net(model)
        #: SHA-256 of the model file: an enrolled deck is only valid for the model it was
        #: fitted on (its correction is a map of this network's embedding)
        self.digest = hashlib.sha256(model).hexdigest()
        #: temperature dividing the logits (calibration; stored beside the model)
        self.temperature = 1.0
        #: embeddings are divided by this before an enrolled deck's adapter
        self.emb_scale = 1.0
        meta = self.path.with_suffix(".json")
        if meta.is_file():
            import json

            self.temperature = float(json.loads(meta.read_text()).get("temperature", 1.0))

    def _forward(self, x: np.ndarray) -> np.ndarray:
        """uint8 (N, PATCH_H, W, 3) -> (N, W', C) raw outputs per column."""
        blob = np.ascontiguousarray(x.transpose(0, 3, 1, 2), dtype=F32)
        self.net.setInput(blob)
        out = np.asarray(self.net.forward())  # (N, C, 1, W')
        return np.ascontiguousarray(out[:, :, 0, :].transpose(0, 2, 1))

    def split(self, out: np.ndarray, adapter: Adapter | None = None) -> tuple[
            np.ndarray, np.ndarray, np.ndarray]:
        """Raw outputs (``raw``, ``strip_raw``) -> rank probabilities, suit probabilities,
        embeddings; with ``adapter``, the reads corrected by an enrolled deck."""
        nf = out.shape[-1] - N_RANK - N_SUIT
        emb, zr, zs = out[..., :nf], out[..., nf : nf + N_RANK], out[..., nf + N_RANK :]
        zr, zs = adapt(emb / self.emb_scale, zr, zs, adapter)  # an enrolled deck (``enroll``)
        t = self.temperature
        return _softmax(zr / t), _softmax(zs / t), emb

    def strip_raw(self, strip: np.ndarray) -> np.ndarray:
        """A normalised strip (PATCH_H, W, 3) -> raw outputs (W', C) of the windows every
        STRIDE pixels (see ``split``)."""
        if strip.shape[1] < PATCH_W:
            strip = np.pad(strip, ((0, 0), (0, PATCH_W - strip.shape[1]), (0, 0)), mode="edge")
        return np.asarray(self._forward(strip[None])[0])

    def raw(self, patches: np.ndarray, batch: int = 512) -> np.ndarray:
        """Normalised windows (N, PATCH_H, PATCH_W, 3) -> raw outputs (N, C): embedding,
        rank logits, suit logits."""
        if len(patches) == 0:
            return np.zeros((0, N_RANK + N_SUIT), F32)
        return np.concatenate([self._forward(patches[i : i + batch])[:, 0, :]
                               for i in range(0, len(patches), batch)])

    def predict(self, patches: np.ndarray, adapter: Adapter | None = None) -> tuple[
            np.ndarray, np.ndarray, np.ndarray]:
        """Normalised windows (N, PATCH_H, PATCH_W, 3) -> (rank probs, suit probs,
        embeddings)."""
        return self.split(self.raw(patches), adapter)


#: The second look's model files, beside the index network's: two networks trained on
#: different procedural decks, each reading every window, their reads combined.
SECOND_NAMES = ("index_second.onnx", "index_second_b.onnx")
#: The second look's embedding: its hidden layer (after the ReLU), which feeds the rank and
#: suit heads; an enrolled deck's correction for the second look is linear in it.
LOOK_EMBEDDING = "onnx_node!/hidden/hidden.2/Relu"


class SecondLook:
    """The larger classifier the reader runs on each found card's index windows (rank and
    suit only: the index network has already found the card). Trained by
    ``scripts/vision_train_second.py``. Given several models, it reads with each and
    combines their reads (geometric mean, renormalised): on procedural decks never trained
    on, the two read more cards right than either alone, and the surest wrong read nothing
    else flags scored between the two alone's (card_models/README.md)."""

    def __init__(self, *paths: str | Path) -> None:
        if not paths:
            raise ValueError("the second look needs at least one model file")
        self.paths = [Path(p) for p in paths]
        models = [p.read_bytes() for p in self.paths]
        self.nets = [onnx_net(m) for m in models]
        #: SHA-256 of each model file (an enrolled deck's correction is tied to them)
        self.digests = [hashlib.sha256(m).hexdigest() for m in models]
        for path, net in zip(self.paths, self.nets, strict=True):
            if LOOK_EMBEDDING not in net.getLayerNames():
                raise ValueError(f"{path.name} has no layer {LOOK_EMBEDDING!r}: not a second "
                                 "look exported by scripts/vision_train_second.py")

    def raw(self, windows: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Normalised windows (N, LOOK_H, LOOK_W, 3) -> per model (embeddings (N, E),
        logits (N, 13 ranks + 4 suits))."""
        blob = np.ascontiguousarray(windows.transpose(0, 3, 1, 2), dtype=F32)
        out = []
        for net in self.nets:
            net.setInput(blob)
            emb, z = net.forward([LOOK_EMBEDDING, "out"])
            out.append((np.asarray(emb).reshape(len(blob), -1), np.asarray(z)))
        return out

    def read(self, windows: np.ndarray, deck: Adapter | None = None) -> np.ndarray:
        """Normalised windows (N, LOOK_H, LOOK_W, 3) (see ``geometry.look_window``) ->
        (N, 52) card probabilities over DECK (rank-major, as ``DECK``), each model's read
        corrected by an enrolled deck's correction for it (``look_adapter``)."""
        if len(windows) == 0:
            return np.zeros((0, len(RANKS) * len(SUITS)), F32)
        return self.combine(self.raw(windows), deck)

    def combine(self, raw: list[tuple[np.ndarray, np.ndarray]],
                deck: Adapter | None = None) -> np.ndarray:
        """The models' raw outputs (``raw``) -> (N, 52) card probabilities, as ``read``."""
        reads = []
        for i, (emb, z) in enumerate(raw):
            zr, zs = adapt(emb, z[:, : len(RANKS)], z[:, len(RANKS) :], look_adapter(deck, i))
            rank, suit = _softmax(zr), _softmax(zs)
            reads.append((rank[:, :, None] * suit[:, None, :]).reshape(len(z), -1))
        if len(reads) == 1:
            return np.asarray(reads[0])
        joint = np.exp(np.mean([np.log(r + 1e-6) for r in reads], axis=0))
        return np.asarray(joint / joint.sum(axis=1, keepdims=True))


#: The covered-index network's file, beside the second look's
#: (``scripts/vision_train_covered.py``).
COVERED_NAME = "index_covered.onnx"


class CoveredIndex:
    """Whether something lies over an index (a chip pushed up against the hand): a small
    network of its own, trained by ``scripts/vision_train_covered.py``, on the second look's
    window (``geometry.look_window``). It reads no card."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.net = onnx_net(self.path.read_bytes())

    def probability(self, windows: np.ndarray) -> np.ndarray:
        """Normalised windows (N, LOOK_H, LOOK_W, 3) -> (N,) the probability that something
        lies over each window's index."""
        if len(windows) == 0:
            return np.zeros(0, F32)
        self.net.setInput(np.ascontiguousarray(windows.transpose(0, 3, 1, 2), dtype=F32))
        z = np.asarray(self.net.forward()).reshape(len(windows))
        return np.asarray(1.0 / (1.0 + np.exp(-z)), F32)
