"""Exact game math (issue 3): every published figure of RULES.md §5, and a slow reference.

The brute-force reference below deals every dealer hand against a player hand and settles it
through the real settlement code (or straight from the RULES.md §4 table), so the fast path's
inclusion-exclusion counting is checked against plain enumeration, hand by hand.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.domain.analysis import (
    DEALER_HANDS,
    TOTAL_HANDS,
    analyze,
    clear_cache,
    dealer_counts,
    hand_decision,
    hand_table,
)
from dealer_assist.domain.cards import DECK, Card, parse_cards
from dealer_assist.domain.round_entry import SeatEntry
from dealer_assist.domain.rulesets import (
    DEFAULT_RULES,
    RuleSet,
    ruleset_from_json,
    ruleset_from_presets,
)
from dealer_assist.domain.settlement import Bet, settle_seat
from dealer_assist.domain.six_card import SIX_CARD_COUNTS, best_five
from dealer_assist.domain.three_card import rank_hand

# --------------------------------------------------------------------------- the reference


@cache
def reference_strengths() -> dict[tuple[int, int, int], int]:
    """Every hand's strength straight from rank_hand (the settlement's own ranking)."""
    return {
        (a, b, c): rank_hand((DECK[a], DECK[b], DECK[c])).strength
        for a, b, c in itertools.combinations(range(52), 3)
    }


def reference_counts(player: tuple[int, int, int], qualifier: int) -> tuple[int, int, int, int]:
    """(no qualify, player wins, tie, dealer wins) over all 18,424 dealer hands, one by one."""
    strengths = reference_strengths()
    mine = strengths[tuple(sorted(player))]  # type: ignore[index]
    rest = [i for i in range(52) if i not in player]
    nq = win = tie = lose = 0
    for dealer in itertools.combinations(rest, 3):
        theirs = strengths[dealer]
        if theirs < qualifier:
            nq += 1
        elif mine > theirs:
            win += 1
        elif mine == theirs:
            tie += 1
        else:
            lose += 1
    return nq, win, tie, lose


def reference_play_return(player: tuple[int, int, int], rules: RuleSet) -> Fraction:
    """Expected ante + play + ante bonus per unit ante when playing, from the RULES §4 table."""
    nq, win, _tie, lose = reference_counts(player, rules.dealer_qualifier.strength)
    hand = rank_hand([DECK[i] for i in player])
    bonus = rules.ante_bonus.get(hand.category.value, 0)
    if "mini_royal" in rules.ante_bonus and hand.name.startswith("mini royal"):
        bonus = rules.ante_bonus["mini_royal"]
    return bonus + Fraction(nq + 2 * win - 2 * lose, DEALER_HANDS)


def settled_totals(player: tuple[int, int, int], rules: RuleSet, play: bool) -> dict[Bet, int]:
    """Sum of each bet's net (unit stakes) over every dealer hand, through settle_seat."""
    cards = tuple(DECK[i] for i in player)
    seat = SeatEntry(1, cards, ante=1, play=play, pair_plus=1, six_card=1, prime=1)
    totals = dict.fromkeys(Bet, 0)
    rest = [DECK[i] for i in range(52) if i not in player]
    q = rules.dealer_qualifier.strength
    for dealer_cards in itertools.combinations(rest, 3):
        dealer = rank_hand(dealer_cards)
        result = settle_seat(seat, dealer_cards, dealer, dealer.strength >= q, rules)
        for bet_result in result.results:
            totals[bet_result.bet] += bet_result.net
    return totals


def idx(text: str) -> tuple[int, int, int]:
    a, b, c = sorted(card.index for card in parse_cards(text))
    return a, b, c


def pct(value: Fraction) -> str:
    return f"{float(value) * 100:.4f}"


# --------------------------------------------------------------------------- published figures

ANTE_PLAY = [
    ("ante_bonus 5-4-1", "3.3730", "2.0147"),
    ("ante_bonus 5-3-1", "3.6083", "2.1552"),
    ("ante_bonus 4-3-1", "3.8255", "2.2849"),
    ("ante_bonus none", "8.6580", "5.1714"),
]
PAIR_PLUS = [
    ("pair_plus 40-30-6-4-1", "2.3167"),
    ("pair_plus 40-25-6-4-1", "3.4932"),
    ("pair_plus 35-25-6-4-1", "4.5792"),
    ("pair_plus 40-30-6-3-1", "7.2760"),
    ("pair_plus 40-30-5-4-1", "5.5747"),
    ("pair_plus 40-30-5-4-1 mini royal 50", "5.3937"),
    ("pair_plus 40-30-5-4-1 mini royal 100", "4.4887"),
]
SIX_CARD = [
    ("six_card 1000-200-50-25-20-10-5", "10.2248"),
    ("six_card 1000-200-100-20-15-10-7", "8.5614"),
]


@pytest.mark.parametrize(("preset", "edge", "risk"), ANTE_PLAY)
def test_ante_play_published(preset: str, edge: str, risk: str) -> None:
    figures = analyze(ruleset_from_presets(preset)).ante_play
    assert pct(figures.house_edge) == edge
    assert pct(figures.element_of_risk) == risk
    assert figures.strategy.description == "play Q-6-4 or better"
    assert figures.strategy.is_cutoff and figures.strategy.cutoff == "Q-6-4"


@pytest.mark.parametrize(("preset", "edge"), PAIR_PLUS)
def test_pair_plus_published(preset: str, edge: str) -> None:
    assert pct(analyze(ruleset_from_presets(preset)).pair_plus.house_edge) == edge


@pytest.mark.parametrize(("preset", "edge"), SIX_CARD)
def test_six_card_published(preset: str, edge: str) -> None:
    assert pct(analyze(ruleset_from_presets(preset)).six_card.house_edge) == edge


def test_prime_and_dealer_qualifying_published() -> None:
    result = analyze(ruleset_from_presets("prime 3-4"))
    assert result.prime.house_edge == Fraction(405, 11_186)
    assert pct(result.prime.house_edge) == "3.6206"
    assert result.dealer_qualifying_hands == 15_380
    assert result.dealer_qualifies == Fraction(15_380, 22_100)
    assert f"{float(result.dealer_qualifies):.2%}" == "69.59%"


def test_default_exact_fractions() -> None:
    ap = analyze().ante_play
    assert ap.house_edge == Fraction(686_689, 20_358_520)
    assert ap.play_frequency == Fraction(14_900, 22_100)
    assert ap.element_of_risk == ap.house_edge / (1 + ap.play_frequency)
    # Every hand from Q-6-4 up is played, every hand below folded.
    table = hand_table()
    q64 = rank_hand(parse_cards("QS 6H 4D")).strength
    assert np.array_equal(ap.strategy.play, table.strength >= q64)


# --------------------------------------------------------------------------- the fast path


def test_hand_table_matches_rank_hand() -> None:
    table = hand_table()
    strengths = reference_strengths()
    assert len(table.strength) == TOTAL_HANDS == len(strengths)
    for row, strength in zip(table.cards.tolist(), table.strength.tolist(), strict=True):
        assert strengths[tuple(row)] == strength
    assert int(table.mini_royal.sum()) == 4
    assert int(table.one_color.sum()) == 2 * math.comb(26, 3)


def test_dealer_counts_sum_and_symmetry() -> None:
    counts = dealer_counts(DEFAULT_RULES.dealer_qualifier.strength)
    total = counts.no_qualify + counts.player_wins + counts.tie + counts.dealer_wins
    assert (total == DEALER_HANDS).all()
    assert min(c.min() for c in (counts.no_qualify, counts.player_wins, counts.tie,
                                 counts.dealer_wins)) >= 0
    # Over all disjoint (player, dealer) pairs with both qualifying, wins and losses balance.
    every = dealer_counts(0)
    assert every.player_wins.sum() == every.dealer_wins.sum()


SAMPLE_HANDS = ["QS 6H 4D", "QS 6H 3D", "QS 6S 4S", "AC 2D 3S", "AH KH QH", "2C 2D 3H",
                "5C 3D 2H", "KD KH KS", "JC 10D 8H", "QC 6C 4D"]
QUALIFIERS = ["Q", "J", "K", "Q-6-4", "pair", "A-K", "2"]


@pytest.mark.parametrize("qualifier", QUALIFIERS)
def test_counts_match_brute_force_on_a_sample(qualifier: str) -> None:
    rules = ruleset_from_json({"dealer_qualifier": qualifier})
    rng = random.Random(qualifier)
    hands = [idx(h) for h in SAMPLE_HANDS[:4]]
    hands += [tuple(sorted(rng.sample(range(52), 3))) for _ in range(4)]  # type: ignore[misc]
    for player in hands:
        d = hand_decision([DECK[i] for i in player], rules)
        expected = reference_counts(player, rules.dealer_qualifier.strength)
        assert (d.no_qualify, d.player_wins, d.tie, d.dealer_wins) == expected, player
        assert d.play_return == reference_play_return(player, rules)
        assert d.play == (d.play_return > -1)


@settings(max_examples=25, deadline=None)
@given(player=st.lists(st.integers(0, 51), min_size=3, max_size=3, unique=True),
       qualifier=st.sampled_from(QUALIFIERS))
def test_counts_match_brute_force_random(player: list[int], qualifier: str) -> None:
    rules = ruleset_from_json({"dealer_qualifier": qualifier})
    a, b, c = sorted(player)
    d = hand_decision([DECK[i] for i in player], rules)
    assert (d.no_qualify, d.player_wins, d.tie, d.dealer_wins) == reference_counts(
        (a, b, c), rules.dealer_qualifier.strength)


@pytest.mark.parametrize("hand", ["QS 6H 4D", "AH KH QH", "2H 5D 9H"])
def test_per_hand_figures_match_settlement(hand: str) -> None:
    """All bets of one player hand against every dealer hand, through settle_seat."""
    rules = ruleset_from_presets("pair_plus 40-30-5-4-1 mini royal 100", ante_bonus="5-4-1")
    player = idx(hand)
    played = settled_totals(player, rules, play=True)
    d = hand_decision([DECK[i] for i in player], rules)
    ante_play = played[Bet.ANTE] + played[Bet.PLAY] + played[Bet.ANTE_BONUS]
    assert d.play_return == Fraction(ante_play, DEALER_HANDS)
    result = analyze(rules)
    # Standalone per-hand returns of the side bets agree with settlement when played.
    table = hand_table()
    i = next(k for k, row in enumerate(table.cards.tolist()) if tuple(row) == player)
    pp = Fraction(played[Bet.PAIR_PLUS], DEALER_HANDS)
    assert pp == _pair_plus_return(rules, i)
    prime = Fraction(played[Bet.PRIME], DEALER_HANDS)
    assert prime == _prime_return(rules, i)
    assert result.pair_plus.offered and result.prime.offered


def _pair_plus_return(rules: RuleSet, i: int) -> Fraction:
    cards = [DECK[k] for k in hand_table().cards[i].tolist()]
    hand = rank_hand(cards)
    key = "mini_royal" if hand.name.startswith("mini royal") else hand.category.value
    pay = rules.pair_plus.get(key, rules.pair_plus.get(hand.category.value, 0))
    return Fraction(pay or -1)


def _prime_return(rules: RuleSet, i: int) -> Fraction:
    if not hand_table().one_color[i]:
        return Fraction(-1)
    match = math.comb(23, 3)
    three, six = rules.prime["three_same_color"], rules.prime["six_same_color"]
    return Fraction(three * (DEALER_HANDS - match) + six * match, DEALER_HANDS)


def test_totals_from_the_reference_on_every_hand_of_one_rank_pattern() -> None:
    """Every Q-6-x player hand (x = 2..5) by brute force: the edge contribution adds up."""
    rules = DEFAULT_RULES
    table = hand_table()
    ap = analyze(rules).ante_play
    ranks = table.cards // 4 + 2
    chosen = np.flatnonzero((ranks[:, 2] == 12) & (ranks[:, 1] == 6) & (ranks[:, 0] <= 5))
    fast = Fraction(0)
    slow = Fraction(0)
    for i in chosen.tolist()[::7]:
        player = tuple(table.cards[i].tolist())
        play_return = reference_play_return(player, rules)
        slow += play_return if play_return > -1 else Fraction(-1)
        d = hand_decision([DECK[k] for k in player], rules)
        fast += d.play_return if d.play else Fraction(-1)
        assert d.play == bool(ap.strategy.play[i])
    assert fast == slow


# --------------------------------------------------------------------------- other rule sets


def test_player_edge_rule_set() -> None:
    rules = ruleset_from_json({
        "ante_bonus": {"straight_flush": 50, "three_of_a_kind": 40, "straight": 10,
                       "flush": 3, "pair": 1},
        "pair_plus": "100-60-10-8-2",
        "six_card_bonus": "1000-500-200-100-50-40-20",
        "prime": "5-10",
        "dealer_qualifier": "K",
    })
    result = analyze(rules)
    assert result.ante_play.house_edge < 0
    assert result.ante_play.element_of_risk < 0
    assert result.pair_plus.house_edge < 0
    assert result.six_card.house_edge < 0
    assert result.prime.house_edge < 0
    # A pair pays 1 to 1 on the ante, so a pair must be played; every flush too.
    assert result.ante_play.play_frequency > analyze().ante_play.play_frequency


def test_prime_exact_formula() -> None:
    rules = ruleset_from_json({"prime": {"three_same_color": 2, "six_same_color": 7}})
    p3 = Fraction(2 * math.comb(26, 3), TOTAL_HANDS)
    p6 = Fraction(math.comb(23, 3), DEALER_HANDS)
    expected = -(p3 * ((1 - p6) * 2 + p6 * 7) - (1 - p3))
    assert analyze(rules).prime.house_edge == expected


def test_six_card_from_counts() -> None:
    assert sum(SIX_CARD_COUNTS.values()) == math.comb(52, 6)
    # Only a royal pays (1 to 1); everything else loses the stake.
    rules = ruleset_from_json({"six_card_bonus": {"royal_flush": 1}})
    six = analyze(rules).six_card
    assert six.outcomes[1] == Fraction(188, math.comb(52, 6))
    assert six.house_edge == 1 - Fraction(2 * 188, math.comb(52, 6))
    assert best_five(parse_cards("10H JH QH KH AH 2C")).value == "royal_flush"


@pytest.mark.parametrize(("qualifier", "qualifying"), [
    ("Q", 15_380), ("pair", 5_660), ("2", 22_100), ("A", 5_660 + 64 * 60),
])
def test_other_qualifiers(qualifier: str, qualifying: int) -> None:
    result = analyze(ruleset_from_json({"dealer_qualifier": qualifier}))
    assert result.dealer_qualifying_hands == qualifying
    reference = sum(
        1 for s in reference_strengths().values()
        if s >= ruleset_from_json({"dealer_qualifier": qualifier}).dealer_qualifier.strength
    )
    assert reference == qualifying


@pytest.mark.parametrize(("qualifier", "ante_bonus", "expected"), [
    ("J", "5-4-1", "play Q-3-2 or better"),  # a J-high dealer now loses 2 units to Q-x-x
    ("Q-6-4", "5-4-1", "play Q-7-2 or better"),
    ("Q", "none", "play Q-6-4 or better"),
    ("K", "5-4-1", "play every hand"),
    ("2", "5-4-1", "play J-8-5 or better"),  # the dealer always qualifies
])
def test_qualifier_strategies_checked_at_the_boundary(
        qualifier: str, ante_bonus: str, expected: str) -> None:
    rules = ruleset_from_json({"dealer_qualifier": qualifier, "ante_bonus": ante_bonus})
    strategy = analyze(rules).ante_play.strategy
    assert strategy.description == expected
    table = hand_table()
    played = table.strength[strategy.play]
    folded = table.strength[~strategy.play]
    rng = random.Random(expected)
    # The weakest hands played and the strongest folded, by brute force in a few suit patterns.
    for strengths, should_play in ((played, True), (folded, False)):
        if not len(strengths):
            continue
        edge = strengths.min() if should_play else strengths.max()
        rows = np.flatnonzero(table.strength == edge).tolist()
        for i in rng.sample(rows, min(3, len(rows))):
            player = tuple(table.cards[i].tolist())
            play_return = reference_play_return(player, rules)
            assert (play_return > -1) is should_play, (player, play_return)


def test_mini_royal_only_on_ace_high() -> None:
    base = analyze(ruleset_from_presets("pair_plus 40-30-5-4-1")).pair_plus
    mini = analyze(ruleset_from_presets("pair_plus 40-30-5-4-1 mini royal 50")).pair_plus
    assert mini.house_edge == base.house_edge - Fraction(4 * 10, TOTAL_HANDS)
    assert mini.hit_frequency["mini_royal"] == Fraction(4, TOTAL_HANDS)
    assert mini.hit_frequency["straight_flush"] == Fraction(44, TOTAL_HANDS)
    # A mini royal ante bonus key is honoured too.
    bonus = analyze(ruleset_from_json({"ante_bonus": {"mini_royal": 100, "straight_flush": 5,
                                                      "three_of_a_kind": 4, "straight": 1}}))
    assert bonus.ante_play.house_edge == analyze().ante_play.house_edge - Fraction(
        4 * 95, TOTAL_HANDS)


def test_fold_options_move_only_the_with_folds_figures() -> None:
    keep = ruleset_from_json({"fold_forfeits_prime": False, "fold_forfeits_pair_plus": False})
    default = analyze()
    kept = analyze(keep)
    assert kept.prime.house_edge == default.prime.house_edge
    assert kept.prime.house_edge_with_folds == kept.prime.house_edge
    assert default.prime.house_edge_with_folds is not None
    assert default.prime.house_edge_with_folds > default.prime.house_edge
    # Q-6-4 folds only high cards, which lose the pair plus anyway.
    assert default.pair_plus.house_edge_with_folds == default.pair_plus.house_edge
    no_pay = analyze(ruleset_from_json({"six_card_pays_after_fold": False}))
    assert no_pay.six_card.house_edge == default.six_card.house_edge
    assert no_pay.six_card.house_edge_with_folds is None


def test_outcomes_are_distributions() -> None:
    result = analyze()
    for bet in (result.ante_play, result.pair_plus, result.six_card, result.prime):
        assert sum(bet.outcomes.values()) == 1
        mean = sum(net * p for net, p in bet.outcomes.items())
        assert mean == -bet.house_edge
        assert bet.std_dev > 0
    assert result.ante_play.std_dev == pytest.approx(1.6393, abs=1e-4)
    assert result.pair_plus.std_dev == pytest.approx(2.9106, abs=1e-4)


def test_not_offered_and_cache() -> None:
    rules = ruleset_from_json({"pair_plus": {}, "prime": {}, "six_card_bonus": {}})
    result = analyze(rules)
    assert not result.pair_plus.offered and not result.prime.offered
    assert result.to_json()["prime"]["house_edge"] is None
    assert analyze(rules) is result
    clear_cache()
    assert analyze(rules) is not result


@settings(max_examples=30, deadline=None)
@given(pays=st.lists(st.integers(0, 60), min_size=5, max_size=5),
       which=st.integers(0, 4), bump=st.integers(1, 20))
def test_pair_plus_edge_falls_as_a_pay_rises(pays: list[int], which: int, bump: int) -> None:
    keys = ["straight_flush", "three_of_a_kind", "straight", "flush", "pair"]
    table = dict(zip(keys, pays, strict=True))
    higher = {**table, keys[which]: table[keys[which]] + bump}
    low = analyze(ruleset_from_json({"pair_plus": table})).pair_plus.house_edge
    high = analyze(ruleset_from_json({"pair_plus": higher})).pair_plus.house_edge
    assert high < low


@settings(max_examples=15, deadline=None)
@given(pays=st.lists(st.integers(0, 30), min_size=3, max_size=3), which=st.integers(0, 2),
       bump=st.integers(1, 10))
def test_ante_edge_falls_as_an_ante_bonus_rises(pays: list[int], which: int, bump: int) -> None:
    keys = ["straight_flush", "three_of_a_kind", "straight"]
    table = dict(zip(keys, pays, strict=True))
    higher = {**table, keys[which]: table[keys[which]] + bump}
    low = analyze(ruleset_from_json({"ante_bonus": table})).ante_play
    high = analyze(ruleset_from_json({"ante_bonus": higher})).ante_play
    assert high.house_edge < low.house_edge
    # A bonus paid only when playing can only make playing more attractive.
    assert high.play_frequency >= low.play_frequency


def test_speed_of_a_fresh_rule_set() -> None:
    import time

    clear_cache(tables=True)
    start = time.perf_counter()
    analyze(ruleset_from_json({"pair_plus": "41-30-6-4-1", "dealer_qualifier": "J"}))
    assert time.perf_counter() - start < 1.0


def test_hand_decision_rejects_bad_hands() -> None:
    from dealer_assist.domain.errors import RoundError

    with pytest.raises(RoundError):
        hand_decision(parse_cards("AS AS KD"))
    with pytest.raises(RoundError):
        hand_decision([Card.from_index(0), Card.from_index(1)])


def test_card_removal_can_break_the_cutoff() -> None:
    """With a J-10-2 qualifier, hands of equal rank differ by suits; the reference agrees."""
    rules = ruleset_from_json({"dealer_qualifier": "J-10-2"})
    strategy = analyze(rules).ante_play.strategy
    assert not strategy.is_cutoff
    assert strategy.description.startswith("not a simple cutoff: play 15,044 of 22,100 hands")
    assert strategy.nearest_cutoff == "Q-6-2" and strategy.exceptions == 24
    table = hand_table()
    mixed = [s for s in np.unique(table.strength[strategy.play])
             if not strategy.play[table.strength == s].all()]
    assert mixed
    rows = np.flatnonzero(table.strength == mixed[0])
    plays = [i for i in rows if strategy.play[i]][:2]
    folds = [i for i in rows if not strategy.play[i]][:2]
    for i in plays + folds:
        player = tuple(table.cards[i].tolist())
        assert (reference_play_return(player, rules) > -1) is bool(strategy.play[i])


def test_strategy_texts() -> None:
    from dealer_assist.domain.analysis import _strategy

    table = hand_table()
    cases = {
        1 << 12: "play any pair or better",
        (1 << 12) + (5 << 8) + (3 << 4): "play a pair of 5s with a 3 kicker or better",
        (2 << 12) + (12 << 8) + (6 << 4) + 4: "play a Q-6-4 flush or better",
        (3 << 12) + (10 << 8): "play a straight, 10 high or better",
        0: "play every hand",
        1 << 20: "fold every hand",
    }
    for cut, text in cases.items():
        assert _strategy(table.strength >= cut).description == text
