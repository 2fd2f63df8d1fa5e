"""The store's commands end to end: init-db, table/user/token add, simulate, export."""

from __future__ import annotations

import csv
import io
import json
import random

import sqlalchemy as sa
from click.testing import CliRunner
from sqlalchemy import orm

from dealer_assist import services
from dealer_assist.cli import main
from dealer_assist.domain.rulesets import DEFAULT_RULES
from dealer_assist.services.simulate import follows_q64, simulated_round
from dealer_assist.store import db

from .conftest import Floor, round_json


def test_init_db_then_admin_commands(db_url: str, tmp_path: object) -> None:
    runner = CliRunner()
    missing = runner.invoke(main, ["verify-log", "--database-url", db_url])
    assert missing.exit_code == 3 and "init-db" in missing.output
    first = runner.invoke(main, ["init-db", "--database-url", db_url])
    assert first.exit_code == 0 and "upgraded from empty to" in first.output
    again = runner.invoke(main, ["init-db", "--database-url", db_url])
    assert "already at revision" in again.output
    rules = tmp_path / "rules.json"  # type: ignore[operator]
    rules.write_text(json.dumps({"pair_plus": "40-30-5-4-1", "limits": {"ante": {"min": 500}}}))
    added = runner.invoke(main, ["table", "add", "Main 3", "--seats", "6", "--rules", str(rules),
                                 "--database-url", db_url])
    assert added.exit_code == 0 and added.output.startswith("table Main 3: 6 seats")
    dup = runner.invoke(main, ["table", "add", "Main 3", "--database-url", db_url])
    assert dup.exit_code == 2 and "already exists" in dup.output
    user = runner.invoke(main, ["user", "add", "pat", "--role", "supervisor", "--role", "dealer",
                                "--database-url", db_url], input="a-long-password\n")
    assert user.exit_code == 0 and user.output.strip() == "user pat: dealer, supervisor"
    token = runner.invoke(main, ["token", "add", "pat", "--database-url", db_url])
    assert token.exit_code == 0
    engine = db.make_engine(db_url)
    with db.session_factory(engine)() as s:
        assert services.user_for_token(s, token.output.strip()).name == "pat"  # type: ignore[union-attr]
        assert services.authenticate(s, "pat", "a-long-password") is not None
        table = services.get_table(s, "Main 3")
        assert table.ruleset_version.content_hash != DEFAULT_RULES.content_hash
    engine.dispose()


def test_simulate_logs_through_the_service_and_verifies(db_url: str) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["init-db", "--database-url", db_url]).exit_code == 0
    result = runner.invoke(main, ["simulate", "--table", "Sim", "--rounds", "60", "--seed", "7",
                                  "--database-url", db_url])
    assert result.exit_code == 0, result.output
    assert "logged 60 rounds at table Sim (serials 1-60)" in result.output
    more = runner.invoke(main, ["simulate", "--table", "Sim", "--rounds", "5",
                                "--database-url", db_url])
    assert "(serials 61-65)" in more.output
    verify = runner.invoke(main, ["verify-log", "--database-url", db_url])
    assert verify.exit_code == 0 and verify.output.startswith("OK: 65 rounds, chain head ")
    engine = db.make_engine(db_url)
    with db.session_factory(engine)() as s:
        rounds = services.list_rounds(s, table="Sim", limit=1000)
        assert {r.source for r in rounds} == {"simulated"}
        seats = [r.seats for r in rounds]
        assert min(seats) >= 1 and max(seats) <= 7 and sum(seats) / len(seats) > 3.5
    engine.dispose()


def test_simulated_play_is_realistic_and_reproducible() -> None:
    rng = random.Random(3)
    rounds = [simulated_round(rng, 7, DEFAULT_RULES) for _ in range(2000)]
    again = [simulated_round(random.Random(3), 7, DEFAULT_RULES)]
    assert again[0] == rounds[0]
    seats = [s for r in rounds for s in r["seats"]]
    from dealer_assist.domain.cards import parse_cards

    q64 = sum(s["play"] == follows_q64(tuple(parse_cards(s["cards"]))) for s in seats)
    assert 0.9 < q64 / len(seats) < 0.99  # mostly the strategy, a few hunches
    assert 0.4 < sum("pair_plus" in s for s in seats) / len(seats) < 0.7
    assert 0.6 < sum(s["play"] for s in seats) / len(seats) < 0.75


def test_export_a_shift_to_csv_and_json(floor: Floor, session: orm.Session) -> None:
    ids = [services.log_round(session, table="T1", round_json=round_json(i), user="dan").round_id
           for i in range(3)]
    services.void_round(session, ids[0], user="sue", reason="wrong table")
    shift = services.current_shift(session, "T1")
    assert shift is not None
    runner = CliRunner()
    out = runner.invoke(main, ["export", "--shift", str(shift.id), "--format", "csv",
                               "--database-url", floor.url])
    assert out.exit_code == 0, out.output
    rows = list(csv.DictReader(io.StringIO(out.output)))
    assert len(rows) == 9 and rows[0]["status"] == "voided" and rows[3]["status"] == "settled"
    stored = services.get_round(session, ids[1])
    assert [int(r["seat_total"]) for r in rows[3:6]] == [s.total for s in stored.seats]
    data = json.loads(services.export_shift(session, shift.id, "json"))
    assert data["shift"]["opening_value"] == 500 * 100 + 2500 * 40
    assert [r["serial"] for r in data["rounds"]] == [1, 2, 3]
    assert data["rounds"][0]["events"][0]["reason"] == "wrong table"
    assert data["rounds"][1]["audit_hash"] == stored.audit[0].hash
    count = session.scalar(sa.select(sa.func.count()).select_from(sa.table("rounds")))
    assert count == 3


def test_an_unreachable_database_exits_3_with_a_message() -> None:
    result = CliRunner().invoke(main, ["verify-log", "--database-url",
                                       "postgresql+psycopg://nobody@127.0.0.1:1/none"])
    assert result.exit_code == 3 and "cannot be reached" in result.output
