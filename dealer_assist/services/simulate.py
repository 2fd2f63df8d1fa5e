"""Realistic simulated play, logged through :func:`log_round` like any terminal's rounds.

Seats fill like a live game (most seats taken, some empty), antes come from common chip
amounts, about half the players add pair plus and fewer the six card and prime bets, and
players mostly follow the Q-6-4 strategy (a few play hunches). Seeded, so reproducible.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import orm

from dealer_assist.domain.cards import DECK, Card
from dealer_assist.domain.rulesets import DealerQualifier, RuleSet
from dealer_assist.domain.three_card import rank_hand

from ._base import read, version_rules
from .admin import create_table, create_user, get_table
from .errors import NotFound
from .rounds import log_round
from .shifts import current_shift, open_shift

#: The simulator's own account (cannot log in: it has no password).
SIMULATOR = "simulator"
ANTES = (500, 1000, 1000, 2500, 2500, 5000, 10000)
_Q64 = DealerQualifier.parse("Q-6-4").strength


@dataclass(frozen=True)
class SimulationResult:
    rounds: int
    first_serial: int
    last_serial: int
    players_net: int
    seconds: float


def _stake(amount: int, rules: RuleSet, bet: str) -> int:
    limit = rules.limits.get(bet)
    if limit is None:
        return amount
    amount = max(amount, limit.minimum)
    if limit.maximum is not None:
        amount = min(amount, limit.maximum)
    return amount


def follows_q64(cards: tuple[Card, ...]) -> bool:
    """Play queen-six-four or better."""
    return rank_hand(cards).strength >= _Q64


def simulated_round(rng: random.Random, seats: int, rules: RuleSet) -> dict[str, Any]:
    """One round's JSON: occupied seats, their bets and decisions, and the dealt cards."""
    deck = list(DECK)
    rng.shuffle(deck)
    occupied = [n for n in range(1, seats + 1) if rng.random() < 0.75] or [rng.randint(1, seats)]
    dealer = deck[:3]
    round_seats = []
    for i, number in enumerate(occupied):
        cards = tuple(deck[3 + 3 * i: 6 + 3 * i])
        ante = _stake(rng.choice(ANTES), rules, "ante")
        seat: dict[str, Any] = {"seat": number, "cards": [str(c) for c in cards], "ante": ante}
        if rules.pair_plus and rng.random() < 0.55:
            seat["pair_plus"] = _stake(rng.choice((500, 1000, ante)), rules, "pair_plus")
        if rules.six_card_bonus and rng.random() < 0.25:
            seat["six_card"] = _stake(rng.choice((500, 1000)), rules, "six_card")
        if rules.prime and rng.random() < 0.12:
            seat["prime"] = _stake(rng.choice((500, 1000)), rules, "prime")
        strategy = follows_q64(cards)
        seat["play"] = strategy if rng.random() < 0.92 else rng.random() < 0.5
        round_seats.append(seat)
    data: dict[str, Any] = {"dealer": [str(c) for c in dealer], "seats": round_seats}
    if rng.random() < 0.002:
        data["misdeal"] = True
        data["misdeal_reason"] = "card exposed during the deal"
    return data


def _simulator(session: orm.Session) -> str:
    from ._base import find_user

    with read(session):
        try:
            find_user(session, SIMULATOR)
            return SIMULATOR
        except NotFound:
            pass
    create_user(session, SIMULATOR, ["dealer", "supervisor"], None)
    return SIMULATOR


def simulate(session: orm.Session, *, table: str, rounds: int, seed: int | None = None,
             user: str | None = None, create: bool = True,
             progress: Callable[[int], None] | None = None) -> SimulationResult:
    """Log ``rounds`` simulated rounds at ``table`` through :func:`log_round`.

    Creates the table (7 seats, default rules) if ``create`` and it is missing, and opens a
    shift if none is open. ``user`` defaults to the built-in simulator account.
    """
    started = time.perf_counter()
    rng = random.Random(seed)
    who = user or _simulator(session)
    try:
        tbl = get_table(session, table)
    except NotFound:
        if not create:
            raise
        tbl = create_table(session, table, 7)
    if current_shift(session, table) is None:
        open_shift(session, table=table, user=who,
                   opening_inventory={100: 200, 500: 400, 2500: 200, 10000: 50})
    rules = version_rules(tbl.ruleset_version)
    first = last = 0
    net = 0
    for i in range(rounds):
        logged = log_round(session, table=table, round_json=simulated_round(rng, tbl.seats, rules),
                           user=who, source="simulated")
        first = first or logged.serial
        last = logged.serial
        net += int(logged.settlement_json["total"])
        if progress is not None:
            progress(i + 1)
    return SimulationResult(rounds, first, last, net, time.perf_counter() - started)


__all__ = ["SIMULATOR", "SimulationResult", "follows_q64", "simulate", "simulated_round"]
