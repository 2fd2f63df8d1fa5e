"""The reader on generated photos of deck designs held out of training."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealer_assist.domain.cards import parse_card
from dealer_assist.vision.faces import HELD_OUT_DECKS, TRAIN_DECKS, load_deck
from dealer_assist.vision.net import FRAME_CARD_H, LOOK_H, LOOK_W, SECOND_NAMES, SecondLook
from dealer_assist.vision.reader import Reader, missing_cards
from dealer_assist.vision.synth import compose
from dealer_assist.vision.trainset import hand_scene

from .conftest import SAMPLES


def _centre(corners: list[list[float]]) -> np.ndarray:
    return np.mean(np.asarray(corners, float), axis=0)


def _nearest(truth: list[dict], corners: list[list[float]]) -> dict:
    return min(truth, key=lambda t: np.linalg.norm(_centre(t["corners"]) - _centre(corners)))


def _match(result: dict, truth: list[dict]) -> tuple[int, int, int]:
    """(right, silent errors, truth cards). A read is right when it lies on the true card
    and names it. A silent error is a wrong read that is not flagged, or a card missed
    while the result flags nothing unread."""
    # a card seen twice is in doubt in every hand it was read in
    flagged_cards = {(h, c["card"]) for c in result["needs_confirmation"] if c["card"]
                     for h in c.get("hands", [c["hand"]])}
    flagged_hands = {c["hand"] for c in result["needs_confirmation"]
                     if c["card"] is None and c["hand"] is not None}
    unread = any("region" in c for c in result["needs_confirmation"])
    right, silent = 0, 0
    for c in result["cards"]:
        t = _nearest(truth, c["corners"])
        ok = t["card"] == c["card"] and np.linalg.norm(
            _centre(t["corners"]) - _centre(c["corners"])) < 0.4 * np.linalg.norm(
            np.subtract(t["corners"][3], t["corners"][0]))
        right += ok
        if not ok and (c["hand"], c["card"]) not in flagged_cards and (
                c["hand"] not in flagged_hands):
            silent += 1
    missing = len(truth) - len(result["cards"])
    if missing > 0 and not (unread or flagged_hands):
        silent += missing
    return right, silent, len(truth)


def test_output_shape(reader: Reader) -> None:
    img = cv2.imread(str(SAMPLES / "scene_2.jpg"))
    out = reader.read(img)
    assert set(out) >= {"cards", "hands", "needs_confirmation"}
    c = out["cards"][0]
    assert set(c) == {"card", "confidence", "corners", "hand", "seat"}
    assert parse_card(c["card"]) and 0.0 <= c["confidence"] <= 1.0
    assert len(c["corners"]) == 4 and all(len(p) == 2 for p in c["corners"])
    json.dumps(out)


@pytest.mark.parametrize("name", sorted(p.stem for p in SAMPLES.glob("scene_*.jpg")))
def test_sample_images(reader: Reader, name: str) -> None:
    truth = json.loads((SAMPLES / f"{name}.json").read_text())
    out = reader.read(cv2.imread(str(SAMPLES / f"{name}.jpg")), truth["zones"])
    _, silent, _ = _match(out, truth["cards"])
    assert silent == 0, out["needs_confirmation"]
    # where a card was found, it is placed on a true card and seated by the zones
    for c in out["cards"]:
        t = _nearest(truth["cards"], c["corners"])
        assert np.linalg.norm(_centre(t["corners"]) - _centre(c["corners"])) < 0.4 * (
            np.linalg.norm(np.subtract(t["corners"][3], t["corners"][0])))
        assert c["seat"] == t["seat"]


def test_sample_images_read(reader: Reader) -> None:
    """The sample photos (held-out designs): most of their cards read right (70 of 72
    measured), none silently wrong."""
    right = total = 0
    for path in sorted(SAMPLES.glob("scene_*.jpg")):
        truth = json.loads(path.with_suffix(".json").read_text())
        r, s, t = _match(reader.read(cv2.imread(str(path)), truth["zones"]), truth["cards"])
        assert s == 0, path.name
        right, total = right + r, total + t
    assert total == 72 and right >= 64, (right, total)


def test_second_look_combines_both_models(reader: Reader) -> None:
    """Both second-look models installed are read, and their reads combined: the card
    probabilities are the renormalised geometric mean of each model's."""
    assert reader.second is not None
    assert [p.name for p in reader.second.paths] == list(SECOND_NAMES)
    rng = np.random.default_rng(5)
    windows = rng.uniform(0, 255, (6, LOOK_H, LOOK_W, 3)).astype(np.float32)
    alone = [SecondLook(p).read(windows) for p in reader.second.paths]
    mean = np.exp((np.log(alone[0] + 1e-6) + np.log(alone[1] + 1e-6)) / 2)
    both = reader.second.read(windows)
    np.testing.assert_allclose(both, mean / mean.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(both.sum(axis=1), 1.0, rtol=1e-5)
    with pytest.raises(ValueError, match="at least one model"):
        SecondLook()


def test_second_look_reads_better(reader: Reader) -> None:
    """The second look at each found card (card_models/index_second*.onnx) reads the sample
    photos (held-out designs) better than the index network alone, and is sure of more."""
    assert reader.second is not None
    alone = Reader(second=False)
    totals = {}
    for name, r in (("alone", alone), ("second", reader)):
        right = sure = 0
        for path in sorted(SAMPLES.glob("scene_*.jpg")):
            truth = json.loads(path.with_suffix(".json").read_text())
            out = r.read(cv2.imread(str(path)), truth["zones"])
            right += _match(out, truth["cards"])[0]
            sure += sum(c["confidence"] >= r.threshold for c in out["cards"])
        totals[name] = (right, sure)
    assert totals["second"][0] >= totals["alone"][0] + 3, totals
    assert totals["second"][1] > totals["alone"][1], totals


def test_held_out_scenes(reader: Reader, can_render: None) -> None:
    decks = {d: load_deck(d) for d in HELD_OUT_DECKS}
    right = silent = total = 0
    for seed in range(8):
        scene = compose(decks, 700_000 + seed, seats=7)
        img = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
        out = reader.read(img)
        r, s, t = _match(out, scene.truth()["cards"])
        right, silent, total = right + r, silent + s, total + t
        # without zones: a full table gets the dealer and seats 1..7
        seats = Counter(h["seat"] for h in out["hands"])
        if len(out["hands"]) == 8:
            assert seats["dealer"] == 1
    assert silent == 0
    # the target is 99.5%; the reader reads 93.2% of these cards right (measured on these
    # seeds, card_models/README.md): this floor guards against regressions only
    assert right / total >= 0.85, (right, total)


def test_every_hand_of_a_full_table_is_read(reader: Reader, can_render: None) -> None:
    """A hand spread tight has a nearly square region: which of its sides shows the indices
    cannot be told from its shape, so all four are read. (On this photo, when the reader
    guessed the side from the shape, one hand went unread.)"""
    scene = compose({"standard": load_deck("standard")}, 720_005, seats=7)
    out = reader.read(cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR))
    assert len(out["hands"]) == 8
    assert not [c for c in out["needs_confirmation"] if "region" in c]
    r, s, t = _match(out, scene.truth()["cards"])
    assert s == 0 and r >= 20, (r, t)


def test_seats_along_the_arc_without_zones(reader: Reader, can_render: None) -> None:
    decks = {d: load_deck(d) for d in HELD_OUT_DECKS}
    good = 0
    for seed in range(4):
        scene = compose(decks, 710_000 + seed, seats=7)
        out = reader.read(cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR))
        cards = scene.truth()["cards"]
        if len(out["hands"]) != 8:
            # fewer hands than a full table: the seats are a guess, and say so
            assert any("no seat zones" in c["reason"] for c in out["needs_confirmation"])
            continue
        good += all(_nearest(cards, c["corners"])["seat"] == c["seat"] for c in out["cards"])
    assert good >= 1


def test_hand_of_two_is_flagged(reader: Reader, can_render: None) -> None:
    faces = load_deck(HELD_OUT_DECKS[0])
    rng = np.random.default_rng(5)
    for _ in range(3):
        img, _ = hand_scene(faces, rng, [parse_card("KH"), parse_card("7S")])
        out = reader.read(img)
        # never passed off as a full hand: the count, an unread region or a doubtful card
        # brings the dealer in
        reasons = " ".join(c["reason"] for c in out["needs_confirmation"])
        assert "expected 3" in reasons or "could not be read" in reasons or (
            "low confidence" in reasons) or "only 2 of 3 cards seen" in reasons, out


def test_duplicate_card_is_flagged(reader: Reader, can_render: None) -> None:
    faces = load_deck(TRAIN_DECKS[0])
    rng = np.random.default_rng(9)
    img, _ = hand_scene(faces, rng, [parse_card("AS"), parse_card("KD"), parse_card("3C")])
    twice = np.hstack([img, img])
    out = reader.read(twice)
    twice = [c for c in out["needs_confirmation"] if "seen 2 times" in c["reason"]]
    assert twice
    # every hand it was read in is named, not only the first
    assert all(c["hands"] == [0, 1] for c in twice), twice


def test_low_confidence_is_flagged(can_render: None) -> None:
    strict = Reader(threshold=0.999999)
    img = cv2.imread(str(SAMPLES / "scene_2.jpg"))
    out = strict.read(img)
    flagged = {(c["hand"], c["card"]) for c in out["needs_confirmation"] if c["card"]}
    for c in out["cards"]:
        if c["confidence"] < 0.999999:
            assert (c["hand"], c["card"]) in flagged


def test_a_sure_read_with_a_strong_runner_up_is_flagged(can_render: None) -> None:
    # no threshold, so only the runner-up rule flags; a bound of 0.001 catches reads whose
    # doubt lies on one other card, and names that card
    img = cv2.imread(str(SAMPLES / "scene_2.jpg"))
    loose = Reader(threshold=0.0, runner_up=1.0).read(img)
    tight = Reader(threshold=0.0, runner_up=0.001).read(img)
    assert [c["card"] for c in tight["cards"]] == [c["card"] for c in loose["cards"]]
    assert not [c for c in loose["needs_confirmation"] if "could also be" in c["reason"]]
    doubts = {(c["hand"], c["card"]): c for c in tight["needs_confirmation"]
              if "could also be" in c["reason"]}
    assert doubts  # some of scene 2's reads put more than 0.001 on another card
    for (_, card), item in doubts.items():
        runner_up = next(a for a in item["alternatives"] if a[0] != card)
        assert f"could also be {runner_up[0]}" in item["reason"]
        assert runner_up[1] >= 0.001
    # and a read whose runner-up is under the bound is not flagged for it
    sure = [c for c in tight["cards"] if (c["hand"], c["card"]) not in doubts]
    assert all(c["confidence"] > 0.99 for c in sure)


def test_only_reads_in_doubt_are_read_at_every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every card is read at 1.0 and 0.9; only reads left in doubt at 1.1 too: the same
    cards as reading every card at every size, with fewer windows for the second look."""
    from dealer_assist.vision import reader as reader_module

    img = cv2.imread(str(SAMPLES / "scene_2.jpg"))

    def read(first_sizes: int) -> tuple[list[str], int]:
        monkeypatch.setattr(reader_module, "FIRST_SIZES", first_sizes)
        one = Reader()
        assert one.second is not None
        looked = []
        raw = one.second.raw
        monkeypatch.setattr(one.second, "raw", lambda w: looked.append(len(w)) or raw(w))
        return [c["card"] for c in one.read(img)["cards"]], sum(looked)

    gated, gated_windows = read(2)
    every, every_windows = read(0)
    assert gated == every
    assert gated_windows < every_windows, (gated_windows, every_windows)


def test_empty_table(reader: Reader) -> None:
    felt = np.zeros((720, 1280, 3), np.uint8)
    felt[:] = (40, 110, 30)
    out = reader.read(felt)
    assert out["cards"] == [] and out["hands"] == []


def test_cli_scan_json(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from dealer_assist.cli import main

    zones = SAMPLES / "scene_2.json"
    result = CliRunner().invoke(main, ["scan", str(SAMPLES / "scene_2.jpg"), "--json",
                                       "--zones", str(zones)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert len(data["cards"]) >= 20


def test_cli_scan_says_first_that_a_photo_is_blurred(tmp_path: Path) -> None:
    """The table printed by ``dealer-assist scan``: what is said of the whole photo (here,
    taken with the camera moving) comes before the cards to confirm."""
    from click.testing import CliRunner

    from dealer_assist.cli import main
    from dealer_assist.vision.synth import stored_in

    photo = tmp_path / "moving.jpg"
    photo.write_bytes(stored_in(cv2.imread(str(SAMPLES / "scene_2.jpg")), "camera moving")[0])
    result = CliRunner().invoke(main, ["scan", str(photo)], terminal_width=200)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    said = [i for i, line in enumerate(lines) if line.startswith("note: the photo is blurred")]
    confirms = [i for i, line in enumerate(lines) if line.startswith("confirm")]
    assert said and confirms and said[0] < confirms[0], result.output


def test_missing_cards_are_placed_by_the_spread() -> None:
    h = FRAME_CARD_H
    # the bottom card unseen: it lies one spread left of the two seen
    assert [round(x / h, 2) for x in missing_cards([0.2 * h, 0.4 * h], 1.1 * h, 0.7 * h)] == [0.0]
    # the middle card unseen: the region is too short for another card right of the two
    assert [round(x / h, 2) for x in missing_cards([0.0, 0.4 * h], 1.1 * h, 0.7 * h)] == [0.2]
    assert [round(x / h, 2) for x in missing_cards([0.0], 1.1 * h, 0.7 * h)] == [0.2, 0.4]
    assert missing_cards([0.0, 0.2 * h, 0.4 * h], 1.1 * h, 0.7 * h) == []
    # a lone card has no spread; a region two hands long fits no hand's spread
    assert missing_cards([0.0], 0.75 * h, 0.7 * h) == []
    assert missing_cards([0.0, 0.2 * h], 2.2 * h, 0.7 * h) == []


def _paint_over(img: np.ndarray, corners: np.ndarray, top: float) -> None:
    """Paints the card's paper over its upper-left index from ``top`` card heights down."""
    tl, tr, _, bl = corners
    right, down = (tr - tl) / np.linalg.norm(tr - tl), (bl - tl) / np.linalg.norm(bl - tl)
    ch = float(np.linalg.norm(bl - tl))
    patch = np.array([tl + right * 0.015 * ch + down * top * ch,
                      tl + right * 0.16 * ch + down * top * ch,
                      tl + right * 0.16 * ch + down * 0.42 * ch,
                      tl + right * 0.015 * ch + down * 0.42 * ch])
    paper = img[tuple(np.round(tl + (right + down) * 0.45 * ch).astype(int)[::-1])]
    cv2.fillConvexPoly(img, np.round(patch).astype(np.int32), tuple(int(v) for v in paper))


def test_a_card_whose_index_is_not_seen_is_read_and_flagged(reader: Reader,
                                                            can_render: None) -> None:
    """The middle card's index is painted over: the reader still gives the hand three
    cards, the unseen one read where the spread puts it, and asks the dealer to confirm it;
    the two seen cards are not doubted for it."""
    faces = load_deck(TRAIN_DECKS[0])
    rng = np.random.default_rng(31)
    cards = [parse_card(c) for c in ("AS", "KD", "3C")]
    for _ in range(3):
        img, placed = hand_scene(faces, rng, cards)
        _paint_over(img, placed[1][1], 0.015)  # the middle card's whole index
        out = reader.read(img)
        assert len(out["hands"]) == 1 and len(out["hands"][0]["cards"]) == 3, out
        unseen = [c for c in out["needs_confirmation"] if "of 3 cards seen" in c["reason"]]
        assert len(unseen) == 1 and unseen[0]["reason"].startswith("only 2 of 3"), out
        middle = sorted(out["cards"], key=lambda c: np.linalg.norm(
            _centre(c["corners"]) - placed[1][1].mean(0)))[0]
        assert middle["card"] == unseen[0]["card"]


def test_the_top_cards_other_index_is_read_in_full(reader: Reader, can_render: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The top card of a hand shows both its indices. The suit under the rank of its
    upper-left index is painted over (a glare, a smudge): read in full at the other index
    too (magnified and by the second look), the card is read right; read at its own index
    alone there, a three of clubs with no suit in sight reads as spades."""
    from dealer_assist.vision import reader as reader_module

    faces = load_deck(TRAIN_DECKS[0])
    cards = [parse_card(c) for c in ("AS", "KD", "3C")]

    def top_reads(rng: np.random.Generator) -> list[str]:
        reads = []
        for _ in range(3):
            img, placed = hand_scene(faces, rng, cards)
            _paint_over(img, placed[2][1], 0.2)  # the top card's suit under its rank
            out = reader.read(img)
            top = min(out["cards"], key=lambda c: np.linalg.norm(
                _centre(c["corners"]) - placed[2][1].mean(0)))
            reads.append(top["card"])
        return reads

    assert top_reads(np.random.default_rng(31)) == ["3C"] * 3
    monkeypatch.setattr(reader_module, "OTHER_INDEX", False)
    assert top_reads(np.random.default_rng(31)).count("3C") <= 1


def test_a_hand_seen_at_a_slant_is_read(reader: Reader, can_render: None,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Strong perspective makes a hand a parallelogram: its rectangle's frames shear the
    indices and not all of them are read. The reader reads such a hand again in the frames
    of the quadrilateral that fits it. Hands sheared 17 degrees: all six read right, where
    the rectangle alone reads three."""
    from dealer_assist.vision import reader as reader_module

    faces = load_deck(TRAIN_DECKS[0])
    names = ["AS", "KD", "3C"]
    right = {"quadrilateral": 0, "rectangle": 0}
    for seed in range(6):
        img, _ = hand_scene(faces, np.random.default_rng(seed), [parse_card(c) for c in names])
        h, w = img.shape[:2]
        slanted = cv2.warpAffine(img, np.array([[1, 0.3, 0], [0, 1, 0]], np.float32),
                                 (int(w + 0.3 * h), h), borderMode=cv2.BORDER_REFLECT)
        right["quadrilateral"] += [c["card"] for c in reader.read(slanted)["cards"]] == names
        with monkeypatch.context() as m:
            m.setattr(reader_module, "quad_blob", lambda blob: None)
            # the parallelogram along the cards' edges sets most of them right too
            m.setattr(reader_module, "aligned_blob", lambda pyr, blob: None)
            right["rectangle"] += [c["card"] for c in reader.read(slanted)["cards"]] == names
    assert right["quadrilateral"] == 6 and right["rectangle"] <= 4, right
