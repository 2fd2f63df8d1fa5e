#!/usr/bin/env python3
"""Train the second look of card_models/ (index_second.onnx, run by cv2.dnn).

    .venv/bin/pip install -e '.[vision-train]'      # torch==2.13.0 (CPU), pillow, onnx
    .venv/bin/python scripts/vision_train_second.py --parts /tmp/second_parts

The index network (scripts/vision_train.py) finds the cards and reads them in one pass over
whole strips, so it must stay small. Once the cards are found, the reader looks again at
each card's index through a taller window (``geometry.look_window``; trained with the card
at three sizes, read at two) with this larger classifier: rank and suit only, no "no index
here". It is trained on those windows on every visible index, cut as the reader cuts them
(``trainset.looks_from_photo``) from rendered hands of the kdegames TRAIN_DECKS designs and
procedural decks (a quarter of them jumbo-index, half with line-art court cards, 30% with a
rank typeface from the extra families or stroke fonts; HELD_OUT_DECKS never take part).
``--build-only`` makes and caches the windows (``--parts``) without training.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from vision_decks import EXTRA_FONT_SHARE, JUMBO_SHARE, LINE_ART_SHARE  # noqa: E402
from vision_train import (  # noqa: E402
    add_data_options,
    augment,
    build,
    deck_jobs,
    jobs_for,
    load_onnx_weights,
    one_cycle,
    onnx_export,
)

from dealer_assist.vision.faces import HELD_OUT_DECKS, TRAIN_DECKS  # noqa: E402
from dealer_assist.vision.net import LOOK_H, LOOK_W, NONE, WHITE_LEVEL  # noqa: E402
from dealer_assist.vision.trainset import Patches  # noqa: E402

N_RANKS, N_SUITS = NONE, 4
#: Share of training windows with something lying over the index (``occlude``): a chip
#: pushed against a hand, a finger. Labelled with the card under it, so that where it hides
#: the rank or the suit the network would learn to be unsure of it rather than guess. Off:
#: 0.25 was tried on 2026-12-04 and not installed (card_models/README.md, "Something lying
#: over an index"): more cards sure, fewer right on the held-out designs, and the surest
#: wrong read under a chip as sure as before.
OCCLUDE_SHARE = 0.0
#: Share of those objects the colour of the index's own ink. Tried because a red chip over
#: a diamond's suit read as a heart at 0.94 after training on objects of random colours.
INK_SHARE = 0.4


def occlude(x: np.ndarray, rng: np.random.Generator, share: float,
            on_ink: float = 0.0) -> None:
    """Lay an object over ``share`` of ``x``'s windows (N, 3, LOOK_H, LOOK_W, uint8-valued
    floats, in place): an ellipse 0.08-0.3 card heights across (a chip seen at a slant, a
    fingertip), ``INK_SHARE`` of them the colour of the window's darkest ink, the rest
    white, grey, black or any colour, now and then with spots around its edge (a chip's
    inlays), anywhere it reaches over the index corner; ``on_ink`` of them with its edge
    passing near one of the window's inked pixels (over the suit, or the rank, in part)."""
    card_h = LOOK_H / 0.49  # the window is 0.49 of the card's height at size 1.0
    for i in np.flatnonzero(rng.random(len(x)) < share):
        mask = np.zeros((LOOK_H * 4, LOOK_W * 4), np.uint8)  # drawn 4x, for soft edges
        paint = np.zeros((LOOK_H * 4, LOOK_W * 4, 3), np.float32)
        r = rng.uniform(0.08, 0.3) * card_h
        centre = (rng.uniform(-0.3, 1.3) * LOOK_W, rng.uniform(-0.1, 0.8) * LOOK_H)
        if on_ink and rng.random() < on_ink:
            level = x[i].sum(0)
            ys, xs = np.nonzero(level <= np.percentile(level, 8))
            k, t = int(rng.integers(len(ys))), rng.uniform(0, 2 * np.pi)
            reach = rng.uniform(0.0, 1.0) * r  # the ink pixel lies this far in from its edge
            centre = (xs[k] + (r - reach) * np.cos(t), ys[k] + (r - reach) * np.sin(t))
        axes = (r, r * rng.uniform(0.6, 1.0))
        turn = rng.uniform(0, 180)
        kind = rng.random()
        if kind < INK_SHARE:  # the colour of the index's own ink: a red chip on a diamond
            level = x[i].sum(0).ravel()
            inked = np.flatnonzero(level <= np.percentile(level, 3))
            body = x[i].reshape(3, -1)[:, int(rng.choice(inked))] * rng.uniform(0.8, 1.2)
        elif kind < INK_SHARE + 0.2:  # white, grey or black
            body = np.full(3, rng.uniform(0.05, 1.2)) * WHITE_LEVEL
        else:
            body = rng.uniform(0.05, 1.2, 3) * WHITE_LEVEL
        _ellipse(mask, centre, axes, turn, 255)
        paint[:] = body
        if rng.random() < 0.6:  # inlays in a colour of their own
            inlay = rng.uniform(0.05, 1.2, 3) * WHITE_LEVEL
            spots = np.zeros_like(mask)
            start, n = rng.uniform(0, 360), int(rng.integers(4, 11))
            for k in range(n):
                t = np.radians(start + 360 * k / n)
                _ellipse(spots, (centre[0] + 0.8 * axes[0] * np.cos(t),
                                 centre[1] + 0.8 * axes[1] * np.sin(t)),
                         (0.16 * r, 0.16 * r), 0, 255)
            paint[spots > 0] = inlay
        m = cv2.resize(mask, (LOOK_W, LOOK_H), interpolation=cv2.INTER_AREA
                       ).astype(np.float32)[None] / 255.0
        colour = cv2.resize(paint, (LOOK_W, LOOK_H), interpolation=cv2.INTER_AREA
                            ).transpose(2, 0, 1)
        colour += rng.normal(0, 4.0, colour.shape).astype(np.float32)
        x[i] = x[i] * (1 - m) + colour * m


def _ellipse(img: np.ndarray, centre: tuple[float, float], axes: tuple[float, float],
             turn: float, value: int) -> None:
    cv2.ellipse(img, (round(centre[0] * 4), round(centre[1] * 4)),
                (max(1, round(axes[0] * 4)), max(1, round(axes[1] * 4))), turn, 0, 360,
                value, -1, cv2.LINE_AA)


def window_layers(widths: tuple[int, int, int], units: int):  # type: ignore[no-untyped-def]
    """Three padded 3x3 convolutions of ``widths`` each with a 2x max-pool, and a layer of
    ``units`` over them, for one LOOK_H x LOOK_W window: (features, hidden)."""
    import torch.nn as nn

    a, b, c = widths
    features = nn.Sequential(
        nn.Conv2d(3, a, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(a, b, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(b, c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
    n = c * (LOOK_H // 8) * (LOOK_W // 8)
    return features, nn.Sequential(nn.Flatten(), nn.Linear(n, units), nn.ReLU())


def make_model():  # type: ignore[no-untyped-def]
    import torch
    import torch.nn as nn

    class Second(nn.Module):
        """Three padded 3x3 convolutions (32/64/96) with 2x poolings, a 192-unit layer,
        rank and suit heads; input one LOOK_H x LOOK_W window."""

        def __init__(self) -> None:
            super().__init__()
            self.features, self.hidden = window_layers((32, 64, 96), 192)
            self.drop = nn.Dropout(0.3)
            self.rank = nn.Linear(192, N_RANKS)
            self.suit = nn.Linear(192, N_SUITS)

        def forward(self, x):  # type: ignore[no-untyped-def]
            h = self.drop(self.hidden(self.features(x * (1.0 / WHITE_LEVEL) - 0.6)))
            return self.rank(h), self.suit(h)

        def export_forward(self, x):  # type: ignore[no-untyped-def]
            h = self.hidden(self.features(x * (1.0 / WHITE_LEVEL) - 0.6))
            return torch.cat([self.rank(h), self.suit(h)], dim=1)

    return Second()


def train(data: Patches, minutes: float, epochs: float, seed: int, max_lr: float,  # type: ignore[no-untyped-def]
          batch: int = 128, threads: int = 2, resume: Path | None = None,
          occlusion: float = OCCLUDE_SHARE):
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    np.random.seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(np.ascontiguousarray(data.x.transpose(0, 3, 1, 2)))
    yr = torch.from_numpy(data.rank.astype(np.int64))
    ys = torch.from_numpy(data.suit.astype(np.int64))
    model = make_model()
    if resume is not None:
        load_onnx_weights(model, resume)
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr / 25, weight_decay=5e-4)
    per_epoch = len(x) // batch
    t_start, step, ep, done = time.time(), 0, 0, False
    model.train()
    while not done:
        perm = torch.randperm(len(x))
        total, seen, right, t0 = 0.0, 0, 0, time.time()
        for i in range(0, len(x) - batch + 1, batch):
            # the learning rate follows the share of the budget spent (time or steps,
            # whichever runs out first): warm-up, then a cosine down to nothing
            frac = max((time.time() - t_start) / (minutes * 60.0), step / (epochs * per_epoch))
            if frac >= 1.0:
                done = True
                break
            for g in opt.param_groups:
                g["lr"] = one_cycle(frac, max_lr)
            idx = perm[i : i + batch]
            windows = x[idx].numpy().astype(np.float32)
            occlude(windows, rng, occlusion)
            xb = augment(torch.from_numpy(windows), torch)
            dx, dy = np.random.randint(-1, 2, 2)  # with augment's: shifts of up to 2 pixels
            xb = torch.roll(xb, shifts=(int(dy), int(dx)), dims=(2, 3))
            zr, zs = model(xb)
            loss = F.cross_entropy(zr, yr[idx], label_smoothing=0.02) + F.cross_entropy(
                zs, ys[idx], label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            total += loss.item() * len(idx)
            seen += len(idx)
            right += int(((zr.argmax(1) == yr[idx]) & (zs.argmax(1) == ys[idx])).sum())
        if not seen:
            break
        ep += 1
        print(f"epoch {ep}: loss {total / max(seen, 1):.4f}, read right while training "
              f"{right / max(seen, 1):.3f} ({time.time() - t0:.0f}s, {step} steps)", flush=True)
    model.eval()
    return model


def export_onnx(model, path: Path) -> None:  # type: ignore[no-untyped-def]
    """(N, 3, LOOK_H, LOOK_W) uint8-valued floats -> (N, 13 rank + 4 suit logits)."""
    import torch

    onnx_export(model, path, torch.zeros(1, 3, LOOK_H, LOOK_W), "window",
                {"window": {0: "n"}, "out": {0: "n"}})


def accuracy(path: Path, data: Patches) -> float:
    net = cv2.dnn.readNetFromONNX(str(path))
    out = []
    for i in range(0, len(data.x), 512):
        net.setInput(np.ascontiguousarray(data.x[i : i + 512].transpose(0, 3, 1, 2),
                                          dtype=np.float32))
        out.append(np.asarray(net.forward()))
    z = np.concatenate(out)
    right = (z[:, :N_RANKS].argmax(1) == data.rank) & (z[:, N_RANKS:].argmax(1) == data.suit)
    return round(float(right.mean()), 4)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "card_models" / "index_second.onnx")
    add_data_options(ap, proc_decks=700, proc_scenes=12)
    ap.add_argument("--epochs", type=float, default=20.0)
    ap.add_argument("--max-lr", type=float, default=2e-3)
    ap.add_argument("--seeds", default="8,9,10",
                    help="one set of windows per seed (procedural decks seed*10000 on)")
    ap.add_argument("--resume", type=Path, help="continue training this exported .onnx")
    ap.add_argument("--occlude", type=float, default=OCCLUDE_SHARE,
                    help="share of windows with something lying over the index")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2, help="torch threads while training")
    ap.add_argument("--parts", type=Path, help="folder caching the training windows "
                    "(a folder seed-N per seed, a file per job)")
    ap.add_argument("--build-minutes", type=float, help="time budget for making windows")
    ap.add_argument("--build-only", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.time()
    seeds = [int(v) for v in args.seeds.split(",")]
    sets, decks = [], set()
    for seed in seeds:
        jobs = jobs_for(args, seed, ("looks",))
        sets.append(build(jobs, args.workers, args.parts / f"seed-{seed}" if args.parts else None,
                          args.build_minutes))
        decks |= {j[0] for j in jobs}
    data = Patches(np.concatenate([p.x for p in sets]), np.concatenate([p.rank for p in sets]),
                   np.concatenate([p.suit for p in sets]))
    print(f"index windows: {len(data.x)} from {len(decks)} decks in {time.time() - t0:.0f}s",
          flush=True)
    if args.build_only:
        return 0
    model = train(data, args.minutes, args.epochs, seeds[0], args.max_lr,
                  threads=args.threads, resume=args.resume, occlusion=args.occlude)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(model, args.out)
    held = {d: accuracy(args.out, build(deck_jobs([d], 30, seeds[0] + 99, kind=("looks",)),
                                        args.workers))
            for d in HELD_OUT_DECKS}
    report = {"model": "index_second.onnx: padded 3x3 convs 32/64/96 each with a 2x "
                       f"max-pool, 192 units, rank 13 + suit 4, over one {LOOK_H}x{LOOK_W} "
                       "window",
              "train_decks": list(TRAIN_DECKS),
              "procedural_deck_seeds": [[s * 10_000, s * 10_000 + args.proc_decks - 1]
                                        for s in seeds],
              "held_out_decks": list(HELD_OUT_DECKS), "index_windows": len(data.x),
              "jumbo_index_share": JUMBO_SHARE, "line_art_share": LINE_ART_SHARE,
              "extra_font_share": EXTRA_FONT_SHARE,
              "occluded_share": args.occlude, "training_minutes": args.minutes, "epochs": args.epochs,
              "resumed_from": str(args.resume) if args.resume else None,
              "held_out_window_accuracy": held}
    print(json.dumps(held), flush=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.out} in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
