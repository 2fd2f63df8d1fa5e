"""Append-only triggers, the hash chain, and verify-log catching an attacker with DB access."""

from __future__ import annotations

import itertools
import json

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from click.testing import CliRunner
from sqlalchemy import exc as sa_exc
from sqlalchemy import orm

from dealer_assist import services
from dealer_assist.cli import main
from dealer_assist.store import db
from dealer_assist.store.audit import canonical_event, canonical_json
from dealer_assist.store.models import APPEND_ONLY_TABLES, AuditEvent, Base

from .conftest import Floor, round_json, tamper


def test_migrations_and_models_agree(engine: sa.Engine) -> None:
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []
    assert db.current_revision(engine) == db.head_revision()


def test_canonical_event_is_canonical_json() -> None:
    from datetime import UTC, datetime

    payload = canonical_json({"b": "é\"\n", "a": [1, None, True]})
    text = canonical_event(chain="table:1", seq=3, at=datetime(2024, 1, 2, tzinfo=UTC),
                           actor="Zoë", action="round.logged", table_id=1, shift_id=None,
                           round_id=9, digest="ab" * 32, payload=payload)
    assert text == canonical_json(json.loads(text))


def _populate(floor: Floor, session: orm.Session, n: int = 6) -> list[int]:
    ids = [services.log_round(session, table="T1", round_json=round_json(i), user="dan").round_id
           for i in range(n)]
    services.void_round(session, ids[1], user="sue", reason="dealer pushed the wrong stack")
    services.correct_round(session, ids[2], round_json=round_json(40), user="sue",
                           reason="seat 2 folded, not played")
    services.record_chips(session, table="T1", user="sue", kind="fill", chips={2500: 20})
    return ids


@pytest.mark.parametrize("table", APPEND_ONLY_TABLES)
def test_triggers_refuse_update_and_delete(floor: Floor, session: orm.Session,
                                           table: str) -> None:
    _populate(floor, session, 3)
    for statement in (f"UPDATE {table} SET id = id" if table != "seat_entries"
                      else "UPDATE seat_entries SET ante = ante + 1",
                      f"DELETE FROM {table}"):
        with floor.engine.connect() as conn, pytest.raises(sa_exc.DBAPIError,
                                                           match="append-only"):
            conn.exec_driver_sql(statement)
    if floor.engine.dialect.name == "postgresql":
        with floor.engine.connect() as conn, pytest.raises(sa_exc.DBAPIError,
                                                           match="append-only"):
            conn.exec_driver_sql(f"TRUNCATE {table} CASCADE")
    assert services.verify_log(session).ok


def test_the_chain_covers_logins_shifts_admin_rounds_voids_corrections(
        floor: Floor, session: orm.Session) -> None:
    assert services.authenticate(session, "sue", "super-pass") is not None
    assert services.authenticate(session, "sue", "wrong-pass") is None
    token = services.create_token(session, "dan", label="tablet 7")
    assert services.user_for_token(session, token).name == "dan"  # type: ignore[union-attr]
    assert services.user_for_token(session, token + "x") is None
    services.update_table(session, "T1", rules_json={"pair_plus": "40-30-5-4-1"})
    _populate(floor, session, 4)
    services.close_shift(session, table="T1", user="sue", closing_inventory={500: 95})
    actions = set(session.scalars(sa.select(AuditEvent.action)))
    assert {"user.created", "user.login", "user.login_failed", "token.created",
            "table.created", "table.changed", "ruleset.added", "shift.opened", "shift.fill",
            "shift.closed", "round.logged", "round.voided", "round.corrected"} <= actions
    result = services.verify_log(session)
    assert result.ok, result.summary()
    assert result.rounds == 5 and set(result.chains) == {"floor", "table:1"}
    rows = session.execute(sa.select(AuditEvent.chain, AuditEvent.seq, AuditEvent.prev_hash,
                                     AuditEvent.hash).order_by(AuditEvent.chain,
                                                               AuditEvent.seq)).all()
    for before, after in itertools.pairwise(rows):
        if before.chain == after.chain:
            assert after.prev_hash == before.hash and after.seq == before.seq + 1


def test_voids_and_corrections_append_and_keep_the_original(
        floor: Floor, session: orm.Session) -> None:
    ids = _populate(floor, session, 4)
    voided = services.get_round(session, ids[1])
    assert voided.status == "voided" and voided.events[0].actor.name == "sue"
    corrected = services.get_round(session, ids[2])
    assert corrected.status == "corrected" and corrected.replaced_by_round_id is not None
    replacement = services.get_round(session, corrected.replaced_by_round_id)
    assert replacement.replaces_round_id == ids[2] and replacement.round.serial == 5
    assert replacement.round.seats[0].cards  # the original stays readable too
    with pytest.raises(services.Conflict, match="already voided"):
        services.void_round(session, ids[1], user="sue", reason="again")
    with pytest.raises(services.Forbidden):
        services.void_round(session, ids[0], user="dan", reason="dealers cannot")
    assert [r.status for r in services.list_rounds(session, newest_first=False)] == [
        "settled", "voided", "corrected", "settled", "settled"]


def _first(floor: Floor, session: orm.Session) -> str:
    result = services.verify_log(session)
    assert not result.ok
    return result.summary()


def test_verify_detects_a_changed_net(floor: Floor, session: orm.Session) -> None:
    ids = _populate(floor, session)
    tamper(floor.engine, f"UPDATE seat_entries SET net_ante = net_ante + 1000 "
                         f"WHERE round_id = {ids[3]} AND seat = 1")
    assert _first(floor, session).startswith(
        f"FAIL: table T1 round #4 (round id {ids[3]}): seat 1 ante net is")


def test_verify_detects_a_deleted_round(floor: Floor, session: orm.Session) -> None:
    ids = _populate(floor, session)
    tamper(floor.engine, f"DELETE FROM seat_entries WHERE round_id = {ids[3]}",
           f"DELETE FROM rounds WHERE id = {ids[3]}")
    summary = _first(floor, session)
    assert f"round id {ids[3]}" in summary and "missing" in summary


def test_verify_detects_a_deleted_seat(floor: Floor, session: orm.Session) -> None:
    ids = _populate(floor, session)
    tamper(floor.engine, f"DELETE FROM seat_entries WHERE round_id = {ids[4]} AND seat = 2")
    assert f"round #5 (round id {ids[4]})" in _first(floor, session)


def test_verify_detects_swapped_rounds(floor: Floor, session: orm.Session) -> None:
    ids = _populate(floor, session)
    tamper(floor.engine,
           f"UPDATE rounds SET serial = 1000 WHERE id = {ids[3]}",
           f"UPDATE rounds SET serial = 4 WHERE id = {ids[4]}",
           f"UPDATE rounds SET serial = 5 WHERE id = {ids[3]}")
    summary = _first(floor, session)
    assert f"FAIL: table T1 round #5 (round id {ids[3]})" in summary


def test_verify_detects_swapped_audit_events(floor: Floor, session: orm.Session) -> None:
    _populate(floor, session)
    a, b = session.execute(sa.select(AuditEvent.id).where(AuditEvent.chain == "table:1")
                           .order_by(AuditEvent.seq).offset(3).limit(2)).scalars().all()
    session.commit()  # end the read: dropping a trigger waits for every open transaction
    tamper(floor.engine,
           f"UPDATE audit_events SET seq = -1 WHERE id = {a}",
           f"UPDATE audit_events SET seq = 4 WHERE id = {b}",
           f"UPDATE audit_events SET seq = 5 WHERE id = {a}")
    summary = _first(floor, session)
    assert "FAIL: audit event table:1 #4" in summary or "FAIL: audit event table:1 #5" in summary


def test_verify_detects_an_edited_rule_set(floor: Floor, session: orm.Session) -> None:
    _populate(floor, session)
    edited = services.get_table(session, "T1").ruleset_version.rules_json.replace(
        '"pair":1', '"pair":2')
    tamper(floor.engine, "UPDATE ruleset_versions SET rules_json = '" + edited + "'")
    result = services.verify_log(session)
    assert result.summary().startswith("FAIL: rule-set version 1: its JSON no longer matches")
    # ...and the rounds it re-settles under the edited rules show the wrong payouts too.
    assert any("settles to" in p.what for p in result.problems)


def test_verify_detects_edited_and_deleted_events_and_a_cut_tail(
        floor: Floor, session: orm.Session) -> None:
    ids = _populate(floor, session)
    event = session.scalar(sa.select(AuditEvent.id).where(AuditEvent.round_id == ids[0]))
    session.commit()
    tamper(floor.engine, f"UPDATE audit_events SET actor = 'sue' WHERE id = {event}")
    assert "was edited" in _first(floor, session)
    tamper(floor.engine, f"UPDATE audit_events SET actor = 'dan' WHERE id = {event}")
    assert services.verify_log(session).ok
    tamper(floor.engine, f"DELETE FROM audit_events WHERE id = {event}")
    assert _first(floor, session).startswith(
        f"FAIL: table T1 round #1 (round id {ids[0]}): has no round.logged audit event")


def test_verify_detects_the_newest_records_cut_off(floor: Floor, session: orm.Session) -> None:
    ids = [services.log_round(session, table="T1", round_json=round_json(i), user="dan").round_id
           for i in range(4)]
    last = session.scalar(sa.select(sa.func.max(AuditEvent.id)))
    session.commit()
    tamper(floor.engine, f"DELETE FROM audit_events WHERE id = {last}",
           f"DELETE FROM seat_entries WHERE round_id = {ids[-1]}",
           f"DELETE FROM rounds WHERE id = {ids[-1]}")
    assert _first(floor, session).startswith(
        "FAIL: audit chain table:1: ends at #5 but its head row says #6")


def test_verify_log_command(floor: Floor, session: orm.Session) -> None:
    ids = _populate(floor, session)
    runner = CliRunner()
    ok = runner.invoke(main, ["verify-log", "--database-url", floor.url])
    assert ok.exit_code == 0, ok.output
    head = services.verify_log(session).head
    assert ok.output.strip() == f"OK: 7 rounds, chain head {head}"
    one = runner.invoke(main, ["verify-log", "--table", "T1", "--since", "2000-01-01",
                               "--database-url", floor.url])
    assert one.exit_code == 0 and one.output.startswith("OK: 7 rounds, chain head ")
    tamper(floor.engine, f"UPDATE seat_entries SET net_play = 0 WHERE round_id = {ids[5]} "
                         f"AND seat = 4")
    bad = runner.invoke(main, ["verify-log", "--database-url", floor.url])
    assert bad.exit_code == 1
    assert bad.output.startswith(f"FAIL: table T1 round #6 (round id {ids[5]}): seat 4 play")
    future = runner.invoke(main, ["verify-log", "--since", "2999-01-01T00:00+00:00",
                                  "--database-url", floor.url])
    assert future.exit_code == 0 and future.output.startswith("OK: 0 rounds")
    changed = runner.invoke(main, ["resettle", "--since", "2000-01-01", "--until",
                                   "2999-01-01", "--database-url", floor.url])
    assert changed.exit_code == 1
    assert f"round #6 (id {ids[5]}" in changed.output and "seat 4 play" in changed.output
    assert "7 rounds re-settled: 1 differ" in changed.output
