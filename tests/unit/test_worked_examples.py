"""Every worked example of RULES.md §6, through the same path the CLI and the web use."""

from __future__ import annotations

import pytest

from dealer_assist.domain.round_entry import parse_round
from dealer_assist.domain.rulesets import DEFAULT_RULES, RuleSet, ruleset_from_presets
from dealer_assist.domain.settlement import settle_round

PP_MINI_50 = ruleset_from_presets("pair_plus 40-30-5-4-1 mini royal 50")

# (case, dealer, cards, stakes, expected nets, rules)
EXAMPLES: list[tuple[str, str, str, dict[str, object], dict[str, int], RuleSet]] = [
    ("dealer does not qualify", "JH 9C 4D", "AS KD 3C", {"ante": 1000, "play": True},
     {"ante": 1000, "play": 0}, DEFAULT_RULES),
    ("player beats a qualifying dealer", "QH 8C 3D", "KS 7H 2C", {"ante": 1000, "play": True},
     {"ante": 1000, "play": 1000}, DEFAULT_RULES),
    ("exact tie", "QH 8C 3D", "QS 8D 3H", {"ante": 1000, "play": True},
     {"ante": 0, "play": 0}, DEFAULT_RULES),
    ("fold forfeits pair plus", "QH 8C 3D", "5C 5D 9H",
     {"ante": 1000, "play": False, "pair_plus": 500},
     {"ante": -1000, "pair_plus": -500}, DEFAULT_RULES),
    ("bonuses paid though the dealer wins", "8S 8H 8D", "4C 5D 6H",
     {"ante": 1000, "play": True, "pair_plus": 500},
     {"ante": -1000, "play": -1000, "ante_bonus": 1000, "pair_plus": 3000}, DEFAULT_RULES),
    ("A-2-3 is the lowest straight", "2H 3C 4D", "AC 2D 3S", {"ante": 1000, "play": True},
     {"ante": -1000, "play": -1000, "ante_bonus": 1000}, DEFAULT_RULES),
    ("pair rank before kicker", "2S 2C 10D", "4H 4C 6D", {"ante": 1000, "play": True},
     {"ante": 1000, "play": 1000}, DEFAULT_RULES),
    ("straight beats flush", "2D 7D JD", "5C 6D 7S", {"ante": 1000, "play": True},
     {"ante": 1000, "play": 1000, "ante_bonus": 1000}, DEFAULT_RULES),
    ("every bet at once", "KH AH 2C", "10H JH QH",
     {"ante": 1000, "play": True, "pair_plus": 500, "six_card": 500, "prime": 500},
     {"ante": 1000, "play": 1000, "ante_bonus": 5000, "pair_plus": 20000,
      "six_card": 500000, "prime": 1500}, DEFAULT_RULES),
    ("six card pays after a fold", "2S 2D 2H", "2C 7D 9H",
     {"ante": 1000, "play": False, "six_card": 500},
     {"ante": -1000, "six_card": 25000}, DEFAULT_RULES),
    ("prime, all six one colour", "KD 3H 7D", "2H 5D 9H",
     {"ante": 1000, "play": True, "prime": 500},
     {"ante": -1000, "play": -1000, "prime": 2000}, DEFAULT_RULES),
    ("mini royal 50 on pair plus 40-30-5-4-1", "9C 9D 4S", "AS KS QS",
     {"ante": 1000, "play": True, "pair_plus": 500},
     {"ante": 1000, "play": 1000, "ante_bonus": 5000, "pair_plus": 25000}, PP_MINI_50),
]


@pytest.mark.parametrize(("dealer", "cards", "stakes", "expected", "rules"),
                         [e[1:] for e in EXAMPLES], ids=[e[0] for e in EXAMPLES])
def test_worked_example(dealer: str, cards: str, stakes: dict[str, object],
                        expected: dict[str, int], rules: RuleSet) -> None:
    entry = parse_round({"dealer": dealer, "seats": [{"seat": 1, "cards": cards, **stakes}]},
                        rules)
    seat = settle_round(entry, rules).seats[0]
    want = {bet: 0 for bet in ("ante", "play", "ante_bonus", "pair_plus", "six_card", "prime")}
    want.update(expected)
    assert seat.net == want
    assert seat.total == sum(want.values())
