#!/usr/bin/env python3
"""Train card_models/index_covered.onnx: is something lying over a card's index?

    .venv/bin/pip install -e '.[vision-train]'      # torch==2.13.0 (CPU)
    .venv/bin/python scripts/vision_train_covered.py --parts /tmp/covered

A chip pushed up against a hand can lie over an index and hide its suit or its rank; the
second look then reads what is left, and now and then reads it wrong and sure (a red chip
over a club's suit read as a heart). Training the second look itself on such windows made
it surer of them, not warier (card_models/README.md, "Something lying over an index"), and
a linear read of the second look's own hidden layer caught few of its wrong sure reads (the
features that misled it). This is a small network of its own, on the second look's
window (``geometry.look_window``), saying only whether an object lies over the index's
ink; the second look is not changed, so no card reads otherwise, and a card whose windows
read covered is sent to the dealer.

Windows are the second look's training windows (``trainset.looks_from_photo`` via
``vision_train_second``'s jobs: the kdegames training designs and procedural decks). Each
batch lays an object over ``OCCLUDED`` of them (``vision_train_second.occlude``: an ellipse,
often with inlays around its edge, any colour, some the ink's), labelled covered where it
lies over ``COVERED_INK`` or more of the window's ink, not covered where it lies over less
than ``BESIDE_INK`` of it (beside the index) or where there is none; the windows in between
count for nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from vision_train import augment, build, jobs_for, one_cycle, onnx_export  # noqa: E402
from vision_train_second import occlude, window_layers  # noqa: E402

from dealer_assist.vision.net import LOOK_H, LOOK_W, WHITE_LEVEL, CoveredIndex  # noqa: E402

OCCLUDED, COVERED_INK, BESIDE_INK = 0.5, 0.2, 0.02
#: Share of the objects laid with their edge near the index's ink: the case that misleads
#: the second look is an object over the suit, right under the rank (a red chip where a
#: club's suit was, read as a heart), which objects laid anywhere seldom make.
ON_INK = 0.5
#: The network's size: it runs on every card's window, beside the second look's two
#: networks of 32/64/96, so it is kept small (16/32/48 with 64 units took 4-5 ms for a
#: photo's 25 windows, this 2 ms; card_models/README.md).
WIDTHS, UNITS = (8, 16, 32), 32


def laid_over(x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Windows (N, 3, H, W) uint8-valued floats with objects laid over ``OCCLUDED`` of them,
    and the share of each window's ink (darker than 0.6 of its median level) the object
    lies over."""
    after = x.copy()
    occlude(after, rng, OCCLUDED, ON_INK)
    over = np.abs(after - x).max(axis=1) > 20
    level = x.sum(axis=1)
    ink = level < 0.6 * np.median(level.reshape(len(x), -1), axis=1)[:, None, None]
    share = (over & ink).reshape(len(x), -1).sum(1) / np.maximum(
        ink.reshape(len(x), -1).sum(1), 1)
    return np.clip(after, 0, 255), share


def labels(share: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(covered 0/1, whether the window counts) from the share of ink covered."""
    return ((share >= COVERED_INK).astype(np.float32),
            ((share >= COVERED_INK) | (share < BESIDE_INK)).astype(np.float32))


def make_model():  # type: ignore[no-untyped-def]
    import torch.nn as nn

    class Covered(nn.Module):
        """Three padded 3x3 convolutions (``WIDTHS``) with 2x poolings, ``UNITS`` units, one
        logit; input one LOOK_H x LOOK_W window."""

        def __init__(self) -> None:
            super().__init__()
            self.features, self.hidden = window_layers(WIDTHS, UNITS)
            self.out = nn.Linear(UNITS, 1)

        def forward(self, x):  # type: ignore[no-untyped-def]
            return self.out(self.hidden(self.features(x * (1.0 / WHITE_LEVEL) - 0.6)))

        export_forward = forward

    return Covered()


def train(x: np.ndarray, minutes: float, seed: int, max_lr: float, threads: int,
          batch: int = 128):  # type: ignore[no-untyped-def]
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    np.random.seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    xt = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    model = make_model()
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr / 25, weight_decay=5e-4)
    t_start, ep = time.time(), 0
    model.train()
    while True:
        perm = rng.permutation(len(xt))
        total, seen, t0 = 0.0, 0, time.time()
        for i in range(0, len(xt) - batch + 1, batch):
            frac = (time.time() - t_start) / (minutes * 60.0)
            if frac >= 1.0:
                break
            for g in opt.param_groups:
                g["lr"] = one_cycle(frac, max_lr)
            windows, share = laid_over(xt[perm[i : i + batch]].astype(np.float32), rng)
            y, counts = labels(share)
            z = model(augment(torch.from_numpy(windows), torch))[:, 0]
            loss = (F.binary_cross_entropy_with_logits(z, torch.from_numpy(y), reduction="none")
                    * torch.from_numpy(counts)).sum() / max(float(counts.sum()), 1.0)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * batch
            seen += batch
        if not seen:
            break
        ep += 1
        print(f"epoch {ep}: loss {total / seen:.4f} ({time.time() - t0:.0f}s)", flush=True)
        if time.time() - t_start >= minutes * 60.0:
            break
    model.eval()
    return model


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "card_models" / "index_covered.onnx")
    ap.add_argument("--scenes", type=int, default=100, help="hand scenes per kdegames deck")
    ap.add_argument("--proc-decks", type=int, default=300)
    ap.add_argument("--proc-scenes", type=int, default=8)
    ap.add_argument("--seeds", default="27,28", help="one set of windows per seed")
    ap.add_argument("--check-seed", type=int, default=26, help="windows to measure on")
    ap.add_argument("--minutes", type=float, default=12.0)
    ap.add_argument("--max-lr", type=float, default=2e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--parts", type=Path, help="folder caching the windows (a folder per seed)")
    args = ap.parse_args(argv)
    t0 = time.time()

    def windows(seed: int, scale: float) -> np.ndarray:
        jobs = jobs_for(argparse.Namespace(
            scenes=max(1, round(args.scenes * scale)),
            proc_decks=max(1, round(args.proc_decks * scale)),
            proc_scenes=args.proc_scenes), seed, ("looks",))
        return build(jobs, args.workers, args.parts / f"seed-{seed}" if args.parts else None).x

    seeds = [int(v) for v in args.seeds.split(",")]
    x = np.concatenate([windows(seed, 1.0) for seed in seeds])
    print(f"{len(x)} windows ({time.time() - t0:.0f}s)", flush=True)
    model = train(x, args.minutes, seeds[0], args.max_lr, args.threads)
    import torch

    args.out.parent.mkdir(parents=True, exist_ok=True)
    onnx_export(model, args.out, torch.zeros(1, 3, LOOK_H, LOOK_W), "window",
                {"window": {0: "n"}, "out": {0: "n"}})
    # measured on windows of another seed, each with or without an object as in training
    check = windows(args.check_seed, 0.3)
    over, share = laid_over(np.ascontiguousarray(check.transpose(0, 3, 1, 2)).astype(
        np.float32), np.random.default_rng(args.check_seed))
    p = CoveredIndex(args.out).probability(over.transpose(0, 2, 3, 1).astype(np.uint8))
    clean = share == 0
    report: dict[str, object] = {
        "model": "index_covered.onnx: padded 3x3 convs {}/{}/{} each with a 2x max-pool, "
                 "{} units, one logit, over one {}x{} window".format(*WIDTHS, UNITS, LOOK_H,
                                                                     LOOK_W),
        "windows": len(x), "seeds": seeds, "occluded_share": OCCLUDED, "on_ink": ON_INK,
        "covered_ink": COVERED_INK, "beside_ink": BESIDE_INK,
        "training_minutes": args.minutes, "check_windows": len(check), "check": {}}
    for t in (0.5, 0.8, 0.9, 0.95):
        report["check"][str(t)] = {  # type: ignore[index]
            "clean_flagged": round(float(np.mean(p[clean] > t)), 4),
            "beside_flagged": round(float(np.mean(p[(share > 0) & (share < BESIDE_INK)] > t)), 4),
            "covered_0.2_flagged": round(float(np.mean(p[share >= 0.2] > t)), 4),
            "covered_0.5_flagged": round(float(np.mean(p[share >= 0.5] > t)), 4)}
    print(json.dumps(report["check"], indent=1))
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.out} in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
