"""The index-corner classifier: a small convolutional network run with numpy alone.

Input: patches of ``PATCH_H x PATCH_W`` BGR pixels cut at a card's index corner (rank over
suit, upright). Output: a rank distribution over the 13 ranks plus "no index here", and a
suit distribution. The weights (``card_models/index_net.npz``) are trained by
``scripts/vision_train.py`` with PyTorch; running them needs only numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dealer_assist.domain.cards import RANKS, SUITS

PATCH_H, PATCH_W = 44, 26
#: Patch height in units of the card height (the card is normalised to ``PATCH_H / PATCH_FH``
#: pixels high): deep enough for indices printed low, as on nicu-white.
PATCH_FH = 0.36
#: Card height, in frame pixels, at which patches are cut.
FRAME_CARD_H = PATCH_H / PATCH_FH
NONE = len(RANKS)  # the "no index here" class of the rank head
N_RANK, N_SUIT = len(RANKS) + 1, len(SUITS)


def normalise(patches: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) uint8/float BGR -> (N, 3, H, W) float32, lighting and colour cast removed:
    each channel is divided by its own bright level (the card's white)."""
    x = patches.astype(np.float32)
    n = x.shape[0]
    flat = patches[:, ::2, ::2].reshape(n, -1, 3)  # every fourth pixel is enough for this
    k = int(flat.shape[1] * 0.85)
    white = np.partition(flat, k, axis=1)[:, k, :].astype(np.float32)  # (N, 3)
    x = x / (white[:, None, None, :] + 8.0)
    x = np.clip(x, 0.0, 1.25) - 0.6
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def _conv3x3_relu(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x (N, H, W, C) channels last, w (O, C, 3, 3), padding 1, then ReLU: nine shifted
    matrix products, which beats an im2col copy for these small layers."""
    n, h, wd, c = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.empty((n * h * wd, w.shape[0]), np.float32)
    out[:] = b
    for dy in range(3):
        for dx in range(3):
            out += xp[:, dy : dy + h, dx : dx + wd, :].reshape(-1, c) @ w[:, :, dy, dx].T
    np.maximum(out, 0, out=out)
    return out.reshape(n, h, wd, -1)


def _pool2(x: np.ndarray) -> np.ndarray:
    n, h, w, c = x.shape
    x = x[:, : h // 2 * 2, : w // 2 * 2]
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class DnnIndexNet:
    """The same network exported to ONNX and run by ``cv2.dnn`` (faster than numpy): one
    output per patch, the embedding then the rank and suit logits."""

    def __init__(self, path: str | Path) -> None:
        import cv2

        self.net = cv2.dnn.readNetFromONNX(str(path))
        self.path = Path(path)

    def predict(self, patches: np.ndarray, batch: int = 1024) -> tuple[np.ndarray, np.ndarray,
                                                                       np.ndarray]:
        if len(patches) == 0:
            return (np.zeros((0, N_RANK), np.float32), np.zeros((0, N_SUIT), np.float32),
                    np.zeros((0, 0), np.float32))
        outs = []
        for i in range(0, len(patches), batch):
            self.net.setInput(normalise(patches[i : i + batch]))
            outs.append(np.asarray(self.net.forward()).reshape(min(batch, len(patches) - i), -1))
        out = np.concatenate(outs)
        nf = out.shape[1] - N_RANK - N_SUIT
        return (_softmax(out[:, nf : nf + N_RANK]), _softmax(out[:, nf + N_RANK :]),
                out[:, :nf])


@dataclass
class IndexNet:
    weights: dict[str, np.ndarray]

    @classmethod
    def load(cls, path: str | Path) -> IndexNet:
        with np.load(path) as data:
            return cls({k: data[k].astype(np.float32) for k in data.files})

    def features(self, x: np.ndarray) -> np.ndarray:
        """Normalised patches (N, 3, H, W) -> the penultimate embedding (N, F)."""
        wt = self.weights
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        for i in (1, 2, 3):
            x = _pool2(_conv3x3_relu(x, wt[f"c{i}w"], wt[f"c{i}b"]))
        flat = x.transpose(0, 3, 1, 2).reshape(x.shape[0], -1)  # the (C, H, W) order of torch
        h = flat @ wt["f1w"].T + wt["f1b"]
        return np.maximum(h, 0)

    def heads(self, feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        wt = self.weights
        rank = _softmax(feats @ wt["hrw"].T + wt["hrb"])
        suit = _softmax(feats @ wt["hsw"].T + wt["hsb"])
        return rank, suit

    def predict(self, patches: np.ndarray, batch: int = 512) -> tuple[np.ndarray, np.ndarray,
                                                                      np.ndarray]:
        """BGR patches (N, PATCH_H, PATCH_W, 3) -> (rank probs, suit probs, embeddings)."""
        if len(patches) == 0:
            return (np.zeros((0, N_RANK), np.float32), np.zeros((0, N_SUIT), np.float32),
                    np.zeros((0, self.weights["f1b"].shape[0]), np.float32))
        ranks, suits, feats = [], [], []
        for i in range(0, len(patches), batch):
            f = self.features(normalise(patches[i : i + batch]))
            r, s = self.heads(f)
            ranks.append(r)
            suits.append(s)
            feats.append(f)
        return np.concatenate(ranks), np.concatenate(suits), np.concatenate(feats)
