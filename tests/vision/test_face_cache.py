"""The card faces rendered from the installed card art are cached once per deck; processes
that render the same deck at once (the test suite in parallel, on a fresh machine) never
read a face another is still writing."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dealer_assist.vision import faces
from dealer_assist.vision.faces import TRAIN_DECKS

DECK = TRAIN_DECKS[0]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEALER_ASSIST_FACE_CACHE", str(tmp_path))
    return tmp_path


def test_no_face_is_in_the_cache_before_the_whole_deck_is(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    render = faces._render
    seen_while_rendering: list[bool] = []

    def watched(*args: Any) -> np.ndarray:
        seen_while_rendering.append((cache / f"{DECK}-120").exists())
        return render(*args)

    monkeypatch.setattr(faces, "_render", watched)
    loaded = faces.load_deck(DECK, height=120)
    assert len(loaded) == 52 and len(seen_while_rendering) == 53  # the probe and 52 faces
    # another process loading the deck meanwhile would have found nothing and rendered its
    # own, never a face half-written
    assert not any(seen_while_rendering)
    assert [p.name for p in cache.iterdir()] == [f"{DECK}-120"]


def test_a_deck_another_process_put_in_place_first_is_kept(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = faces.render_deck(DECK, height=120)
    aside = cache / "first"
    shutil.move(first, aside)
    render = faces._render

    def raced(*args: Any) -> np.ndarray:
        if not first.exists():  # the other process finishes while this one renders
            shutil.copytree(aside, first)
        return render(*args)

    monkeypatch.setattr(faces, "_render", raced)
    assert faces.render_deck(DECK, height=120) == first
    assert sorted(p.name for p in cache.iterdir()) == [f"{DECK}-120", "first"]
    assert len(faces.load_deck(DECK, height=120)) == 52


def test_a_failed_render_leaves_nothing_in_the_cache(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise faces.FaceError("could not rasterise")

    monkeypatch.setattr(faces, "_render", broken)
    with pytest.raises(faces.FaceError):
        faces.render_deck(DECK, height=120)
    assert list(cache.iterdir()) == []
