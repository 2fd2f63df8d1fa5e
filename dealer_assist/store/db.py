"""Engines, sessions and schema upgrades for the hand log.

SQLite is the embedded default (one file under the instance folder, WAL mode, foreign keys
on, a busy timeout); a floor of many tables shares one PostgreSQL database through psycopg 3.
The schema is built and changed only by the Alembic migrations shipped in
``dealer_assist/store/migrations`` (:func:`upgrade`), never by ``create_all``.

Write transactions on SQLite start with ``BEGIN IMMEDIATE`` (see :func:`begin_write`) so
two terminals never both read the same chain head and then fight over the write lock.

>>> default_sqlite_url("/srv/casino/instance")
'sqlite:////srv/casino/instance/dealer_assist.sqlite3'
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event, orm
from sqlalchemy.engine import make_url

#: File name of the embedded database inside the instance folder.
SQLITE_FILE = "dealer_assist.sqlite3"
#: How long a SQLite writer waits for another writer's lock before giving up (seconds).
SQLITE_BUSY_TIMEOUT = 15.0
#: How long a PostgreSQL connection attempt may take before the store is called unreachable.
PG_CONNECT_TIMEOUT = 5
#: How long a PostgreSQL statement waits for a lock another session holds (the chain head of
#: a table, say) before the store is called unavailable, like SQLite's busy timeout.
PG_LOCK_TIMEOUT = SQLITE_BUSY_TIMEOUT
#: libpq TCP settings: a PostgreSQL server that stops answering (a network partition) is
#: given up on after this many milliseconds of unacknowledged data, and idle connections are
#: probed, instead of a request hanging until the kernel gives up (many minutes).
PG_TCP: dict[str, int] = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5,
                          "keepalives_count": 3, "tcp_user_timeout": 20_000}
#: Execution option a session sets on its connection to start an IMMEDIATE SQLite transaction.
WRITE_OPTION = "dealer_assist_write"

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def default_sqlite_url(instance_path: str | os.PathLike[str]) -> str:
    """The SQLite URL of the embedded database in ``instance_path`` (made absolute)."""
    path = Path(os.path.abspath(os.fspath(instance_path))) / SQLITE_FILE
    return f"sqlite:///{path.as_posix()}"


def default_database_url() -> str:
    """``DATABASE_URL`` from the environment, else ``instance/`` under the current directory."""
    return os.environ.get("DATABASE_URL") or default_sqlite_url(Path.cwd() / "instance")


def is_sqlite(bind: sa.Engine | sa.Connection) -> bool:
    return bind.dialect.name == "sqlite"


def _sqlite_connect_with(busy_timeout: float) -> Callable[[Any, Any], None]:
    def connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy (not the sqlite3 module) emit BEGIN, so we can choose IMMEDIATE.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        cur.execute("PRAGMA foreign_keys = ON")
        cur.execute("PRAGMA journal_mode = WAL")
        # FULL: a committed round survives a power cut, not only a crash of the program.
        cur.execute("PRAGMA synchronous = FULL")
        cur.close()

    return connect


def _pg_connect(dbapi_conn: Any, _record: Any) -> None:
    # Set per connection (not in the URL's ``options``, which may carry a search_path).
    cur = dbapi_conn.cursor()
    cur.execute(f"SET lock_timeout = {int(PG_LOCK_TIMEOUT * 1000)}")
    cur.close()
    dbapi_conn.commit()


def _sqlite_begin(conn: sa.Connection) -> None:
    if conn.get_execution_options().get(WRITE_OPTION):
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        conn.exec_driver_sql("BEGIN")


def make_engine(url: str | sa.URL, *, sqlite_busy_timeout: float = SQLITE_BUSY_TIMEOUT,
                **kwargs: Any) -> sa.Engine:
    """An engine for ``url`` with the settings the hand log relies on.

    SQLite: the folder is created, WAL, foreign keys, busy timeout, synchronous FULL, and a
    connection pool (one connection per thread). PostgreSQL: psycopg 3 (a bare
    ``postgresql://`` URL is switched to it), a connect timeout, pre-ping.
    ``sqlite_busy_timeout``: seconds a SQLite writer waits for the lock before
    :class:`~dealer_assist.services.errors.StoreUnavailable`. Extra keyword arguments go
    to :func:`sqlalchemy.create_engine`.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        options: dict[str, Any] = {
            "connect_args": {"timeout": sqlite_busy_timeout, "check_same_thread": False},
            "pool_size": 8,
            "max_overflow": 16,
            "pool_timeout": 30,
        }
        if not database or database == ":memory:":
            options = {"connect_args": {"check_same_thread": False},
                       "poolclass": sa.pool.StaticPool}
        options.update(kwargs)
        engine = sa.create_engine(parsed, **options)
        event.listen(engine, "connect", _sqlite_connect_with(sqlite_busy_timeout))
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    if parsed.get_backend_name() == "postgresql":
        if parsed.get_driver_name() in ("", "psycopg2") or parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        connect_args = {"connect_timeout": PG_CONNECT_TIMEOUT, **PG_TCP,
                        **kwargs.pop("connect_args", {})}
        options = {"pool_pre_ping": True, "pool_size": 10, "max_overflow": 20,
                   "connect_args": connect_args}
        options.update(kwargs)
        engine = sa.create_engine(parsed, **options)
        event.listen(engine, "connect", _pg_connect)
        return engine
    return sa.create_engine(parsed, **kwargs)


#: The session factory. Bind it per use: ``Session(bind=engine)`` or
#: ``Session.configure(bind=engine)``; :func:`session_factory` makes a bound one.
Session: orm.sessionmaker[orm.Session] = orm.sessionmaker(expire_on_commit=False)


def session_factory(engine: sa.Engine) -> orm.sessionmaker[orm.Session]:
    """A session factory bound to ``engine`` (objects stay readable after commit)."""
    return orm.sessionmaker(bind=engine, expire_on_commit=False)


def begin_write(session: orm.Session) -> None:
    """Start the session's transaction as a write transaction.

    Any transaction the session already has open is committed first (a read snapshot
    must not be upgraded to a write on SQLite: it could fail instead of waiting). On
    SQLite the new transaction is ``BEGIN IMMEDIATE``: it waits (busy timeout) for the one
    write lock before reading anything, so reads inside it see the latest committed state.
    """
    if session.in_transaction():
        session.commit()
    session.connection(execution_options={WRITE_OPTION: True})


def _alembic_config(connection: sa.Connection) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def upgrade(engine_or_url: sa.Engine | str, revision: str = "head") -> None:
    """Run the Alembic migrations up to ``revision`` (the newest by default)."""
    from alembic import command

    engine = make_engine(engine_or_url) if isinstance(engine_or_url, str) else engine_or_url
    try:
        with engine.begin() as connection:
            command.upgrade(_alembic_config(connection), revision)
    finally:
        if isinstance(engine_or_url, str):
            engine.dispose()


def current_revision(engine: sa.Engine) -> str | None:
    """The schema's Alembic revision, or None for an empty database."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str:
    """The newest revision the shipped migrations know."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(MIGRATIONS_DIR))
    head = script.get_current_head()
    assert head is not None
    return head


def with_engine(url: str | None, fn: Callable[[sa.Engine], Any]) -> Any:
    """Run ``fn`` with a fresh engine for ``url`` (default: :func:`default_database_url`)."""
    engine = make_engine(url or default_database_url())
    try:
        return fn(engine)
    finally:
        engine.dispose()
