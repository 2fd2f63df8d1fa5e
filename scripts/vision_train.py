#!/usr/bin/env python3
"""Train the index-corner network of card_models/ (index_net.onnx, run by cv2.dnn).

    .venv/bin/pip install -e '.[vision-train]'      # torch==2.13.0 (CPU), pillow, onnx
    .venv/bin/python scripts/vision_train.py --data /tmp/index_data.npz

Training windows are cut by the reader's own code (dealer_assist/vision/trainset.py) from
rendered hands of:
- the kdegames TRAIN_DECKS designs (HELD_OUT_DECKS never take part), and
- procedural decks (scripts/vision_decks.py): each a random index typeface from the freely
  licensed Debian fonts, index size, position, suit shape and face, so the network learns
  what an index is across designs.
A few procedural decks are kept apart to calibrate the confidence (a temperature on the
logits, written to index_net.json). Window accuracy on the held-out designs is printed at the
end for the record; the end-to-end figures come from benchmarks/vision.py.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from vision_decks import (  # noqa: E402
    EXTRA_FONT_SHARE,
    JUMBO_SHARE,
    LINE_ART_SHARE,
    procedural_deck,
)

from dealer_assist.vision.faces import HELD_OUT_DECKS, TRAIN_DECKS, load_deck  # noqa: E402
from dealer_assist.vision.net import (  # noqa: E402
    N_RANK,
    N_SUIT,
    NONE,
    PATCH_H,
    PATCH_W,
    WHITE_LEVEL,
    IndexNet,
)
from dealer_assist.vision.trainset import Patches, synth_looks, synth_patches  # noqa: E402

#: Procedural deck seeds at or above this are kept for calibration, never trained on.
CALIBRATION_SEED = 900_000


def _job(args: tuple[str, int, int] | tuple[str, int, int, str]) -> Patches:
    """One job's windows: the index network's (sliding along every frame), or with a
    fourth element "looks" the second look's (on every visible index)."""
    deck, seed, scenes = args[:3]
    import cv2

    cv2.setNumThreads(1)
    faces = procedural_deck(int(deck[5:])) if deck.startswith("proc:") else load_deck(deck)
    if args[3:] == ("looks",):
        return synth_looks(faces, seed, scenes)
    return synth_patches(faces, seed, scenes)


def _concat(parts: list[Patches]) -> Patches:
    return Patches(np.concatenate([p.x for p in parts]), np.concatenate([p.rank for p in parts]),
                   np.concatenate([p.suit for p in parts]))


Job = tuple[str, int, int] | tuple[str, int, int, str]


def build(jobs: list[Job], workers: int, parts: Path | None = None,
          minutes: float | None = None) -> Patches:
    """Run the jobs; with ``parts``, each job's windows are saved there as it finishes (a
    rerun skips those done) and, with ``minutes``, no job starts after that budget: the
    windows made so far are the training set."""
    from concurrent.futures import FIRST_COMPLETED, wait

    for d in {j[0] for j in jobs}:
        if not d.startswith("proc:"):
            load_deck(d)  # render the faces once, before the workers need them
    done: list[Patches] = []
    todo = []
    for n, job in enumerate(jobs):
        f = parts / f"{n:05d}.npz" if parts else None
        if f is not None and f.exists():
            with np.load(f) as d:
                done.append(Patches(d["x"], d["rank"], d["suit"]))
        else:
            todo.append((n, job))
    t0 = time.time()
    # spawn, not fork: a child forked after this process used OpenCV's threads can hang
    # for ever on a lock one of them held (seen: workers idle at ``import cv2``)
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        running = {}
        while todo or running:
            while todo and len(running) < 2 * workers and (
                    minutes is None or time.time() - t0 < minutes * 60):
                n, job = todo.pop(0)
                running[pool.submit(_job, job)] = n
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in finished:
                n = running.pop(fut)
                p = fut.result()
                done.append(p)
                if parts is not None:
                    parts.mkdir(parents=True, exist_ok=True)
                    np.savez(parts / f"{n:05d}.npz", x=p.x, rank=p.rank, suit=p.suit)
    if todo:
        print(f"build budget reached: {len(jobs) - len(todo)} of {len(jobs)} jobs", flush=True)
    return _concat(done)


def deck_jobs(decks: list[str], scenes: int, seed: int, chunk: int = 25,
              kind: tuple[str, ...] = ()) -> list[Job]:
    """Jobs of up to ``chunk`` scenes per deck; ``kind`` ("looks",) for the second look's."""
    return [(d, seed + 1000 * i + j, min(chunk, scenes - j), *kind)  # type: ignore[misc]
            for i, d in enumerate(decks) for j in range(0, scenes, chunk)]


def jobs_for(args: argparse.Namespace, seed: int, kind: tuple[str, ...] = ()) -> list[Job]:
    """Scenes of the kdegames designs and of ``--proc-decks`` procedural decks from seed
    ``seed * 10000``, interleaved (a build cut short is still a balanced mix)."""
    proc = [f"proc:{seed * 10_000 + i}" for i in range(args.proc_decks)]
    kde = deck_jobs(list(TRAIN_DECKS), args.scenes, seed, chunk=10, kind=kind)
    pro = deck_jobs(proc, args.proc_scenes, seed + 17, chunk=args.proc_scenes, kind=kind)
    ratio = max(1, round(len(pro) / max(len(kde), 1)))
    jobs = []
    for i in range(max(len(kde), -(-len(pro) // ratio))):
        jobs += kde[i : i + 1] + pro[i * ratio : (i + 1) * ratio]
    return jobs


def make_model(c1: int = 16, c2: int = 32, c3: int = 48, emb: int = 96):  # type: ignore[no-untyped-def]
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        """Unpadded convolutions and two 2x poolings: stride 4, one output per window."""

        def __init__(self) -> None:
            super().__init__()
            self.c1 = nn.Conv2d(3, c1, 3)
            self.c2 = nn.Conv2d(c1, c2, 3)
            self.c3 = nn.Conv2d(c2, c3, 3)
            self.f1 = nn.Conv2d(c3, emb, (7, 3))  # the whole 44x26 window
            self.hr = nn.Conv2d(emb, N_RANK, 1)
            self.hs = nn.Conv2d(emb, N_SUIT, 1)
            self.pool = nn.MaxPool2d(2)
            self.act = nn.ReLU()
            self.drop = nn.Dropout(0.25)

        def embed(self, x):  # type: ignore[no-untyped-def]
            x = x * (1.0 / WHITE_LEVEL) - 0.6
            x = self.pool(self.act(self.c1(x)))
            x = self.pool(self.act(self.c2(x)))
            x = self.act(self.c3(x))
            return self.act(self.f1(x))

        def forward(self, x):  # type: ignore[no-untyped-def]
            h = self.drop(self.embed(x))
            return self.hr(h).flatten(1), self.hs(h).flatten(1)

        def export_forward(self, x):  # type: ignore[no-untyped-def]
            h = self.embed(x)
            return torch.cat([h, self.hr(h), self.hs(h)], dim=1)

    return Net()


def augment(x, torch):  # type: ignore[no-untyped-def]
    """uint8-scaled float windows: random gain and contrast, noise, a shift of up to one
    pixel, and now and then a blur."""
    n = x.shape[0]
    gain = 1.0 + 0.2 * (torch.rand(n, 1, 1, 1) - 0.5)
    contrast = 1.0 + 0.4 * (torch.rand(n, 1, 1, 1) - 0.5)
    x = (x - WHITE_LEVEL) * contrast + WHITE_LEVEL
    x = x * gain + torch.randn_like(x) * (torch.rand(n, 1, 1, 1) * 8.0)
    if np.random.rand() < 0.3:
        k = torch.tensor([0.25, 0.5, 0.25])
        k2 = (k[:, None] * k[None, :]).expand(3, 1, 3, 3).contiguous()
        x = torch.nn.functional.conv2d(x, k2, padding=1, groups=3)
    dx, dy = np.random.randint(-1, 2, 2)
    return torch.roll(x, shifts=(int(dy), int(dx)), dims=(2, 3)).clamp(0, 255)


def to_tensor(x: np.ndarray):  # type: ignore[no-untyped-def]
    import torch

    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2))).float()


def load_onnx_weights(model, path: Path) -> None:  # type: ignore[no-untyped-def]
    """Continue from an exported network: its ONNX initializers are the module's weights."""
    import onnx
    import torch
    from onnx import numpy_helper

    weights = {i.name.removeprefix("net."): torch.from_numpy(numpy_helper.to_array(i).copy())
               for i in onnx.load(str(path)).graph.initializer}
    state = model.state_dict()
    model.load_state_dict({k: weights[k] for k in state})


def train(data: Patches, minutes: float, seed: int, max_lr: float = 3e-3,  # type: ignore[no-untyped-def]
          batch: int = 256, threads: int = 2, max_epochs: float = 12.0,
          resume: Path | None = None):
    """Train for a time budget (or ``max_epochs``, whichever comes first)."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    np.random.seed(seed)
    torch.set_num_threads(threads)
    x = torch.from_numpy(np.ascontiguousarray(data.x.transpose(0, 3, 1, 2)))  # uint8
    yr = torch.from_numpy(data.rank.astype(np.int64))
    ys = torch.from_numpy(data.suit.astype(np.int64))
    model = make_model()
    if resume is not None:
        load_onnx_weights(model, resume)
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr / 25, weight_decay=2e-4)
    per_epoch = (len(x) + batch - 1) // batch
    budget = minutes * 60.0
    t_start = time.time()
    step = 0
    ep = 0
    done = False
    model.train()
    while not done:
        perm = torch.randperm(len(x))
        total, seen, t0 = 0.0, 0, time.time()
        for i in range(0, len(x) - batch + 1, batch):
            # the learning rate follows the share of the time budget spent (warm-up, then
            # a cosine down to nothing), so the run ends annealed whatever the machine's load
            frac = (time.time() - t_start) / budget
            if frac >= 1.0 or step >= max_epochs * per_epoch:
                done = True
                break
            for g in opt.param_groups:
                g["lr"] = one_cycle(frac, max_lr)
            idx = perm[i : i + batch]
            xr, xs = model(augment(x[idx].float(), torch))
            loss = F.cross_entropy(xr, yr[idx], label_smoothing=0.02) + F.cross_entropy(
                xs, ys[idx], ignore_index=-1, label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            total += loss.item() * len(idx)
            seen += len(idx)
        ep += 1
        print(f"epoch {ep}: loss {total / max(seen, 1):.4f} ({time.time() - t0:.0f}s, "
              f"{step} steps)", flush=True)
    model.eval()
    return model


def onnx_export(model, path: Path, example, input_name: str, dynamic_axes: dict) -> None:  # type: ignore[no-untyped-def]
    """Export ``model.export_forward`` (eval mode) to ``path`` for ``cv2.dnn``."""
    import warnings

    import torch

    class Export(torch.nn.Module):
        def __init__(self, net) -> None:  # type: ignore[no-untyped-def]
            super().__init__()
            self.net = net

        def forward(self, x):  # type: ignore[no-untyped-def]
            return self.net.export_forward(x)

    model.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Export(model), example, str(path), dynamo=False,
                          input_names=[input_name], output_names=["out"],
                          dynamic_axes=dynamic_axes, opset_version=13)


def export_onnx(model, path: Path) -> None:  # type: ignore[no-untyped-def]
    """Fully convolutional, any strip width: (N, 3, PATCH_H, W) uint8-valued floats ->
    (N, emb + N_RANK + N_SUIT, 1, (W - PATCH_W) / 4 + 1)."""
    import torch

    onnx_export(model, path, torch.zeros(1, 3, PATCH_H, PATCH_W + 40), "strip",
                {"strip": {0: "n", 3: "w"}, "out": {0: "n", 3: "w"}})


def one_cycle(frac: float, max_lr: float) -> float:
    """The learning rate when ``frac`` of the budget is spent: a warm-up over the first
    tenth, then a cosine down to a thousandth of ``max_lr``."""
    lr = max_lr * (frac / 0.1 if frac < 0.1 else 0.5 * (1 + np.cos(np.pi * (frac - 0.1) / 0.9)))
    return float(max(lr, max_lr * 1e-3))


def calibrate(net: IndexNet, data: Patches) -> float:
    """The temperature minimising the negative log-likelihood of the joint card read on
    index windows of decks never trained on (a grid search)."""
    net.temperature = 1.0
    out = np.concatenate([net._forward(data.x[i : i + 512])[:, 0, :]
                          for i in range(0, len(data.x), 512)])
    nf = out.shape[1] - N_RANK - N_SUIT
    zr, zs = out[:, nf : nf + N_RANK], out[:, nf + N_RANK :]
    pos = data.rank != NONE
    best = (np.inf, 1.0)
    for t in np.arange(0.6, 3.01, 0.05):
        lr = zr / t - np.log(np.exp(zr / t - (zr / t).max(1, keepdims=True)).sum(1,
                                                                                 keepdims=True)
                             ) - (zr / t).max(1, keepdims=True)
        ls = zs / t - np.log(np.exp(zs / t - (zs / t).max(1, keepdims=True)).sum(1,
                                                                                 keepdims=True)
                             ) - (zs / t).max(1, keepdims=True)
        nll = -lr[np.arange(len(lr)), data.rank].mean() - ls[pos][
            np.arange(int(pos.sum())), data.suit[pos]].mean()
        if nll < best[0]:
            best = (float(nll), float(t))
    return best[1]


def window_accuracy(net: IndexNet, data: Patches) -> dict[str, float]:
    pr, ps, _ = net.predict(data.x)
    r, s = pr.argmax(1), ps.argmax(1)
    pos = data.rank != NONE
    right = (r[pos] == data.rank[pos]) & (s[pos] == data.suit[pos])
    return {"index_windows": int(pos.sum()), "index_read_right": round(float(right.mean()), 4),
            "none_windows": int((~pos).sum()),
            "none_right": round(float((r[~pos] == NONE).mean()), 4)}


def add_data_options(ap: argparse.ArgumentParser, *, proc_decks: int, proc_scenes: int) -> None:
    """The options saying what to train on, and for how long."""
    ap.add_argument("--scenes", type=int, default=300, help="hand scenes per kdegames deck")
    ap.add_argument("--proc-decks", type=int, default=proc_decks, help="procedural decks")
    ap.add_argument("--proc-scenes", type=int, default=proc_scenes,
                    help="hand scenes per procedural deck")
    ap.add_argument("--minutes", type=float, default=30.0, help="training time budget")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "card_models" / "index_net.onnx")
    add_data_options(ap, proc_decks=400, proc_scenes=15)
    ap.add_argument("--max-epochs", type=float, default=12.0)
    ap.add_argument("--max-lr", type=float, default=3e-3)
    ap.add_argument("--resume", type=Path, help="continue training this exported .onnx")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--parts", type=Path, help="folder caching the training windows, per job")
    ap.add_argument("--build-minutes", type=float, help="time budget for making windows")
    ap.add_argument("--build-only", action="store_true",
                    help="make and cache the windows (--parts) without training")
    args = ap.parse_args(argv)
    t0 = time.time()
    data = build(jobs_for(args, args.seed), args.workers, args.parts, args.build_minutes)
    print(f"training windows: {len(data.x)} ({int((data.rank != NONE).sum())} on an index) "
          f"from {', '.join(TRAIN_DECKS)} and {args.proc_decks} procedural decks "
          f"in {time.time() - t0:.0f}s", flush=True)
    if args.build_only:
        return 0
    model = train(data, args.minutes, args.seed, threads=args.threads,
                  max_epochs=args.max_epochs, resume=args.resume,
                  max_lr=args.max_lr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(model, args.out)
    meta_path = args.out.with_suffix(".json")
    meta_path.unlink(missing_ok=True)
    net = IndexNet(args.out)
    calib_decks = [f"proc:{CALIBRATION_SEED + i}" for i in range(12)]
    calib = build(deck_jobs(calib_decks, 20, args.seed + 31, chunk=20), args.workers)
    temperature = calibrate(net, calib)
    net.temperature = temperature
    report: dict[str, object] = {
        "train_decks": list(TRAIN_DECKS), "procedural_decks": args.proc_decks,
        "procedural_deck_seeds": [args.seed * 10_000, args.seed * 10_000 + args.proc_decks - 1],
        "held_out_decks": list(HELD_OUT_DECKS), "train_windows": len(data.x),
        "jumbo_index_share": JUMBO_SHARE, "line_art_share": LINE_ART_SHARE,
        "extra_font_share": EXTRA_FONT_SHARE,
        "training_minutes": args.minutes, "seed": args.seed, "temperature": temperature,
        "calibration": {"decks": calib_decks, **window_accuracy(net, calib)},
        "held_out_window_accuracy": {},
    }
    print(f"temperature {temperature:.2f}", report["calibration"], flush=True)
    held: dict[str, object] = {}
    for deck in HELD_OUT_DECKS:
        part = build(deck_jobs([deck], 30, args.seed + 99), args.workers)
        held[deck] = window_accuracy(net, part)
        print(deck, held[deck], flush=True)
    report["held_out_window_accuracy"] = held
    meta_path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.out} in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
