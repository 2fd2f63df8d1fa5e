"""Logging rounds: complete or nothing, idempotent, consecutive serials under concurrency."""

from __future__ import annotations

import multiprocessing
import threading
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist import services
from dealer_assist.domain.errors import DomainError
from dealer_assist.domain.settle_json import settle_json
from dealer_assist.services import Conflict, Forbidden, NotFound, StoreUnavailable
from dealer_assist.store import audit, db
from dealer_assist.store.models import AuditEvent, Round, SeatEntry

from ._terminal import process_terminal
from .conftest import ROUND, Floor, round_json


def counts(session: orm.Session) -> tuple[int, int, int]:
    return (session.scalar(sa.select(sa.func.count()).select_from(Round)) or 0,
            session.scalar(sa.select(sa.func.count()).select_from(SeatEntry)) or 0,
            session.scalar(sa.select(sa.func.count()).select_from(AuditEvent)) or 0)


def test_log_round_settles_through_the_domain_and_stores_everything(
        floor: Floor, session: orm.Session) -> None:
    logged = services.log_round(session, table="T1", round_json=ROUND, user="dan")
    assert (logged.serial, logged.replayed, logged.table) == (1, False, "T1")
    expected = settle_json(ROUND)
    assert logged.settlement_json == expected
    detail = services.get_round(session, logged.round_id)
    assert detail.stored_matches and detail.status == "settled"
    assert detail.round.total == expected["total"]
    assert [s.net for s in detail.seats] == [s["net"] for s in expected["seats"]]
    assert [s.cards for s in detail.seats] == ["KS 7H 2C", "5C 5D 9H", "10H JH QS"]
    assert detail.entered_by == "dan"
    assert [a.action for a in detail.audit] == ["round.logged"]
    assert detail.audit[0].hash == logged.audit_hash
    summary = services.list_rounds(session, table="T1")
    assert [(r.serial, r.seats, r.status) for r in summary] == [(1, 3, "settled")]
    assert services.list_rounds(session, seat=5)[0].round_id == logged.round_id
    assert services.list_rounds(session, seat=7) == []


def test_same_idempotency_key_returns_the_first_result_and_writes_nothing(
        floor: Floor, session: orm.Session) -> None:
    first = services.log_round(session, table="T1", round_json=ROUND, user="dan",
                               idempotency_key="tablet-7:abc")
    before = counts(session)
    again = services.log_round(session, table="T1", round_json=ROUND, user="dan",
                               idempotency_key="tablet-7:abc")
    assert again.replayed and (again.round_id, again.serial) == (first.round_id, first.serial)
    assert again.settlement_json == first.settlement_json
    assert counts(session) == before
    with pytest.raises(Conflict, match="already used for a different round"):
        services.log_round(session, table="T1", round_json=round_json(3), user="dan",
                           idempotency_key="tablet-7:abc")
    assert counts(session) == before


def test_a_bad_round_raises_the_domain_error_and_writes_nothing(
        floor: Floor, session: orm.Session) -> None:
    before = counts(session)
    bad = {"dealer": ["QS", "7H", "2C"], "seats": [{"seat": 3, "cards": ["QS", "KD", "3C"],
                                                     "ante": 1000, "play": True}]}
    with pytest.raises(DomainError, match="seat 3: QS is already the dealer's card"):
        services.log_round(session, table="T1", round_json=bad, user="dan")
    with pytest.raises(DomainError, match="not at this table"):
        services.log_round(session, table="T1", user="dan", round_json={
            "dealer": ["QS", "7H", "2C"],
            "seats": [{"seat": 8, "cards": ["AS", "KD", "3C"], "ante": 1000}]})
    assert counts(session) == before


def test_who_where_and_when_are_checked(floor: Floor, session: orm.Session) -> None:
    with pytest.raises(Forbidden, match="needs the role dealer or supervisor"):
        services.log_round(session, table="T1", round_json=ROUND, user="abe")
    with pytest.raises(NotFound):
        services.log_round(session, table="T9", round_json=ROUND, user="dan")
    with pytest.raises(NotFound):
        services.log_round(session, table="T1", round_json=ROUND, user="nobody")
    services.close_shift(session, table="T1", user="sue", closing_inventory={500: 90})
    with pytest.raises(Conflict, match="no open shift"):
        services.log_round(session, table="T1", round_json=ROUND, user="dan")


def test_a_failure_mid_write_leaves_nothing_and_no_gap(
        floor: Floor, session: orm.Session, monkeypatch: pytest.MonkeyPatch) -> None:
    before = counts(session)
    real = audit.append_event

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("power cut between the seats and the audit event")

    from dealer_assist.services import rounds

    monkeypatch.setattr(rounds, "append_event", crash)
    with pytest.raises(RuntimeError):
        services.log_round(session, table="T1", round_json=ROUND, user="dan")
    assert counts(session) == before
    monkeypatch.setattr(rounds, "append_event", real)
    assert services.log_round(session, table="T1", round_json=ROUND, user="dan").serial == 1
    assert services.verify_log(session).ok


def _serials(floor: Floor) -> list[int]:
    with floor.session() as s:
        return list(s.scalars(sa.select(Round.serial).order_by(Round.serial)))


def test_concurrent_terminals_in_threads_get_consecutive_serials(floor: Floor) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def terminal(n: int) -> None:
        try:
            with floor.session() as s:
                start.wait()
                for i in range(6):
                    services.log_round(s, table="T1", round_json=round_json(n * 10 + i),
                                       user="dan", idempotency_key=f"t{n}-{i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=terminal, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _serials(floor) == list(range(1, 49))
    with floor.session() as s:
        result = services.verify_log(s)
    assert result.ok, result.summary()


def test_concurrent_terminals_in_processes_get_consecutive_serials(floor: Floor) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=process_terminal, args=(floor.url, n, 12)) for n in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    assert _serials(floor) == list(range(1, 37))


def test_an_unreachable_database_is_a_clear_error(tmp_path: Any) -> None:
    engine = db.make_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    with db.session_factory(engine)() as s, pytest.raises(StoreUnavailable,
                                                          match="cannot be reached"):
        services.log_round(s, table="T1", round_json=ROUND, user="dan")
    engine.dispose()


def test_a_locked_sqlite_database_is_a_clear_error_and_nothing_partial(tmp_path: Any) -> None:
    url = db.default_sqlite_url(tmp_path)
    engine = db.make_engine(url, sqlite_busy_timeout=0.3)
    db.upgrade(engine)
    with db.session_factory(engine)() as s:
        services.create_user(s, "sue", ["supervisor"], "super-pass")
        services.create_table(s, "T1", 7)
        services.open_shift(s, table="T1", user="sue")
    import sqlite3

    holder = sqlite3.connect(str(tmp_path / db.SQLITE_FILE), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with db.session_factory(engine)() as s, pytest.raises(StoreUnavailable,
                                                              match="locked"):
            services.log_round(s, table="T1", round_json=ROUND, user="sue")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with db.session_factory(engine)() as s:
        assert counts(s)[0] == 0
        assert services.log_round(s, table="T1", round_json=ROUND, user="sue").serial == 1
    engine.dispose()
