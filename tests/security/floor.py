"""A small real floor (hand log on SQLite or PostgreSQL) for the security, fuzz and fault
tests: one user per role with a password and an API token, two tables with open shifts.

PostgreSQL databases are schemas in ``DATABASE_URL_POSTGRES`` (``search_path`` in the URL),
created fresh and dropped by :func:`drop_pg_schema`.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

PG_URL = os.environ.get("DATABASE_URL_POSTGRES")
ENGINES = ["sqlite", *(["postgresql"] if PG_URL else [])]

PASSWORDS = {"dana": "dealer-pass-1", "sam": "super-pass-1", "alex": "audit-pass-1",
             "ada": "admin-pass-1"}
ROLE_USERS = {"dealer": "dana", "supervisor": "sam", "auditor": "alex", "admin": "ada"}
TABLES = ("TCP-1", "TCP-2")


@dataclass
class Floor:
    url: str
    tokens: dict[str, str] = field(default_factory=dict)
    schema: str | None = None


def cheap_hashing() -> None:
    """argon2 with tiny costs (the tests check behaviour, not the work factor)."""
    from argon2 import PasswordHasher

    from dealer_assist.services import admin

    cheap = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
    admin._hasher = cheap  # type: ignore[attr-defined]
    admin._DUMMY_HASH = cheap.hash("x")  # type: ignore[attr-defined]


def new_pg_schema(prefix: str = "da_sec") -> tuple[str, str]:
    """A fresh schema in the PostgreSQL test database: (url with search_path, schema)."""
    from dealer_assist.store import db

    assert PG_URL is not None
    schema = f"{prefix}_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}_{uuid.uuid4().hex[:8]}"
    root = db.make_engine(PG_URL)
    try:
        with root.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    finally:
        root.dispose()
    url = sa.engine.make_url(PG_URL).update_query_dict(
        {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    return url, schema


def drop_pg_schema(schema: str) -> None:
    from dealer_assist.store import db

    root = db.make_engine(PG_URL or "")
    try:
        with root.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        root.dispose()


def build_floor(engine_name: str, folder: Path, *, tables: tuple[str, ...] = TABLES,
                url: str | None = None, **table_options: Any) -> Floor:
    """A fresh floor: users, tokens, tables, each table's shift open (by the supervisor).
    ``url``: in that (empty) database rather than a new SQLite file or schema."""
    from dealer_assist import services
    from dealer_assist.store import db

    schema = None
    if url is not None:
        pass
    elif engine_name == "sqlite":
        url = db.default_sqlite_url(folder)
    else:
        url, schema = new_pg_schema()
    db.upgrade(url)
    engine = db.make_engine(url)
    floor = Floor(url, schema=schema)
    try:
        with db.session_factory(engine)() as session:
            for role, name in ROLE_USERS.items():
                services.create_user(session, name, role, PASSWORDS[name])
                floor.tokens[role] = services.create_token(session, name)
            for table in tables:
                services.create_table(session, table, 7, **table_options)
                services.open_shift(session, table=table, user="sam")
    finally:
        engine.dispose()
    return floor


def round_json(i: int) -> dict[str, Any]:
    """A valid round, different for each ``i``."""
    from dealer_assist.domain.cards import DECK

    cards = [str(DECK[(i * 7 + k) % 52]) for k in range(12)]
    return {"dealer": cards[:3], "seats": [
        {"seat": 1, "cards": cards[3:6], "ante": 1000, "play": True, "pair_plus": 500},
        {"seat": 2, "cards": cards[6:9], "ante": 500, "play": i % 3 != 0},
        {"seat": 4, "cards": cards[9:12], "ante": 2500, "play": True, "six_card": 500},
    ]}


def counts(url: str) -> dict[str, int]:
    """Rows in every table of the hand log (to prove that an attack changed nothing)."""
    from dealer_assist.store import db

    engine = db.make_engine(url)
    try:
        names = sa.inspect(engine).get_table_names()
        with engine.connect() as conn:
            return {n: int(conn.execute(sa.text(f'SELECT count(*) FROM "{n}"')).scalar_one())
                    for n in sorted(names) if n != "alembic_version"}
    finally:
        engine.dispose()


def verify(url: str) -> Any:
    from dealer_assist import services
    from dealer_assist.store import db

    engine = db.make_engine(url)
    try:
        with db.session_factory(engine)() as session:
            return services.verify_log(session)
    finally:
        engine.dispose()
