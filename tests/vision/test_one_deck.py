"""One deck on the table: reads that share a card are given distinct cards, and the dealer
confirms every read that touched."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dealer_assist.domain.cards import DECK, parse_card
from dealer_assist.vision.one_deck import MIN_ALTERNATIVE, assign, one_deck
from dealer_assist.vision.reader import CardRead, Hand, Reader


@st.composite
def costs(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(1, 5))
    m = draw(st.integers(n, 7))
    return draw(arrays(np.float64, (n, m), elements=st.floats(0, 100)))


@settings(max_examples=300, deadline=None)
@given(costs())
def test_assign_finds_the_cheapest_distinct_columns(cost: np.ndarray) -> None:
    n, m = cost.shape
    got = assign(cost)
    assert len(set(got)) == n and all(0 <= j < m for j in got)
    cheapest = min(sum(cost[i, p[i]] for i in range(n))
                   for p in itertools.permutations(range(m), n))
    assert sum(cost[i, j] for i, j in enumerate(got)) == pytest.approx(cheapest)


def test_assign_refuses_more_rows_than_columns() -> None:
    with pytest.raises(ValueError, match="3 rows cannot take distinct columns of 2"):
        assign(np.zeros((3, 2)))


@st.composite
def reads(draw: st.DrawFn) -> np.ndarray:
    """Reads of a photo: a few, their likeliest cards often shared (among the first four),
    each with a card of its own it finds likely too (its fallback, 20 on)."""
    n = draw(st.integers(1, 8))
    rows = []
    for i in range(n):
        p = np.full(52, 1e-4)
        p[:4] = draw(arrays(np.float64, 4, elements=st.floats(0.0, 1.0)))
        p[draw(st.integers(0, 3))] += draw(st.floats(0.5, 5.0))
        p[20 + i] = draw(st.floats(0.3, 1.0)) * p.sum()
        rows.append(p / p.sum())
    return np.array(rows)


@settings(max_examples=300, deadline=None)
@given(reads())
def test_only_reads_that_share_a_card_move(probs: np.ndarray) -> None:
    best = probs.argmax(axis=1)
    chosen = one_deck(probs)
    for i, (b, c) in enumerate(zip(best, chosen, strict=True)):
        if (best == b).sum() == 1:
            assert c == b  # its card is its own: never moved
        elif c != b:
            assert probs[i, c] >= MIN_ALTERNATIVE  # moved only to a card it finds likely
            assert c not in np.delete(best, np.flatnonzero(best == b))  # nor onto another's


@settings(max_examples=300, deadline=None)
@given(reads())
def test_no_card_is_taken_twice_when_every_read_has_a_likely_card_of_its_own(
        probs: np.ndarray) -> None:
    chosen = one_deck(probs)
    assert len(set(chosen.tolist())) == len(chosen)


def _read(probs: dict[str, float], x: float) -> CardRead:
    p = np.full(52, 1e-4)
    for name, v in probs.items():
        p[DECK.index(parse_card(name))] = v
    corners = np.array([[x, 0], [x + 70, 0], [x + 70, 100], [x, 100]], np.float32)
    return CardRead(p / p.sum(), corners, np.zeros(8))


def test_the_reader_gives_a_shared_card_to_the_likelier_read_and_asks_about_both(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hand 0 reads AS at 0.97; hand 1's middle card reads AS at 0.60 or AH at 0.35: one
    deck holds one AS, so hand 1's card is AH, and both cards go to the dealer."""
    hands = [Hand([_read({"2C": 0.99}, 0), _read({"5D": 0.99}, 30), _read({"AS": 0.97}, 60)],
                  (100.0, 100.0), area=1.0, length=1.0),
             Hand([_read({"9C": 0.99}, 400), _read({"AS": 0.6, "AH": 0.35}, 430),
                   _read({"KD": 0.99}, 460)], (500.0, 100.0), area=1.0, length=1.0)]

    def find_cards(image: np.ndarray, empty: np.ndarray | None = None) -> list[Hand]:
        reader.unread, reader.card_h, reader.white = [], None, None
        return hands

    monkeypatch.setattr(reader, "find_cards", find_cards)
    out = reader.read(np.zeros((200, 600, 3), np.uint8))
    assert [h["cards"] for h in out["hands"]] == [["2C", "5D", "AS"], ["9C", "AH", "KD"]]
    moved = next(c for c in out["cards"] if c["card"] == "AH")
    assert moved["confidence"] == pytest.approx(0.35, abs=0.02)
    doubts = {(c["hand"], c["card"]): c["reason"] for c in out["needs_confirmation"]}
    assert "AS is read at seat 1: read as the likeliest card left" in doubts[(1, "AH")]
    assert "AS looked likeliest at seat 2 too" in doubts[(0, "AS")]
    assert not any("seen 2 times" in r for r in doubts.values())


def test_a_card_read_surely_twice_is_left_as_read_and_flagged_twice(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """No likely alternative (the same hand photographed twice): nothing is guessed."""
    hands = [Hand([_read({"AS": 0.99}, 0)], (100.0, 100.0), area=1.0, length=1.0),
             Hand([_read({"AS": 0.98}, 400)], (500.0, 100.0), area=1.0, length=1.0)]

    def find_cards(image: np.ndarray, empty: np.ndarray | None = None) -> list[Hand]:
        reader.unread, reader.card_h, reader.white = [], None, None
        return hands

    monkeypatch.setattr(reader, "find_cards", find_cards)
    out = reader.read(np.zeros((200, 600, 3), np.uint8))
    assert [c["card"] for c in out["cards"]] == ["AS", "AS"]
    twice = [c for c in out["needs_confirmation"] if "seen 2 times" in c["reason"]]
    assert [c["hands"] for c in twice] == [[0, 1]]
