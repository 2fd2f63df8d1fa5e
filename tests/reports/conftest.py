"""Report fixtures: a floor filled through the real services (the store's own fixtures:
SQLite, and PostgreSQL too when ``DATABASE_URL_POSTGRES`` is set), and totals computed
independently from the database rows with plain SQL."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from dealer_assist import services
from dealer_assist.domain.rulesets import DEFAULT_RULES
from dealer_assist.services.simulate import simulated_round
from tests.integration import conftest as store_fixtures
from tests.integration.conftest import Floor

# The store engineer's fixtures, reused: SQLite, and PostgreSQL with DATABASE_URL_POSTGRES.
_fast_password_hashing = store_fixtures._fast_password_hashing
db_url = store_fixtures.db_url
engine = store_fixtures.engine
session = store_fixtures.session
floor = store_fixtures.floor

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "reports"

#: "every bet at once" (RULES.md §6): a royal six card bonus, far over the large-win mark.
BIG_ROUND: dict[str, Any] = {
    "dealer": ["KH", "AH", "2C"],
    "seats": [{"seat": 2, "cards": ["10H", "JH", "QH"], "ante": 1000, "play": True,
               "pair_plus": 500, "six_card": 500, "prime": 500},
              {"seat": 5, "cards": ["3S", "4D", "9C"], "ante": 2500, "play": False,
               "pair_plus": 1000}],
}


@dataclass
class Built:
    floor: Floor
    shift_id: int
    empty_shift_id: int
    voided: int
    corrected: int
    replacement: int
    declared_misdeal: int
    logged_misdeal: int
    big: int
    round_ids: list[int] = field(default_factory=list)


def expected_totals(engine: sa.Engine, shift_id: int) -> dict[str, Any]:
    """The shift's figures from the raw rows: what the report must print."""
    with engine.connect() as conn:
        rounds = conn.execute(sa.text(
            "SELECT id, misdeal FROM rounds WHERE shift_id = :s"), {"s": shift_id}).all()
        kinds = {r: k for r, k in conn.execute(sa.text(
            "SELECT round_id, kind FROM round_events ORDER BY id DESC"))}
        seats = conn.execute(sa.text(
            "SELECT s.* FROM seat_entries s JOIN rounds r ON r.id = s.round_id "
            "WHERE r.shift_id = :s"), {"s": shift_id}).mappings().all()
    counted = {r for r, misdeal in rounds if not misdeal and r not in kinds}
    bets: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for s in seats:
        if s["round_id"] not in counted:
            continue
        parts = {"ante_play": (s["ante"], s["ante"] * (2 if s["play"] else 1),
                               [s["net_ante"], s["net_play"], s["net_ante_bonus"]]),
                 "pair_plus": (s["pair_plus"], s["pair_plus"], [s["net_pair_plus"]]),
                 "six_card": (s["six_card"], s["six_card"], [s["net_six_card"]]),
                 "prime": (s["prime"], s["prime"], [s["net_prime"]])}
        for bet, (stake, handle, nets) in parts.items():
            if stake:
                b = bets[bet]
                b["bets"] += 1
                b["handle"] += handle
                b["paid"] += sum(n for n in nets if n > 0)
                b["collected"] += -sum(n for n in nets if n < 0)
    for b in bets.values():
        b["win"] = b["collected"] - b["paid"]
    total = {k: sum(b[k] for b in bets.values()) for k in ("bets", "handle", "paid",
                                                          "collected", "win")}
    statuses = defaultdict(int)
    for r, misdeal in rounds:
        kind = kinds.get(r)
        statuses[{"void": "voided", "correction": "corrected", "misdeal": "misdeals",
                  None: "misdeals" if misdeal else "settled"}[kind]] += 1
    return {"bets": {k: dict(v) for k, v in bets.items()}, "total": total,
            "counts": dict(statuses), "rounds": len(rounds)}


def build_floor(floor: Floor, rounds: int = 36) -> Built:
    s = floor.session()
    services.update_settings(s, name="Grand Test Casino", time_zone="America/New_York")
    rng = random.Random(7)
    ids: list[int] = []
    for i in range(rounds):
        logged = services.log_round(s, table="T1", round_json=simulated_round(rng, 7,
                                                                             DEFAULT_RULES),
                                    user="dan" if i % 4 else "sue")
        ids.append(logged.round_id)
    big = services.log_round(s, table="T1", round_json=BIG_ROUND, user="dan").round_id
    misdeal = services.log_round(s, table="T1", user="dan", round_json={
        "dealer": ["2C", "3C"], "seats": [{"seat": 1, "cards": ["4C", "5C", "6C"],
                                           "ante": 1000}],
        "misdeal": True, "misdeal_reason": "card exposed during the deal"}).round_id
    services.void_round(s, ids[3], user="sue", reason="logged at the wrong table")
    services.void_round(s, ids[5], user="sue", reason="dealer flashed a card", kind="misdeal")
    fixed = {"dealer": ["QH", "8C", "3D"], "seats": [
        {"seat": 1, "cards": ["KS", "7H", "2C"], "ante": 1000, "play": True, "pair_plus": 500}]}
    replacement = services.correct_round(s, ids[7], round_json=fixed, user="sue",
                                         reason="seat 1 cards keyed wrong").round_id
    services.record_chips(s, table="T1", user="sue", kind="fill", chips={10000: 100})
    services.record_chips(s, table="T1", user="sue", kind="fill", chips={2500: 20})
    services.record_chips(s, table="T1", user="sue", kind="credit", chips={500: 10})
    shift = services.current_shift(s, "T1")
    assert shift is not None
    shift_id = shift.id
    win = expected_totals(floor.engine, shift_id)["total"]["win"]
    value = 150_000 + 1_000_000 + 50_000 - 5_000 + win
    assert value > 0
    closing = {10000: value // 10000, 500: (value % 10000) // 500, 1: value % 500}
    services.close_shift(s, table="T1", user="sue", closing_inventory=closing)
    services.create_table(s, "T2", 6)
    services.open_shift(s, table="T2", user="sue", opening_inventory={2500: 80},
                        dealers=["dan"])
    empty = services.close_shift(s, table="T2", user="sue", closing_inventory={2500: 80})
    s.close()
    return Built(floor, shift_id, empty.id, ids[3], ids[7], replacement, ids[5], misdeal, big,
                 ids)


@pytest.fixture
def built(floor: Floor) -> Built:
    return build_floor(floor)
