"""An independent, deliberately naive settlement written straight from RULES.md.

It shares no code with dealer_assist.domain beyond nothing at all: cards are plain
strings, five-card hands are found by trying all six five-card subsets, and every
rule is spelled out again. Tests settle random rounds both ways and compare.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

RANKS = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
         "J": 11, "Q": 12, "K": 13, "A": 14}


def split(card: str) -> tuple[int, str]:
    return RANKS[card[:-1]], card[-1]


def three_key(cards: list[str]) -> tuple[int, tuple[int, ...]]:
    """(category 0..5, tiebreak) with 5 straight flush .. 0 high card."""
    ranks = sorted((split(c)[0] for c in cards), reverse=True)
    suited = len({split(c)[1] for c in cards}) == 1
    if ranks == [14, 3, 2]:
        straight, top = True, 3
    else:
        straight, top = ranks[0] - ranks[2] == 2 and len(set(ranks)) == 3, ranks[0]
    if straight and suited:
        return 5, (top,)
    if len(set(ranks)) == 1:
        return 4, (ranks[0],)
    if straight:
        return 3, (top,)
    if suited:
        return 2, tuple(ranks)
    if len(set(ranks)) == 2:
        pair = ranks[1]
        kicker = next(r for r in ranks if r != pair)
        return 1, (pair, kicker)
    return 0, tuple(ranks)


THREE_NAMES = ["high_card", "pair", "flush", "straight", "three_of_a_kind", "straight_flush"]
FIVE_NAMES = ["high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
              "full_house", "four_of_a_kind", "straight_flush", "royal_flush"]


def five_category(cards: tuple[str, ...]) -> int:
    ranks = sorted((split(c)[0] for c in cards), reverse=True)
    flush = len({split(c)[1] for c in cards}) == 1
    distinct = sorted(set(ranks))
    straight = len(distinct) == 5 and (distinct[4] - distinct[0] == 4
                                       or distinct == [2, 3, 4, 5, 14])
    counts = sorted((ranks.count(r) for r in distinct), reverse=True)
    if straight and flush:
        return 9 if distinct[0] == 10 else 8
    if counts[0] == 4:
        return 7
    if counts == [3, 2]:
        return 6
    if flush:
        return 5
    if straight:
        return 4
    if counts[0] == 3:
        return 3
    if counts[:2] == [2, 2]:
        return 2
    if counts[0] == 2:
        return 1
    return 0


def best_of_six(cards: list[str]) -> str:
    return FIVE_NAMES[max(five_category(five) for five in combinations(cards, 5))]


def qualifies(dealer_key: tuple[int, tuple[int, ...]], qualifier: str) -> bool:
    if qualifier == "pair":
        return dealer_key[0] >= 1
    if dealer_key[0] >= 1:
        return True
    need = [RANKS[p] for p in qualifier.split("-")]
    return list(dealer_key[1][: len(need)]) >= need


def settle_seat(dealer: list[str], seat: dict[str, Any], rules: dict[str, Any]) -> dict[str, int]:
    """Nets per bet for one seat under a complete rule-set JSON (every key present)."""
    ante, pp, six, prime = (seat.get(k, 0) for k in ("ante", "pair_plus", "six_card", "prime"))
    played = bool(ante) and bool(seat.get("play"))
    folded = bool(ante) and not played
    cards = seat["cards"]
    me, them = three_key(cards), three_key(dealer)
    net = dict.fromkeys(("ante", "play", "ante_bonus", "pair_plus", "six_card", "prime"), 0)
    if folded:
        net["ante"] = -ante
    elif played:
        if not qualifies(them, rules["dealer_qualifier"]):
            net["ante"] = ante
        elif me > them:
            net["ante"], net["play"] = ante, ante
        elif me < them:
            net["ante"], net["play"] = -ante, -ante
        mini = me[0] == 5 and me[1][0] == 14
        name = THREE_NAMES[me[0]]
        bonus = rules["ante_bonus"].get("mini_royal") if mini else None
        if bonus is None:
            bonus = rules["ante_bonus"].get(name, 0)
        net["ante_bonus"] = ante * bonus
    if pp:
        mini = me[0] == 5 and me[1][0] == 14
        odds = rules["pair_plus"].get("mini_royal") if mini else None
        if odds is None:
            odds = rules["pair_plus"].get(THREE_NAMES[me[0]], 0)
        if folded and rules["fold_forfeits_pair_plus"]:
            odds = 0
        net["pair_plus"] = pp * odds if odds else -pp
    if six:
        odds = rules["six_card_bonus"].get(best_of_six(cards + dealer), 0)
        if folded and not rules["six_card_pays_after_fold"]:
            odds = 0
        net["six_card"] = six * odds if odds else -six
    if prime:
        def colour(cs: list[str]) -> set[bool]:
            return {split(c)[1] in "DH" for c in cs}
        odds = 0
        if len(colour(cards)) == 1 and rules["prime"]:
            same = colour(dealer) == colour(cards)
            odds = rules["prime"]["six_same_color" if same else "three_same_color"]
        if folded and rules["fold_forfeits_prime"]:
            odds = 0
        net["prime"] = prime * odds if odds else -prime
    cap = rules.get("max_payout")
    if cap is not None:
        excess = sum(v for v in net.values() if v > 0) - cap
        for bet in sorted(net, key=lambda b: -net[b]):  # stable: bet order breaks ties
            if excess <= 0 or net[bet] <= 0:
                break
            cut = min(excess, net[bet])
            net[bet] -= cut
            excess -= cut
    return net
