"""Rule sets as data (RULES.md §5): pay tables, options, limits, and a stable content hash.

A rule set is parsed from JSON; every omitted key takes the default. A pay table may be
given as a mapping or as its pays in order (``"40-30-6-4-1"``). Presets for the published
tables are keyed by their pays, never by a table number.

>>> rules = ruleset_from_json({"pair_plus": "40-30-5-4-1", "dealer_qualifier": "Q"})
>>> rules.pair_plus["straight"]
5
>>> rules.content_hash == ruleset_from_json(rules.to_json()).content_hash
True
>>> ruleset_from_json({"pair_plus": {"royal": 100}})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
dealer_assist.domain.errors.RuleSetError: pair_plus.royal: unknown hand (one of straight_flush, ...)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

from .cards import Rank
from .errors import RuleSetError, shown
from .six_card import FiveCardCategory
from .three_card import CATEGORY_ORDER, ThreeCardCategory

PayTable = Mapping[str, int]
#: The largest pays a table may name (to 1): far past any real table (royal 1000 to 1),
#: small enough that stake x pays fits a 64-bit integer.
MAX_PAYS = 100_000

#: Hands each pay table may name, best first (the order a pays string lists them in).
PAIR_PLUS_HANDS = ("straight_flush", "three_of_a_kind", "straight", "flush", "pair")
ANTE_BONUS_HANDS = ("straight_flush", "three_of_a_kind", "straight", "flush", "pair")
SIX_CARD_HANDS = (
    "royal_flush",
    "straight_flush",
    "four_of_a_kind",
    "full_house",
    "flush",
    "straight",
    "three_of_a_kind",
    "two_pair",
    "pair",
)
PRIME_KEYS = ("three_same_color", "six_same_color")
MINI_ROYAL = "mini_royal"
#: Bets a player stakes (the play stake always equals the ante, so it has no limit of its own).
STAKED_BETS = ("ante", "pair_plus", "six_card", "prime")
OPTIONS = (
    "fold_forfeits_pair_plus",
    "fold_forfeits_prime",
    "six_card_pays_after_fold",
    "pair_plus_without_ante",
)

DEFAULT_JSON: dict[str, Any] = {
    "pair_plus": {"straight_flush": 40, "three_of_a_kind": 30, "straight": 6, "flush": 4, "pair": 1},
    "ante_bonus": {"straight_flush": 5, "three_of_a_kind": 4, "straight": 1},
    "six_card_bonus": {
        "royal_flush": 1000,
        "straight_flush": 200,
        "four_of_a_kind": 50,
        "full_house": 25,
        "flush": 20,
        "straight": 10,
        "three_of_a_kind": 5,
    },
    "prime": {"three_same_color": 3, "six_same_color": 4},
    "dealer_qualifier": "Q",
    "fold_forfeits_pair_plus": True,
    "fold_forfeits_prime": True,
    "six_card_pays_after_fold": True,
    "pair_plus_without_ante": False,
    "limits": {},
    "max_payout": None,
}

_TOP_KEYS = frozenset(DEFAULT_JSON)


@dataclass(frozen=True, slots=True)
class BetLimit:
    """Table minimum and maximum for one bet type, in minor units; a 0 stake is no bet."""

    minimum: int = 0
    maximum: int | None = None


@dataclass(frozen=True)
class DealerQualifier:
    """The weakest dealer hand that qualifies: ``Q`` (queen high), ``Q-6-4``, ``pair``."""

    text: str
    category: ThreeCardCategory
    ranks: tuple[int, ...]

    @property
    def strength(self) -> int:
        """Comparable with :attr:`ThreeCardHand.strength`: a hand qualifies at or above it."""
        value = CATEGORY_ORDER.index(self.category)
        for rank in self.ranks + (0,) * (3 - len(self.ranks)):
            value = value * 16 + rank
        return value

    @property
    def label(self) -> str:
        if self.category is ThreeCardCategory.PAIR:
            return "a pair or better"
        return f"{self.text} high or better"

    @staticmethod
    def parse(text: object) -> DealerQualifier:
        """Parse a qualifier.

        >>> DealerQualifier.parse("q-6-4").ranks
        (12, 6, 4)
        >>> DealerQualifier.parse("Z")
        Traceback (most recent call last):
        ...
        dealer_assist.domain.errors.RuleSetError: dealer_qualifier: "Z" is not a rank, ranks like "Q-6-4", or "pair"
        """
        message = f'dealer_qualifier: "{text}" is not a rank, ranks like "Q-6-4", or "pair"'
        if not isinstance(text, str) or not text.strip():
            raise RuleSetError(message, "dealer_qualifier")
        cleaned = text.strip().upper()
        if cleaned == "PAIR":
            return DealerQualifier("pair", ThreeCardCategory.PAIR, ())
        symbols = {r.symbol: int(r) for r in Rank} | {"T": 10}
        parts = cleaned.split("-")
        if len(parts) > 3 or any(p not in symbols for p in parts):
            raise RuleSetError(message, "dealer_qualifier")
        ranks = tuple(symbols[p] for p in parts)
        if list(ranks) != sorted(ranks, reverse=True) or len(set(ranks)) != len(ranks):
            raise RuleSetError(f"dealer_qualifier: ranks must fall, as in Q-6-4, not {text}",
                               "dealer_qualifier")
        canonical = "-".join(Rank(r).symbol for r in ranks)
        return DealerQualifier(canonical, ThreeCardCategory.HIGH_CARD, ranks)


@dataclass(frozen=True)
class RuleSet:
    """A complete, validated rule set. Build one with :func:`ruleset_from_json`."""

    pair_plus: PayTable
    ante_bonus: PayTable
    six_card_bonus: PayTable
    prime: PayTable
    dealer_qualifier: DealerQualifier
    fold_forfeits_pair_plus: bool
    fold_forfeits_prime: bool
    six_card_pays_after_fold: bool
    pair_plus_without_ante: bool
    limits: Mapping[str, BetLimit] = field(default_factory=dict)
    max_payout: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON form: every key present, defaults included."""
        return {
            "pair_plus": dict(self.pair_plus),
            "ante_bonus": dict(self.ante_bonus),
            "six_card_bonus": dict(self.six_card_bonus),
            "prime": dict(self.prime),
            "dealer_qualifier": self.dealer_qualifier.text,
            "fold_forfeits_pair_plus": self.fold_forfeits_pair_plus,
            "fold_forfeits_prime": self.fold_forfeits_prime,
            "six_card_pays_after_fold": self.six_card_pays_after_fold,
            "pair_plus_without_ante": self.pair_plus_without_ante,
            "limits": {
                bet: {"min": lim.minimum, "max": lim.maximum}
                for bet, lim in sorted(self.limits.items())
            },
            "max_payout": self.max_payout,
        }

    def canonical_json(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON: two rule sets settle alike exactly when it matches."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()

    def __hash__(self) -> int:
        return hash(self.content_hash)

    def pays_label(self, bet: str) -> str:
        """A pay table named by its pays, as casinos name them: ``40-30-6-4-1``."""
        table, hands = {
            "pair_plus": (self.pair_plus, PAIR_PLUS_HANDS),
            "ante_bonus": (self.ante_bonus, ANTE_BONUS_HANDS),
            "six_card_bonus": (self.six_card_bonus, SIX_CARD_HANDS),
            "prime": (self.prime, PRIME_KEYS),
        }[bet]
        if not table:
            return "none"
        label = "-".join(str(table[h]) for h in hands if h in table)
        if MINI_ROYAL in table:
            label += f" (mini royal {table[MINI_ROYAL]})"
        return label


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _pay_table(
    raw: object, name: str, hands: tuple[str, ...], extra: tuple[str, ...] = ()
) -> dict[str, int]:
    if raw is None:
        return {}
    if isinstance(raw, str):
        parts = [p.strip() for p in raw.split("-")] if raw.strip().lower() != "none" else []
        # ASCII digits only ("²".isdigit() is true) and short enough to stay within MAX_PAYS.
        if len(parts) > len(hands) or not all(
                p.isascii() and p.isdigit() and len(p) <= 6 for p in parts):
            raise RuleSetError(
                f'{name}: "{shown(raw)[1:-1]}" is not a pays list like '
                f'"{"-".join(str(DEFAULT_JSON.get(name, {}).get(h, 1)) for h in hands)}"',
                name,
            )
        raw = {hand: int(p) for hand, p in zip(hands, parts, strict=False)}
    if not isinstance(raw, Mapping):
        raise RuleSetError(f"{name}: must be an object of hand: pays, or a pays list", name)
    table: dict[str, int] = {}
    allowed = hands + extra
    for key, value in raw.items():
        if key not in allowed:
            raise RuleSetError(
                f"{name}.{key}: unknown hand (one of {', '.join(allowed)})", f"{name}.{key}"
            )
        if not _is_whole(value) or not 0 <= value <= MAX_PAYS:
            raise RuleSetError(
                f"{name}.{key}: pays must be a whole number to 1, from 0 to {MAX_PAYS}, "
                f"not {shown(value)}",
                f"{name}.{key}",
            )
        table[key] = value
    # Keep the rules' order so the canonical form and labels read best-first.
    return {h: table[h] for h in allowed if h in table}


def _limits(raw: object) -> dict[str, BetLimit]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise RuleSetError("limits: must be an object of bet: {min, max}", "limits")
    limits: dict[str, BetLimit] = {}
    for bet, spec in raw.items():
        where = f"limits.{bet}"
        if bet not in STAKED_BETS:
            raise RuleSetError(f"{where}: unknown bet (one of {', '.join(STAKED_BETS)})", where)
        if not isinstance(spec, Mapping) or set(spec) - {"min", "max"}:
            raise RuleSetError(f"{where}: must be an object with min and/or max", where)
        low, high = spec.get("min", 0), spec.get("max")
        if not _is_whole(low) or low < 0:
            raise RuleSetError(f"{where}.min: must be a whole number of cents, 0 or more", where)
        if high is not None and (not _is_whole(high) or high < max(low, 1)):
            raise RuleSetError(f"{where}.max: must be a whole number of cents, at least min", where)
        limits[bet] = BetLimit(low, high)
    return limits


def ruleset_from_json(data: Mapping[str, Any] | None = None) -> RuleSet:
    """Validate a rule set's JSON (any key may be omitted) and fill in the defaults."""
    data = {} if data is None else data
    if not isinstance(data, Mapping):
        raise RuleSetError("a rule set must be a JSON object")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise RuleSetError(
            f"{unknown[0]}: unknown rule set key (known: {', '.join(sorted(_TOP_KEYS))})",
            unknown[0],
        )
    merged = {**DEFAULT_JSON, **data}
    for option in OPTIONS:
        if not isinstance(merged[option], bool):
            raise RuleSetError(f"{option}: must be true or false", option)
    cap = merged["max_payout"]
    if cap is not None and (not _is_whole(cap) or cap <= 0):
        raise RuleSetError("max_payout: must be a whole number of cents above 0, or null",
                           "max_payout")
    prime = _pay_table(merged["prime"], "prime", PRIME_KEYS)
    if prime and set(prime) != set(PRIME_KEYS):
        raise RuleSetError("prime: give both three_same_color and six_same_color", "prime")
    return RuleSet(
        pair_plus=MappingProxyType(
            _pay_table(merged["pair_plus"], "pair_plus", PAIR_PLUS_HANDS, (MINI_ROYAL,))
        ),
        ante_bonus=MappingProxyType(
            _pay_table(merged["ante_bonus"], "ante_bonus", ANTE_BONUS_HANDS, (MINI_ROYAL,))
        ),
        six_card_bonus=MappingProxyType(
            _pay_table(merged["six_card_bonus"], "six_card_bonus", SIX_CARD_HANDS)
        ),
        prime=MappingProxyType(prime),
        dealer_qualifier=DealerQualifier.parse(merged["dealer_qualifier"]),
        fold_forfeits_pair_plus=merged["fold_forfeits_pair_plus"],
        fold_forfeits_prime=merged["fold_forfeits_prime"],
        six_card_pays_after_fold=merged["six_card_pays_after_fold"],
        pair_plus_without_ante=merged["pair_plus_without_ante"],
        limits=MappingProxyType(_limits(merged["limits"])),
        max_payout=cap,
    )


def ruleset_from_text(text: str) -> RuleSet:
    """Parse a rule set from JSON text, with a clear error for text that is not JSON."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RuleSetError(f"rule set is not valid JSON: {exc.msg} at line {exc.lineno}") from exc
    except RecursionError as exc:
        raise RuleSetError("rule set is not valid JSON: nested too deeply") from exc
    except ValueError as exc:  # an integer past Python's digit limit
        raise RuleSetError(f"rule set is not valid JSON: {exc}") from exc
    return ruleset_from_json(data)


DEFAULT_RULES: RuleSet = ruleset_from_json()

#: The published pay tables, keyed by their pays. Each is a fragment of a rule set's JSON.
PRESETS: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "ante_bonus 5-4-1": {"ante_bonus": "5-4-1"},
    "ante_bonus 5-3-1": {"ante_bonus": "5-3-1"},
    "ante_bonus 4-3-1": {"ante_bonus": "4-3-1"},
    "ante_bonus none": {"ante_bonus": {}},
    "pair_plus 40-30-6-4-1": {"pair_plus": "40-30-6-4-1"},
    "pair_plus 40-25-6-4-1": {"pair_plus": "40-25-6-4-1"},
    "pair_plus 35-25-6-4-1": {"pair_plus": "35-25-6-4-1"},
    "pair_plus 40-30-6-3-1": {"pair_plus": "40-30-6-3-1"},
    "pair_plus 40-30-5-4-1": {"pair_plus": "40-30-5-4-1"},
    "pair_plus 40-30-5-4-1 mini royal 50": {
        "pair_plus": {"mini_royal": 50, "straight_flush": 40, "three_of_a_kind": 30,
                      "straight": 5, "flush": 4, "pair": 1}},
    "pair_plus 40-30-5-4-1 mini royal 100": {
        "pair_plus": {"mini_royal": 100, "straight_flush": 40, "three_of_a_kind": 30,
                      "straight": 5, "flush": 4, "pair": 1}},
    "six_card 1000-200-50-25-20-10-5": {"six_card_bonus": "1000-200-50-25-20-10-5"},
    "six_card 1000-200-100-20-15-10-7": {"six_card_bonus": "1000-200-100-20-15-10-7"},
    "prime 3-4": {"prime": "3-4"},
})


def ruleset_from_presets(*names: str, **overrides: Any) -> RuleSet:
    """Combine presets (later ones win) and option overrides into a rule set.

    >>> ruleset_from_presets("ante_bonus 4-3-1").ante_bonus["three_of_a_kind"]
    3
    >>> ruleset_from_presets("pair_plus 1-2-3")
    Traceback (most recent call last):
    ...
    dealer_assist.domain.errors.RuleSetError: unknown preset "pair_plus 1-2-3"
    """
    data: dict[str, Any] = {}
    for name in names:
        if name not in PRESETS:
            raise RuleSetError(f'unknown preset "{name}"')
        data.update(PRESETS[name])
    data.update(overrides)
    return ruleset_from_json(data)


__all__ = [
    "DEFAULT_RULES",
    "PRESETS",
    "BetLimit",
    "DealerQualifier",
    "RuleSet",
    "ruleset_from_json",
    "ruleset_from_presets",
    "ruleset_from_text",
]

# The three-card categories a pays string covers, checked once so a reorder is caught.
assert tuple(c.value for c in reversed(CATEGORY_ORDER[1:])) == PAIR_PLUS_HANDS
assert all(h in {c.value for c in FiveCardCategory} for h in SIX_CARD_HANDS)
