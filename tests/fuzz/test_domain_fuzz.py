"""The domain's parsers under hostile input: a DomainError (with a message) or a result,
never any other exception. Card parsing, rule-set JSON, round JSON and settle_json."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer_assist.domain.cards import parse_card, parse_cards
from dealer_assist.domain.errors import DomainError
from dealer_assist.domain.round_entry import parse_round
from dealer_assist.domain.rulesets import ruleset_from_json, ruleset_from_text
from dealer_assist.domain.settle_json import settle_json

from .strategies import (
    deep,
    hostile_text,
    json_values,
    mutated_rounds,
    mutated_rulesets,
    valid_rounds,
)

QUIET = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def clean(fn: Any, *args: Any) -> Any:
    """Call ``fn``: a DomainError must carry a non-empty text message; nothing else may escape."""
    try:
        return fn(*args)
    except DomainError as exc:
        assert isinstance(exc.message, str) and exc.message.strip()
        assert exc.field is None or isinstance(exc.field, str)
        str(exc)  # printable
        return exc


@QUIET
@given(hostile_text)
def test_parse_card_text(text: str) -> None:
    clean(parse_card, text)
    clean(parse_cards, text)


@QUIET
@given(json_values)
def test_parse_cards_any_json(value: Any) -> None:
    clean(parse_cards, value)
    clean(parse_card, value)


@QUIET
@given(json_values)
def test_ruleset_any_json(value: Any) -> None:
    clean(ruleset_from_json, value)


@QUIET
@given(mutated_rulesets())
def test_ruleset_mutated(value: Any) -> None:
    clean(ruleset_from_json, value)
    try:
        text = json.dumps(value)
    except (ValueError, UnicodeEncodeError):
        return
    clean(ruleset_from_text, text)


@QUIET
@given(hostile_text)
def test_ruleset_text(text: str) -> None:
    clean(ruleset_from_text, text)


@QUIET
@given(json_values)
def test_round_any_json(value: Any) -> None:
    clean(parse_round, value)
    clean(settle_json, value)


@QUIET
@given(mutated_rounds())
def test_round_mutated(value: Any) -> None:
    clean(parse_round, value)
    result = clean(settle_json, value)
    if isinstance(result, dict):
        json.dumps(result, allow_nan=False)  # a settlement is plain JSON


@QUIET
@given(valid_rounds(), mutated_rulesets())
def test_round_with_hostile_rules(value: dict[str, Any], rules: Any) -> None:
    clean(settle_json, {**value, "rules": rules})


@QUIET
@given(valid_rounds())
def test_valid_rounds_settle(value: dict[str, Any]) -> None:
    result = settle_json(value)
    for seat in result["seats"]:
        assert seat["total"] == sum(seat["net"].values())


@pytest.mark.parametrize("depth", [10, 500, 5000])
def test_deep_nesting(depth: int) -> None:
    value = deep(depth)
    clean(settle_json, value)
    clean(settle_json, {"dealer": ["QH", "8C", "3D"], "seats": value})
    clean(ruleset_from_json, {"pair_plus": value})
    clean(parse_cards, value)


@pytest.mark.parametrize("stake", [2**63, 10**400, -(10**400), float("nan"), float("inf"),
                                   1e308, 10.0, True, "1000", None])
def test_extreme_stakes(stake: Any) -> None:
    data = {"dealer": ["QH", "8C", "3D"],
            "seats": [{"seat": 1, "cards": ["KS", "7H", "2C"], "ante": stake, "play": True,
                       "pair_plus": stake, "six_card": stake, "prime": stake}]}
    clean(settle_json, data)


@settings(max_examples=50)
@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_any_seat_number(number: int) -> None:
    clean(settle_json, {"dealer": ["QH", "8C", "3D"],
                        "seats": [{"seat": number, "cards": ["KS", "7H", "2C"], "ante": 100}]})
