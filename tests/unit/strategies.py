"""Hypothesis strategies for random rounds and rule sets (valid by construction)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from dealer_assist.domain.cards import DECK
from dealer_assist.domain.rulesets import (
    ANTE_BONUS_HANDS,
    PAIR_PLUS_HANDS,
    SIX_CARD_HANDS,
)

stakes = st.sampled_from([0, 0, 100, 500, 1000, 2500, 10000])
pays = st.integers(min_value=0, max_value=1000)


@st.composite
def rulesets(draw: st.DrawFn) -> dict[str, Any]:
    """Rule-set JSON with random pay tables and options."""
    def table(hands: tuple[str, ...]) -> dict[str, int]:
        chosen = draw(st.lists(st.sampled_from(hands), unique=True))
        return {h: draw(pays) for h in chosen}

    data: dict[str, Any] = {
        "pair_plus": table((*PAIR_PLUS_HANDS, "mini_royal")),
        "ante_bonus": table((*ANTE_BONUS_HANDS, "mini_royal")),
        "six_card_bonus": table(SIX_CARD_HANDS),
        "prime": {"three_same_color": draw(pays), "six_same_color": draw(pays)},
        "dealer_qualifier": draw(st.sampled_from(["Q", "J", "K", "A", "Q-6-4", "pair", "2"])),
        "fold_forfeits_pair_plus": draw(st.booleans()),
        "fold_forfeits_prime": draw(st.booleans()),
        "six_card_pays_after_fold": draw(st.booleans()),
        "pair_plus_without_ante": True,
    }
    if draw(st.booleans()):
        data["max_payout"] = draw(st.integers(min_value=1, max_value=2_000_000))
    if not data["pair_plus"]:
        data["pair_plus"] = {"pair": 1}
    if not data["six_card_bonus"]:
        data["six_card_bonus"] = {"straight": 10}
    return data


@st.composite
def rounds(draw: st.DrawFn, max_seats: int = 7) -> dict[str, Any]:
    """A valid round JSON: distinct cards, 1..7 seats, every seat with at least one bet."""
    n_seats = draw(st.integers(min_value=1, max_value=max_seats))
    cards = draw(st.permutations(DECK))[: 3 + 3 * n_seats]
    seat_numbers = draw(st.lists(st.integers(1, 7), min_size=n_seats, max_size=n_seats,
                                 unique=True))
    seats = []
    for i, number in enumerate(seat_numbers):
        ante = draw(stakes)
        seat: dict[str, Any] = {
            "seat": number,
            "cards": [str(c) for c in cards[3 + 3 * i: 6 + 3 * i]],
            "ante": ante,
            "play": draw(st.booleans()) if ante else False,
            "pair_plus": draw(stakes),
            "six_card": draw(stakes) if ante else 0,
            "prime": draw(stakes) if ante else 0,
        }
        if not any(seat[k] for k in ("ante", "pair_plus")):
            seat["ante"] = 1000
        seats.append(seat)
    return {"dealer": [str(c) for c in cards[:3]], "seats": seats}
