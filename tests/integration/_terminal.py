"""A terminal in its own process (kept apart from the tests: spawned children import little)."""

from __future__ import annotations

from typing import Any


def round_json(i: int) -> dict[str, Any]:
    from dealer_assist.domain.cards import DECK

    cards = [str(DECK[(i * 7 + k) % 52]) for k in range(6)]
    return {"dealer": cards[:3],
            "seats": [{"seat": 1 + i % 7, "cards": cards[3:], "ante": 1000, "play": True}]}


def process_terminal(url: str, n: int, rounds: int) -> None:
    """Log ``rounds`` rounds at table T1 as dealer dan, waiting at a shared start."""
    from dealer_assist import services
    from dealer_assist.store import db

    engine = db.make_engine(url)
    with db.session_factory(engine)() as s:
        for i in range(rounds):
            services.log_round(s, table="T1", round_json=round_json(n * 100 + i), user="dan")
    engine.dispose()
