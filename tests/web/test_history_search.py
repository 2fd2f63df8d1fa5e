"""The hand-history search against a brute-force filter, on both engines, with every plan
exercised: the rare-match lists (pay-out, voids, corrections, misdeals), the candidate
checks (a card, a bet, a seat, settled) with a short SCAN so pages stop and continue, and
the shift path. Every page is followed to the end: the ids found are exactly the matches,
newest first, none twice."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from dealer_assist.services import history
from dealer_assist.services.history import HistoryQuery, search

from .conftest import Floor


def _pay(seat: dict[str, Any]) -> int:
    return sum(v for v in seat["net"].values() if v > 0)


def _matches(rec: dict[str, Any], q: HistoryQuery) -> bool:
    if q.table is not None and rec["table"] != q.table:
        return False
    if q.shift_id is not None and rec["shift_id"] != q.shift_id:
        return False
    kinds = {e["kind"] for e in rec["events"]}
    status = {"settled": not kinds and not rec["misdeal"], "voided": "void" in kinds,
              "corrected": "correction" in kinds,
              "misdeal": rec["misdeal"] or "misdeal" in kinds}
    if q.status is not None and not status[q.status]:
        return False

    def seat_ok(seat: dict[str, Any]) -> bool:
        if q.seat is not None and seat["seat"] != q.seat:
            return False
        if q.bet is not None and not (seat["play"] if q.bet == "play" else seat[q.bet] > 0):
            return False
        if q.min_payout is not None and _pay(seat) < q.min_payout:
            return False
        return not (q.card is not None and q.seat is not None and q.card not in seat["cards"])

    seat_filter = (q.seat, q.bet, q.min_payout) != (None, None, None)
    if seat_filter and not any(seat_ok(s) for s in rec["seats"]):
        return False
    anywhere = [*rec["dealer_cards"], *(c for s in rec["seats"] for c in s["cards"])]
    return q.card is None or q.seat is not None or q.card in anywhere


def _all_pages(session: Any, q: HistoryQuery) -> list[int]:
    out: list[int] = []
    before: tuple[datetime, int] | None = None
    for _ in range(500):
        page = search(session, HistoryQuery(**{**q.__dict__, "before": before}))
        out.extend(r.round_id for r in page.rows)
        if page.next_before is None:
            return out
        before = page.next_before
    raise AssertionError("the pages never ended")


@pytest.fixture
def log(floor: Floor) -> Any:
    from dealer_assist import services
    from dealer_assist.store import db

    engine = db.make_engine(floor.url)
    session = db.session_factory(engine)()
    services.simulate(session, table="TCP-1", rounds=45, seed=3, user="sam")
    services.close_shift(session, table="TCP-1", user="sam")
    services.simulate(session, table="TCP-1", rounds=30, seed=4, user="sam")
    services.simulate(session, table="TCP-2", rounds=25, seed=5, user="sam")
    ids = [r.round_id for r in services.list_rounds(session, limit=500)]
    for rid in ids[5:40:9]:
        services.void_round(session, rid, user="sam", reason="test void")
    for rid in ids[7:60:11]:
        services.void_round(session, rid, user="sam", reason="cards exposed", kind="misdeal")
    target = services.get_round(session, ids[3]).to_json()
    entry = {"dealer": target["dealer_cards"],
             "seats": [{k: s[k] for k in ("seat", "cards", "ante", "play", "pair_plus",
                                          "six_card", "prime")} for s in target["seats"]]}
    entry["seats"][0]["ante"] = entry["seats"][0]["ante"] or 500
    services.correct_round(session, ids[3], round_json=entry, user="sam", reason="stake")
    records = [services.get_round(session, r.round_id).to_json()
               for r in services.list_rounds(session, limit=500)]
    yield session, records
    session.close()
    engine.dispose()


QUERIES = [
    HistoryQuery(),
    HistoryQuery(table="TCP-2"),
    HistoryQuery(seat=7),
    HistoryQuery(card="AS"),
    HistoryQuery(table="TCP-1", seat=3, card="QH"),
    HistoryQuery(bet="six_card"),
    HistoryQuery(bet="play", seat=2),
    HistoryQuery(min_payout=5_000),
    HistoryQuery(min_payout=20_000, table="TCP-1"),
    HistoryQuery(status="voided"),
    HistoryQuery(status="corrected"),
    HistoryQuery(status="misdeal"),
    HistoryQuery(status="settled", table="TCP-1"),
    HistoryQuery(status="voided", table="TCP-2"),
    HistoryQuery(seat=1, bet="pair_plus", min_payout=1_000, status="settled", card="KD"),
    HistoryQuery(bet="prime", seat=2, min_payout=100),
]


def test_search_finds_exactly_the_matches(log: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    session, records = log
    _check(session, records, False)
    # A short scan and a low probe: pages stop early and continue; rare lists cut in.
    monkeypatch.setattr(history, "SCAN", 17)
    monkeypatch.setattr(history, "PROBE", 4)
    _check(session, records, True)


def _check(session: Any, records: list[dict[str, Any]], small: bool) -> None:
    shifts = sorted({r["shift_id"] for r in records if r["table"] == "TCP-1"})
    queries = [*QUERIES, HistoryQuery(shift_id=shifts[0]),
               HistoryQuery(shift_id=shifts[-1], bet="pair_plus", seat=1),
               HistoryQuery(shift_id=shifts[0], status="voided")]
    newest_first = sorted(records, key=lambda r: (r["at"], r["round_id"]), reverse=True)
    for q in queries:
        for limit in (7, 50):
            q = HistoryQuery(**{**q.__dict__, "limit": limit})
            expected = [r["round_id"] for r in newest_first if _matches(r, q)]
            found = _all_pages(session, q)
            assert found == expected, (q, small)
