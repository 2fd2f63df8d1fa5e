"""Database fixtures: every store test runs on SQLite, and on PostgreSQL when
``DATABASE_URL_POSTGRES`` is set (CI sets it).

Each PostgreSQL test gets its own schema (``search_path`` in the URL), created fresh and
dropped afterwards, so parallel xdist workers and reruns never see each other's rows.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from argon2 import PasswordHasher
from sqlalchemy import orm

from dealer_assist import services
from dealer_assist.services import admin
from dealer_assist.store import db

PG_URL = os.environ.get("DATABASE_URL_POSTGRES")
ENGINES = ["sqlite", *(["postgresql"] if PG_URL else [])]

ROUND: dict[str, Any] = {
    "dealer": ["QH", "8C", "3D"],
    "seats": [
        {"seat": 1, "cards": ["KS", "7H", "2C"], "ante": 1000, "play": True, "pair_plus": 500},
        {"seat": 3, "cards": ["5C", "5D", "9H"], "ante": 1000, "play": False, "pair_plus": 500},
        {"seat": 5, "cards": ["10H", "JH", "QS"], "ante": 2500, "play": True, "six_card": 500,
         "prime": 500},
    ],
}


def round_json(i: int = 0) -> dict[str, Any]:
    """A valid round, different for each ``i`` (cards rotate through the deck)."""
    from dealer_assist.domain.cards import DECK

    cards = [str(DECK[(i * 7 + k) % 52]) for k in range(12)]
    return {"dealer": cards[:3], "seats": [
        {"seat": 1, "cards": cards[3:6], "ante": 1000, "play": True, "pair_plus": 500},
        {"seat": 2, "cards": cards[6:9], "ante": 500, "play": i % 3 != 0},
        {"seat": 4, "cards": cards[9:12], "ante": 2500, "play": True, "six_card": 500},
    ]}


@pytest.fixture(autouse=True)
def _fast_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2 with tiny costs: the tests check behaviour, not the work factor."""
    cheap = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
    monkeypatch.setattr(admin, "_hasher", cheap)
    monkeypatch.setattr(admin, "_DUMMY_HASH", cheap.hash("x"))


def _pg_schema_url(schema: str) -> str:
    assert PG_URL is not None
    url = sa.engine.make_url(PG_URL)
    return url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False)


@pytest.fixture(params=ENGINES)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL of an empty database of each engine."""
    if request.param == "sqlite":
        yield db.default_sqlite_url(tmp_path / "instance")
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    schema = f"da_test_{worker}_{uuid.uuid4().hex[:10]}"
    admin_engine = db.make_engine(PG_URL or "")
    with admin_engine.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield _pg_schema_url(schema)
    finally:
        with admin_engine.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin_engine.dispose()


@pytest.fixture
def engine(db_url: str) -> Iterator[sa.Engine]:
    """An engine on a database upgraded to the newest migration."""
    eng = db.make_engine(db_url)
    db.upgrade(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def session(engine: sa.Engine) -> Iterator[orm.Session]:
    with db.session_factory(engine)() as s:
        yield s


@dataclass
class Floor:
    """A ready floor: table T1 (7 seats, default rules) with an open shift, and users."""

    engine: sa.Engine
    url: str
    table: str = "T1"
    dealer: str = "dan"
    supervisor: str = "sue"
    auditor: str = "abe"

    def session(self) -> orm.Session:
        return db.session_factory(self.engine)()


@pytest.fixture
def floor(engine: sa.Engine, db_url: str, session: orm.Session) -> Floor:
    services.create_user(session, "dan", ["dealer"], "dealer-pass")
    services.create_user(session, "sue", ["supervisor", "dealer"], "super-pass")
    services.create_user(session, "abe", ["auditor"], "audit-pass")
    services.create_table(session, "T1", 7)
    services.open_shift(session, table="T1", user="sue", opening_inventory={500: 100, 2500: 40})
    return Floor(engine, db_url)


def drop_triggers(engine: sa.Engine) -> None:
    """What an attacker with database access does first: remove the append-only triggers."""
    from dealer_assist.store import models

    with engine.begin() as conn:
        for table in (*models.APPEND_ONLY_TABLES, *models.APPEND_ONLY_TABLES_0002,
                      *models.APPEND_ONLY_TABLES_0003):
            if engine.dialect.name == "sqlite":
                conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_no_update")
                conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_no_delete")
            else:
                conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_no_change ON {table}")
                conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")


def tamper(engine: sa.Engine, *statements: str) -> None:
    """Run raw SQL with the triggers gone and foreign keys unenforced, as an attacker could."""
    drop_triggers(engine)
    raw = engine.raw_connection()
    try:
        cur = raw.cursor()
        if engine.dialect.name == "sqlite":
            cur.execute("PRAGMA foreign_keys = OFF")  # autocommit mode (see db.make_engine)
            cur.execute("BEGIN")
        else:
            cur.execute("SET session_replication_role = replica")
        for statement in statements:
            cur.execute(statement)
        if engine.dialect.name == "sqlite":
            cur.execute("COMMIT")
            cur.execute("PRAGMA foreign_keys = ON")
        else:
            raw.commit()
            cur.execute("SET session_replication_role = origin")
            raw.commit()
        cur.close()
    finally:
        raw.close()


def quote_url(url: str) -> str:
    return quote(url, safe="")
