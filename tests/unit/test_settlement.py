"""Settlement: options both ways, limits and the cap, misdeals, and invariants (hypothesis)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dealer_assist.domain.batch import NET_COLUMNS, settle_batch
from dealer_assist.domain.cards import parse_cards
from dealer_assist.domain.round_entry import parse_round
from dealer_assist.domain.rulesets import DEFAULT_RULES, RuleSet, ruleset_from_json
from dealer_assist.domain.settlement import Bet, Outcome, settle_round
from dealer_assist.domain.three_card import rank_hand

from .strategies import rounds, rulesets


def settle(dealer: str, seats: list[dict[str, Any]], rules: RuleSet = DEFAULT_RULES) -> Any:
    entry = parse_round({"dealer": dealer, "seats": seats}, rules)
    return settle_round(entry, rules)


def one_seat(dealer: str, cards: str, rules: RuleSet = DEFAULT_RULES, **stakes: Any) -> Any:
    return settle(dealer, [{"seat": 1, "cards": cards, **stakes}], rules).seats[0]


# --- options, each both ways -------------------------------------------------------------

@pytest.mark.parametrize(("forfeit", "expected"), [(True, -500), (False, 500)])
def test_fold_forfeits_pair_plus_option(forfeit: bool, expected: int) -> None:
    rules = ruleset_from_json({"fold_forfeits_pair_plus": forfeit})
    seat = one_seat("QH 8C 3D", "5C 5D 9H", rules, ante=1000, play=False, pair_plus=500)
    assert seat.net["pair_plus"] == expected
    assert seat.net["ante"] == -1000


@pytest.mark.parametrize(("forfeit", "expected"), [(True, -500), (False, 1500)])
def test_fold_forfeits_prime_option(forfeit: bool, expected: int) -> None:
    rules = ruleset_from_json({"fold_forfeits_prime": forfeit})
    seat = one_seat("QC 8C 3D", "2H 5D 9H", rules, ante=1000, play=False, prime=500)
    assert seat.net["prime"] == expected


@pytest.mark.parametrize(("pays_after", "expected"), [(True, 25000), (False, -500)])
def test_six_card_pays_after_fold_option(pays_after: bool, expected: int) -> None:
    rules = ruleset_from_json({"six_card_pays_after_fold": pays_after})
    seat = one_seat("2S 2D 2H", "2C 7D 9H", rules, ante=1000, play=False, six_card=500)
    assert seat.net["six_card"] == expected


def test_pair_plus_without_ante_is_refused_by_default_and_settles_when_allowed() -> None:
    seats = [{"seat": 2, "cards": "5C 5D 9H", "pair_plus": 500}]
    with pytest.raises(Exception, match="seat 2: pair plus needs an ante"):
        settle("QH 8C 3D", seats)
    rules = ruleset_from_json({"pair_plus_without_ante": True})
    seat = settle("QH 8C 3D", seats, rules).seats[0]
    assert seat.net == {"ante": 0, "play": 0, "ante_bonus": 0, "pair_plus": 500,
                        "six_card": 0, "prime": 0}
    assert seat.decision == "none"


@pytest.mark.parametrize(("qualifier", "dealer", "qualifies"), [
    ("Q", "QH 3C 2D", True), ("Q", "JH 10C 8D", False), ("K", "QH 10C 8D", False),
    ("J", "JH 3C 2D", True), ("Q-6-4", "QH 6C 3D", False), ("Q-6-4", "QH 6C 4D", True),
    ("pair", "AH KC 9D", False), ("pair", "2H 2C 3D", True), ("A", "KH QC 10D", False),
])
def test_dealer_qualifier_option(qualifier: str, dealer: str, qualifies: bool) -> None:
    rules = ruleset_from_json({"dealer_qualifier": qualifier})
    result = settle(dealer, [{"seat": 1, "cards": "AS AD 4C", "ante": 100, "play": True}], rules)
    assert result.dealer_qualifies is qualifies
    assert result.seats[0].net["play"] == (100 if qualifies else 0)


def test_mini_royal_pays_only_where_the_table_lists_it() -> None:
    plain = one_seat("9C 9D 4S", "AS KS QS", ante=1000, play=True, pair_plus=500)
    assert plain.net["pair_plus"] == 20000
    rules = ruleset_from_json({"pair_plus": {"mini_royal": 100, "straight_flush": 40, "pair": 1}})
    royal = one_seat("9C 9D 4S", "AS KS QS", rules, ante=1000, play=True, pair_plus=500)
    assert royal.net["pair_plus"] == 50000
    other_sf = one_seat("9C 9D 4S", "JS 10S 9S", rules, ante=1000, play=True, pair_plus=500)
    assert other_sf.net["pair_plus"] == 20000


def test_no_ante_bonus_table_pays_no_ante_bonus() -> None:
    rules = ruleset_from_json({"ante_bonus": {}})
    seat = one_seat("8S 8H 8D", "4C 5D 6H", rules, ante=1000, play=True)
    assert seat.net["ante_bonus"] == 0
    assert all(r.bet is not Bet.ANTE_BONUS for r in seat.results)


# --- limits, the cap, misdeal --------------------------------------------------------------

def test_stake_outside_the_table_limits_names_the_seat_and_bet() -> None:
    rules = ruleset_from_json({"limits": {"ante": {"min": 500, "max": 50000},
                                          "pair_plus": {"max": 10000}}})
    with pytest.raises(Exception, match="seat 4: ante stake 100 is outside the table limits"):
        settle("QH 8C 3D", [{"seat": 4, "cards": "KS 7H 2C", "ante": 100, "play": True}], rules)
    with pytest.raises(Exception, match="seat 1: pair plus stake 20000 is outside"):
        settle("QH 8C 3D", [{"seat": 1, "cards": "KS 7H 2C", "ante": 1000, "play": True,
                             "pair_plus": 20000}], rules)


def test_payout_cap_pays_a_big_win_at_the_cap_and_says_so() -> None:
    rules = ruleset_from_json({"max_payout": 100000})
    seat = one_seat("KH AH 2C", "10H JH QH", rules, ante=1000, play=True, pair_plus=500,
                    six_card=500, prime=500)
    wins = sum(n for n in seat.net.values() if n > 0)
    assert wins == 100000
    assert seat.cap_reduction == 528500 - 100000
    six = seat.result(Bet.SIX_CARD)
    assert six.capped > 0 and "cap" in six.reason


def test_payout_cap_leaves_smaller_wins_alone() -> None:
    rules = ruleset_from_json({"max_payout": 100000})
    seat = one_seat("QH 8C 3D", "KS 7H 2C", rules, ante=1000, play=True)
    assert seat.cap_reduction == 0 and seat.total == 2000


def test_misdeal_returns_every_stake_and_pays_nothing() -> None:
    entry = parse_round({"dealer": ["QH"], "misdeal": True, "misdeal_reason": "card exposed",
                         "seats": [{"seat": 1, "cards": ["KS"], "ante": 1000, "play": True,
                                    "pair_plus": 500}]})
    result = settle_round(entry)
    assert result.misdeal and result.total == 0
    assert all(r.outcome is Outcome.PUSH for r in result.seats[0].results)
    assert "card exposed" in result.seats[0].results[0].reason


# --- bad input: every one a clear error ------------------------------------------------------

BAD_ROUNDS = [
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 3, "cards": "QS KD 1X", "ante": 100}]},
     'seat 3: "1X" is not a card'),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 1, "cards": "QS KD 3C", "ante": 100},
                                      {"seat": 3, "cards": "QS 2D 4C", "ante": 100}]},
     "seat 3: QS is already in seat 1"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 2, "cards": "QH KD 3C", "ante": 100}]},
     "seat 2: QH is already the dealer's card"),
    ({"dealer": "QH 8C", "seats": [{"seat": 1, "cards": "QS KD 3C", "ante": 100}]},
     "dealer: needs exactly 3 cards, got 2"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 1, "cards": "QS KD", "ante": 100}]},
     "seat 1: needs exactly 3 cards, got 2"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 9, "cards": "QS KD 3C", "ante": 100}]},
     "seat 9 is not at this table"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 1, "cards": "QS KD 3C", "ante": -5}]},
     "seat 1: ante stake cannot be negative"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 1, "cards": "QS KD 3C", "ante": 10.5}]},
     "seat 1: ante stake must be a whole number of cents"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 1, "cards": "QS KD 3C", "ante": 100,
                                       "play": 200}]},
     "seat 1: play stake 200 must equal the ante"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 1, "cards": "QS KD 3C", "six_card": 100}]},
     "seat 1: six card bonus needs an ante"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 1, "cards": "QS KD 3C", "prime": 100}]},
     "seat 1: prime needs an ante"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 1, "cards": "QS KD 3C"}]},
     "seat 1: no bet on this seat"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 1, "cards": "QS KD 3C", "ante": 100},
                                      {"seat": 1, "cards": "2S 2D 3H", "ante": 100}]},
     "seat 1 is entered twice"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 1, "cards": "QS KD 3C", "antes": 100}]},
     'seat 1: unknown field "antes"'),
    ({"dealer": "QH 8C 3D", "seats": []}, "the round has no seats"),
    ({"dealer": "QH 8C 3D", "seats": [{"seat": 1, "cards": "QS KD 3C", "play": True}]},
     "seat 1: cannot play without an ante"),
    ("not a round", "a round must be a JSON object"),
]


@pytest.mark.parametrize(("data", "message"), BAD_ROUNDS, ids=[m for _, m in BAD_ROUNDS])
def test_bad_input_is_a_clear_domain_error(data: Any, message: str) -> None:
    from dealer_assist.domain.errors import DomainError

    with pytest.raises(DomainError) as caught:
        parse_round(data)
    assert message in str(caught.value)


# --- invariants ----------------------------------------------------------------------------

@given(rounds(), rulesets())
def test_invariants_hold_for_any_round_and_rule_set(data: dict[str, Any],
                                                    rules_json: dict[str, Any]) -> None:
    rules = ruleset_from_json(rules_json)
    result = settle_round(parse_round(data, rules), rules)
    for seat, entry in zip(result.seats, sorted(data["seats"], key=lambda s: s["seat"]),
                           strict=True):
        net = seat.net
        assert seat.total == sum(net.values())
        if entry["ante"] and not entry["play"]:
            assert net["ante"] == -entry["ante"]  # a fold never wins the ante
            assert net["play"] == 0 and net["ante_bonus"] == 0
        assert net["ante_bonus"] >= 0  # the ante bonus never loses
        if seat.cap_reduction == 0:
            assert net["play"] in (-entry["ante"], 0, entry["ante"])
        for bet in ("ante", "pair_plus", "six_card", "prime"):
            assert net[bet] >= -entry[bet]  # nobody loses more than the stake
            if entry[bet] == 0:
                assert net[bet] == 0
        if rules.max_payout is not None:
            assert sum(n for n in net.values() if n > 0) <= rules.max_payout


@given(rounds(), st.randoms(use_true_random=False))
def test_settling_is_independent_of_seat_order(data: dict[str, Any], rnd: Any) -> None:
    rules = ruleset_from_json({"pair_plus_without_ante": True})
    shuffled = dict(data, seats=rnd.sample(data["seats"], len(data["seats"])))
    assert settle_round(parse_round(data, rules), rules).to_json() == settle_round(
        parse_round(shuffled, rules), rules).to_json()


@given(st.permutations(list(range(52))))
def test_hand_comparison_is_a_total_order_consistent_with_categories(deck: list[int]) -> None:
    from dealer_assist.domain.cards import DECK

    a, b, c = (rank_hand([DECK[i] for i in deck[k:k + 3]]) for k in (0, 3, 6))
    if a.category.order > b.category.order:
        assert a > b
    if a <= b and b <= c:
        assert a <= c
    assert (a < b) + (a > b) + (a.strength == b.strength) == 1


# --- the batch path agrees with the one-round path ------------------------------------------

def _batch_rows(data: dict[str, Any]) -> dict[str, Any]:
    dealer = [c.index for c in parse_cards(data["dealer"])]
    seats = sorted(data["seats"], key=lambda s: s["seat"])
    return {
        "dealer": np.array([dealer] * len(seats)),
        "player": np.array([[c.index for c in parse_cards(s["cards"])] for s in seats]),
        **{k: np.array([s[k] for s in seats]) for k in ("ante", "play", "pair_plus",
                                                          "six_card", "prime")},
    }


@given(rounds(), rulesets())
def test_batch_path_matches_one_round_path(data: dict[str, Any],
                                           rules_json: dict[str, Any]) -> None:
    rules = ruleset_from_json(rules_json)
    one = settle_round(parse_round(data, rules), rules)
    nets = settle_batch(rules, **_batch_rows(data))
    assert nets.tolist() == [[s.net[c] for c in NET_COLUMNS] for s in one.seats]


def test_batch_path_matches_on_many_random_seat_hands() -> None:
    rng = np.random.default_rng(2026)
    n = 20_000
    cards = np.array([rng.choice(52, 6, replace=False) for _ in range(n)])
    stakes = rng.choice([0, 100, 500, 1000], size=(n, 4))
    stakes[:, 0] = np.maximum(stakes[:, 0], 100)
    play = rng.random(n) < 0.7
    nets = settle_batch(DEFAULT_RULES, dealer=cards[:, :3], player=cards[:, 3:], ante=stakes[:, 0],
                        play=play, pair_plus=stakes[:, 1], six_card=stakes[:, 2],
                        prime=stakes[:, 3])
    from dealer_assist.domain.cards import DECK

    for i in range(0, n, 7):
        seat = {"seat": 1, "cards": [str(DECK[j]) for j in cards[i, 3:]],
                "ante": int(stakes[i, 0]), "play": bool(play[i]),
                "pair_plus": int(stakes[i, 1]), "six_card": int(stakes[i, 2]),
                "prime": int(stakes[i, 3])}
        one = settle_round(parse_round({"dealer": [str(DECK[j]) for j in cards[i, :3]],
                                        "seats": [seat]})).seats[0]
        assert nets[i].tolist() == [one.net[c] for c in NET_COLUMNS]


# --- an independent implementation agrees ------------------------------------------------

@given(rounds(), rulesets())
def test_agrees_with_an_independent_naive_implementation(data: dict[str, Any],
                                                          rules_json: dict[str, Any]) -> None:
    from . import oracle

    rules = ruleset_from_json(rules_json)
    complete = rules.to_json()
    ours = settle_round(parse_round(data, rules), rules)
    dealer = [str(c) for c in parse_cards(data["dealer"])]
    for seat in ours.seats:
        entry = next(s for s in data["seats"] if s["seat"] == seat.seat)
        naive = oracle.settle_seat(dealer, dict(entry, cards=[str(c) for c in
                                                              parse_cards(entry["cards"])]),
                                   complete)
        assert seat.net == naive, f"seat {seat.seat}"


def test_absurd_stakes_and_pays_are_refused_not_overflowed() -> None:
    from dealer_assist.domain.errors import DomainError

    with pytest.raises(DomainError, match=r"seat 1: ante stake .* is beyond any table"):
        parse_round({"dealer": "QH 8C 3D",
                     "seats": [{"seat": 1, "cards": "KS 7H 2C", "ante": 10**23, "play": True}]})
    for bad in ({"pair_plus": {"pair": 10**9}}, {"pair_plus": "9999999-1"},
                {"pair_plus": "40-30-6-4-²"}):
        with pytest.raises(DomainError, match="pair_plus"):
            ruleset_from_json(bad)
