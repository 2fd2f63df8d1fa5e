"""Hostile JSON for the fuzz tests: any JSON value, and near-valid rounds and rule sets with
one part swapped for something hostile (huge or negative ints, floats, NaN, unicode, lone
surrogates, deep nesting, wrong types)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from dealer_assist.domain.cards import DECK

CARDS = [str(c) for c in DECK]

#: Text that tries the parsers: card-like tokens, suit symbols, digits, control, surrogates.
hostile_text = st.one_of(
    st.text(max_size=30),
    st.text(alphabet="0123456789AaKkQqJjTtSsHhDdCc♠♥♦♣♤♡♢♧ ,;\t\n-+.1", max_size=30),
    st.sampled_from(["", " ", "10", "1O", "AS AS", "A♠♠", "٣H", "１０H", "AS\x00", "\ud800",
                     "ＡＳ", "🂡", "Q" * 10_000, "AS," * 500, "null", "NaN", "-0", "1e400"]),
    st.sampled_from(CARDS),
)

huge_ints = st.one_of(
    st.integers(),
    st.integers(min_value=2**62, max_value=2**200),
    st.integers(max_value=-1),
    st.sampled_from([0, -1, 2**31, 2**63, -(2**63), 2**64, 10**300]),
)

scalars = st.one_of(
    st.none(), st.booleans(), huge_ints, st.floats(allow_nan=True, allow_infinity=True),
    hostile_text,
)

#: Any JSON-ish value (Python floats include NaN and inf, as json.loads gives them).
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(st.one_of(hostile_text, st.sampled_from(
            ["dealer", "seats", "seat", "cards", "ante", "play", "pair_plus", "six_card",
             "prime", "rules", "misdeal", "misdeal_reason", "limits", "max_payout",
             "dealer_qualifier"])), children, max_size=6),
    ),
    max_leaves=25,
)


def deep(depth: int) -> Any:
    value: Any = "AS"
    for i in range(depth):
        value = [value] if i % 2 else {"seats": value}
    return value


@st.composite
def valid_rounds(draw: st.DrawFn) -> dict[str, Any]:
    cards = draw(st.permutations(CARDS))
    n = draw(st.integers(1, 7))
    seats = []
    for i in range(n):
        ante = draw(st.sampled_from([0, 500, 1000, 2500]))
        seat: dict[str, Any] = {"seat": i + 1, "cards": cards[3 + 3 * i: 6 + 3 * i],
                                "ante": ante or 1000, "play": draw(st.booleans())}
        if draw(st.booleans()):
            seat["pair_plus"] = draw(st.sampled_from([0, 100, 500]))
        if draw(st.booleans()):
            seat["six_card"] = draw(st.sampled_from([0, 100, 500]))
        if draw(st.booleans()):
            seat["prime"] = draw(st.sampled_from([0, 100, 500]))
        seats.append(seat)
    return {"dealer": cards[:3], "seats": seats}


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated_rounds(draw: st.DrawFn) -> Any:
    """A valid round with one place (or a new key) replaced by something hostile."""
    data: Any = draw(valid_rounds())
    paths = [p for p in _paths(data) if p]
    path = draw(st.sampled_from(paths))
    target = data
    for key in path[:-1]:
        target = target[key]
    how = draw(st.sampled_from(["replace", "add_key", "drop"]))
    if how == "replace":
        target[path[-1]] = draw(json_values)
    elif how == "add_key" and isinstance(target, dict):
        target[draw(hostile_text)] = draw(json_values)
    elif isinstance(target, dict):
        del target[path[-1]]
    return data


DEFAULT_RULES_JSON: dict[str, Any] = {
    "pair_plus": {"straight_flush": 40, "three_of_a_kind": 30, "straight": 6, "flush": 4,
                  "pair": 1},
    "ante_bonus": {"straight_flush": 5, "three_of_a_kind": 4, "straight": 1},
    "six_card_bonus": {"royal_flush": 1000, "straight_flush": 200, "four_of_a_kind": 50,
                       "full_house": 25, "flush": 20, "straight": 10, "three_of_a_kind": 5},
    "prime": {"three_same_color": 3, "six_same_color": 4},
    "dealer_qualifier": "Q",
    "fold_forfeits_pair_plus": True, "fold_forfeits_prime": True,
    "six_card_pays_after_fold": True, "pair_plus_without_ante": False,
    "limits": {"ante": {"min": 100, "max": 100000}}, "max_payout": 5_000_000,
}


@st.composite
def mutated_rulesets(draw: st.DrawFn) -> Any:
    import copy

    data: Any = copy.deepcopy(DEFAULT_RULES_JSON)
    paths = [p for p in _paths(data) if p]
    path = draw(st.sampled_from(paths))
    target = data
    for key in path[:-1]:
        target = target[key]
    if draw(st.booleans()):
        target[path[-1]] = draw(json_values)
    else:
        target[draw(hostile_text)] = draw(json_values)
    return data
