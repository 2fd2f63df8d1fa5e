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
from dealer_assist.vision.net import (  # noqa: E402
    N_RANK,
    N_SUIT,
    NONE,
    PATCH_H,
    PATCH_W,
    normalise,
)
from dealer_assist.vision.trainset import Patches, synth_patches  # noqa: E402

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONT_DECKS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf",
              "DejaVuSansCondensed-Bold.ttf", "DejaVuSerifCondensed.ttf", "DejaVuSansMono.ttf",
              "DejaVuSansMono-Bold.ttf")
SUIT_GLYPHS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def font_deck(font_file: str, seed: int):  # type: ignore[no-untyped-def]
    """A plain deck drawn from a DejaVu font (Debian fonts-dejavu-core): corner indices in
    a typeface no kdegames design uses, so the network sees more kinds of index."""
    import cv2
    from PIL import Image, ImageDraw, ImageFont

    from dealer_assist.domain.cards import DECK
    from dealer_assist.vision.faces import Face

    rng = np.random.default_rng(seed)
    h = 360
    w = int(h * rng.uniform(0.66, 0.74))
    rank_px = int(h * rng.uniform(0.055, 0.12))
    suit_px = int(h * rng.uniform(0.045, 0.09))
    mx, my = int(h * rng.uniform(0.015, 0.05)), int(h * rng.uniform(0.015, 0.08))
    fr = ImageFont.truetype(str(FONT_DIR / font_file), rank_px)
    fs = ImageFont.truetype(str(FONT_DIR / "DejaVuSans.ttf"), suit_px)
    fc = ImageFont.truetype(str(FONT_DIR / "DejaVuSans.ttf"), int(h * 0.3))
    red = tuple(int(v) for v in (rng.integers(170, 230), rng.integers(0, 40), rng.integers(0, 50)))
    faces = {}
    for card in DECK:
        img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        d = ImageDraw.Draw(img)
        d.rounded_rectangle([0, 0, w - 1, h - 1], radius=int(h * 0.04), fill=(252, 252, 250, 255),
                            outline=(90, 90, 90, 255), width=1)
        colour = red if card.suit.is_red else (15, 15, 15)
        corner = Image.new("RGBA", (int(h * 0.2), int(h * 0.3)), (0, 0, 0, 0))
        dc = ImageDraw.Draw(corner)
        text = card.rank.symbol
        tw = dc.textlength(text, font=fr)
        cx = max(0, int((corner.width - tw) / 2 - corner.width * 0.25))
        dc.text((cx, 0), text, font=fr, fill=colour)
        sw = dc.textlength(SUIT_GLYPHS[card.suit.value], font=fs)
        dc.text((max(0, int(cx + tw / 2 - sw / 2)), int(rank_px * 1.1)),
                SUIT_GLYPHS[card.suit.value], font=fs, fill=colour)
        img.alpha_composite(corner, (mx, my))
        img.alpha_composite(corner.rotate(180), (w - corner.width - mx, h - corner.height - my))
        d.text((w / 2, h / 2), SUIT_GLYPHS[card.suit.value], font=fc, fill=colour, anchor="mm")
        arr = np.array(img)
        faces[card] = Face(card, f"font-{font_file}", cv2.cvtColor(arr, cv2.COLOR_RGBA2BGRA))
    return faces


def _job(args: tuple[str, int, int]) -> Patches:
    deck, seed, scenes = args
    import cv2

    cv2.setNumThreads(1)
    faces = font_deck(deck, seed) if deck.endswith(".ttf") else load_deck(deck)
    return synth_patches(faces, seed, scenes)


def build(decks: tuple[str, ...], scenes_per_deck: int, seed: int, workers: int) -> Patches:
    chunk = 50
    jobs = [(d, seed + 1000 * i + j, chunk)
            for i, d in enumerate(decks) for j in range(max(1, scenes_per_deck // chunk))]
    for d in decks:
        if not d.endswith(".ttf"):
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


def load_npz(model, path: Path) -> None:  # type: ignore[no-untyped-def]
    import torch

    with np.load(path) as w:
        sd = {f"{k[:-1]}.{'weight' if k.endswith('w') else 'bias'}": torch.from_numpy(w[k])
              for k in w.files}
    model.load_state_dict(sd)


def train(data: Patches, epochs: int, seed: int,  # type: ignore[no-untyped-def]
          checkpoint: Path | None = None, resume: Path | None = None, max_lr: float = 3e-3):
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    x = torch.from_numpy(normalise(data.x))
    yr = torch.from_numpy(data.rank.astype(np.int64))
    ys = torch.from_numpy(data.suit.astype(np.int64))
    model = make_model()
    if resume is not None:
        load_npz(model, resume)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * ((len(x) + 255) // 256)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps)
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
        if checkpoint is not None:  # a usable model after every epoch
            model.eval()
            export(model, checkpoint)
    return model


def export(model, path: Path) -> None:  # type: ignore[no-untyped-def]
    sd = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    arrays = {}
    for name in ("c1", "c2", "c3", "f1", "hr", "hs"):
        arrays[f"{name}w"] = sd[f"{name}.weight"]
        arrays[f"{name}b"] = sd[f"{name}.bias"]
    np.savez_compressed(path, **arrays)


def export_onnx(model, path: Path) -> None:  # type: ignore[no-untyped-def]
    """The same network for cv2.dnn: one output per patch, [embedding | rank | suit]."""
    import warnings

    import torch

    class Flat(torch.nn.Module):
        def __init__(self, net) -> None:  # type: ignore[no-untyped-def]
            super().__init__()
            self.net = net

        def forward(self, x):  # type: ignore[no-untyped-def]
            n = self.net
            for c in (n.c1, n.c2, n.c3):
                x = n.pool(n.act(c(x)))
            h = n.act(n.f1(x.flatten(1)))
            return torch.cat([h, n.hr(h), n.hs(h)], dim=1)

    model.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Flat(model), torch.zeros(1, 3, PATCH_H, PATCH_W), str(path),
                          dynamo=False, input_names=["patches"], output_names=["out"],
                          dynamic_axes={"patches": {0: "n"}, "out": {0: "n"}})


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
    ap.add_argument("--font-scenes", type=int, default=100,
                    help="hand scenes per DejaVu font deck (0: none)")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--data", type=Path, help="cache of the training patches (.npz)")
    ap.add_argument("--resume", type=Path, help="continue training from this .npz")
    ap.add_argument("--onnx-from", type=Path, help="only export this .npz to .onnx beside it")
    args = ap.parse_args(argv)
    if args.onnx_from:
        model = make_model()
        load_npz(model, args.onnx_from)
        export_onnx(model, args.onnx_from.with_suffix(".onnx"))
        return 0
    t0 = time.time()
    if args.data and args.data.exists():
        with np.load(args.data) as d:
            data = Patches(d["x"], d["rank"], d["suit"])
    else:
        data = build(TRAIN_DECKS, args.scenes, args.seed, args.workers)
        if args.font_scenes:
            extra = build(FONT_DECKS, args.font_scenes, args.seed + 5, args.workers)
            data = Patches(np.concatenate([data.x, extra.x]),
                           np.concatenate([data.rank, extra.rank]),
                           np.concatenate([data.suit, extra.suit]))
        if args.data:
            np.savez(args.data, x=data.x, rank=data.rank, suit=data.suit)
    print(f"training patches: {len(data.x)} ({int((data.rank != NONE).sum())} index corners) "
          f"from {', '.join(TRAIN_DECKS)} in {time.time() - t0:.0f}s", flush=True)
    model = train(data, args.epochs, args.seed, checkpoint=args.out, resume=args.resume,
                  max_lr=1e-3 if args.resume else 3e-3)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    export(model, args.out)
    export_onnx(model, args.out.with_suffix(".onnx"))
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
