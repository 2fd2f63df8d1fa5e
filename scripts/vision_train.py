#!/usr/bin/env python3
"""Train the index-corner classifier of card_models/ from the kdegames deck designs.

    .venv/bin/pip install -e '.[vision-train]'
    .venv/bin/python scripts/vision_train.py            # writes card_models/index_net.npz

Training patches are cut by the reader's own code from rendered hands (see
dealer_assist/vision/trainset.py) of the TRAIN_DECKS designs only; HELD_OUT_DECKS never take
part. The network is trained with PyTorch (CPU) and saved as plain numpy arrays, which the
reader runs without PyTorch. Patch accuracy on held-out designs is printed at the end; the
end-to-end figures come from benchmarks/vision.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dealer_assist.vision.faces import HELD_OUT_DECKS, TRAIN_DECKS, load_deck  # noqa: E402
from dealer_assist.vision.net import N_RANK, N_SUIT, NONE, normalise  # noqa: E402
from dealer_assist.vision.trainset import Patches, synth_patches  # noqa: E402


def _job(args: tuple[str, int, int]) -> Patches:
    deck, seed, scenes = args
    import cv2

    cv2.setNumThreads(1)
    return synth_patches(load_deck(deck), seed, scenes)


def build(decks: tuple[str, ...], scenes_per_deck: int, seed: int, workers: int) -> Patches:
    chunk = 50
    jobs = [(d, seed + 1000 * i + j, chunk)
            for i, d in enumerate(decks) for j in range(max(1, scenes_per_deck // chunk))]
    for d in decks:
        load_deck(d)  # render the faces once, before the workers need them
    with ProcessPoolExecutor(workers) as pool:
        parts = list(pool.map(_job, jobs))
    return Patches(np.concatenate([p.x for p in parts]), np.concatenate([p.rank for p in parts]),
                   np.concatenate([p.suit for p in parts]))


def make_model():  # type: ignore[no-untyped-def]
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c1 = nn.Conv2d(3, 12, 3, padding=1)
            self.c2 = nn.Conv2d(12, 24, 3, padding=1)
            self.c3 = nn.Conv2d(24, 32, 3, padding=1)
            self.f1 = nn.Linear(32 * 5 * 3, 64)
            self.hr = nn.Linear(64, N_RANK)
            self.hs = nn.Linear(64, N_SUIT)
            self.pool = nn.MaxPool2d(2)
            self.act = nn.ReLU()
            self.drop = nn.Dropout(0.2)

        def forward(self, x):  # type: ignore[no-untyped-def]
            for c in (self.c1, self.c2, self.c3):
                x = self.pool(self.act(c(x)))
            h = self.drop(self.act(self.f1(x.flatten(1))))
            return self.hr(h), self.hs(h)

    return Net()


def augment(x, torch):  # type: ignore[no-untyped-def]
    """Random gain and contrast per patch, and a shift of up to one pixel."""
    n = x.shape[0]
    gain = 1.0 + 0.15 * (torch.rand(n, 1, 1, 1) - 0.5)
    x = (x + 0.6) * gain - 0.6
    dx, dy = np.random.randint(-1, 2, 2)
    return torch.roll(x, shifts=(int(dy), int(dx)), dims=(2, 3))


def train(data: Patches, epochs: int, seed: int):  # type: ignore[no-untyped-def]
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    x = torch.from_numpy(normalise(data.x))
    yr = torch.from_numpy(data.rank.astype(np.int64))
    ys = torch.from_numpy(data.suit.astype(np.int64))
    model = make_model()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * ((len(x) + 255) // 256)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(len(x))
        total = 0.0
        t0 = time.time()
        for i in range(0, len(x), 256):
            idx = perm[i : i + 256]
            xr, xs = model(augment(x[idx], torch))
            loss = F.cross_entropy(xr, yr[idx]) + F.cross_entropy(xs, ys[idx], ignore_index=-1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        print(f"epoch {ep + 1}/{epochs}: loss {total / len(x):.4f} ({time.time() - t0:.0f}s)",
              flush=True)
    return model


def export(model, path: Path) -> None:  # type: ignore[no-untyped-def]
    sd = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    arrays = {}
    for name in ("c1", "c2", "c3", "f1", "hr", "hs"):
        arrays[f"{name}w"] = sd[f"{name}.weight"]
        arrays[f"{name}b"] = sd[f"{name}.bias"]
    np.savez_compressed(path, **arrays)


def patch_accuracy(path: Path, data: Patches) -> dict[str, float]:
    from dealer_assist.vision.net import IndexNet

    net = IndexNet.load(path)
    pr, ps, _ = net.predict(data.x)
    r, s = pr.argmax(1), ps.argmax(1)
    pos = data.rank != NONE
    right = (r[pos] == data.rank[pos]) & (s[pos] == data.suit[pos])
    return {"index_patches": int(pos.sum()), "index_read_right": float(right.mean()),
            "none_patches": int((~pos).sum()), "none_right": float((r[~pos] == NONE).mean())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "card_models" / "index_net.npz")
    ap.add_argument("--scenes", type=int, default=400, help="hand scenes per training deck")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    t0 = time.time()
    data = build(TRAIN_DECKS, args.scenes, args.seed, args.workers)
    print(f"training patches: {len(data.x)} ({int((data.rank != NONE).sum())} index corners) "
          f"from {', '.join(TRAIN_DECKS)} in {time.time() - t0:.0f}s", flush=True)
    model = train(data, args.epochs, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    export(model, args.out)
    report = {"train_decks": list(TRAIN_DECKS), "held_out_decks": list(HELD_OUT_DECKS),
              "train_patches": len(data.x), "epochs": args.epochs, "seed": args.seed,
              "held_out_patch_accuracy": {}}
    for deck in HELD_OUT_DECKS:
        held = build((deck,), 100, args.seed + 99, args.workers)
        report["held_out_patch_accuracy"][deck] = patch_accuracy(args.out, held)
        print(deck, report["held_out_patch_accuracy"][deck], flush=True)
    (args.out.parent / "index_net.json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.out} in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
