"""The stable JSON form of settling: a round's JSON in, a settlement's JSON out.

Used by the ``settle`` command and the HTTP API so both speak exactly one format.

>>> out = settle_json({"dealer": ["QH", "8C", "3D"],
...     "seats": [{"seat": 1, "cards": ["KS", "7H", "2C"], "ante": 1000, "play": True}]})
>>> out["seats"][0]["net"]["play"], out["seats"][0]["total"]
(1000, 2000)
>>> settle_json({"dealer": ["QH", "8C", "3D"], "seats": [], "rules": {"dealer_qualifier": 9}})
Traceback (most recent call last):
...
dealer_assist.domain.errors.RuleSetError: rules: dealer_qualifier: "9" is not a rank, ranks like "Q-6-4", or "pair"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import RoundError, RuleSetError
from .round_entry import MAX_SEATS, parse_round
from .rulesets import DEFAULT_RULES, RuleSet, ruleset_from_json
from .settlement import settle_round


def rules_for(data: Mapping[str, Any], default: RuleSet = DEFAULT_RULES) -> RuleSet:
    """The round's own ``rules`` if it carries any, else ``default``."""
    raw = data.get("rules")
    if raw is None:
        return default
    try:
        return ruleset_from_json(raw)
    except RuleSetError as exc:
        raise RuleSetError(f"rules: {exc.message}", f"rules.{exc.field or ''}".rstrip(".")) from exc


def settle_json(data: object, default_rules: RuleSet = DEFAULT_RULES,
                seat_count: int = MAX_SEATS) -> dict[str, Any]:
    """Validate and settle one round given as JSON; raise a DomainError naming the problem."""
    if not isinstance(data, Mapping):
        raise RoundError("a round must be a JSON object with \"dealer\" and \"seats\"")
    rules = rules_for(data, default_rules)
    entry = parse_round(data, rules, seat_count)
    return settle_round(entry, rules).to_json()
