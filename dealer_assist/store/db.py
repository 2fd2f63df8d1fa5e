"""Engines, sessions and schema upgrades for the hand log.

SQLite is the embedded default (one file under the instance folder, WAL mode, foreign keys
on, a busy timeout); a floor of many tables shares one PostgreSQL database through psycopg 3.
The schema is built and changed only by the Alembic migrations shipped in
``dealer_assist/store/migrations`` (:func:`upgrade`), never by ``create_all``.

Write transactions on SQLite start with ``BEGIN IMMEDIATE`` (see :func:`begin_write`) so
two terminals never both read the same chain head and then fight over the write lock.

Deadlines: nothing waits on the database without a bound. SQLite writers wait at most the
busy timeout for the write lock, counting the time spent in line behind this process's
other writers (:class:`WriteQueue`). PostgreSQL connections have a connect timeout, a lock
timeout and TCP keepalives; an engine made with ``statement_timeout`` (a served app) also
has the server cancel any statement running longer, ends sessions left idle in a
transaction, and gives up client-side on a server that sends nothing back for
``statement_timeout`` + :data:`PG_CLIENT_GRACE` seconds (a hung server, or a link that
stalls while TCP still acknowledges: keepalives cannot see either): the connection is
closed, the request fails (503), and the pool reconnects once the server answers again.

>>> default_sqlite_url("/srv/casino/instance")
'sqlite:////srv/casino/instance/dealer_assist.sqlite3'
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event, orm
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url

#: File name of the embedded database inside the instance folder.
SQLITE_FILE = "dealer_assist.sqlite3"
#: How long a SQLite writer waits for another writer's lock before giving up (seconds).
SQLITE_BUSY_TIMEOUT = 15.0
#: How long a PostgreSQL connection attempt may take before the store is called unreachable
#: (libpq's minimum is 2).
PG_CONNECT_TIMEOUT = 3
#: How long a PostgreSQL statement waits for a lock another session holds (the chain head of
#: a table, say) before the store is called unavailable, like SQLite's busy timeout.
PG_LOCK_TIMEOUT = SQLITE_BUSY_TIMEOUT
#: libpq TCP settings: a PostgreSQL server that stops answering (a network partition) is
#: given up on after this many milliseconds of unacknowledged data, and idle connections are
#: probed, instead of a request hanging until the kernel gives up (many minutes).
PG_TCP: dict[str, int] = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5,
                          "keepalives_count": 3, "tcp_user_timeout": 20_000}
#: A served app's statement timeout (seconds): the server cancels a statement running
#: longer (and lock waits end by then too); the web's ``DATABASE_STATEMENT_TIMEOUT``.
SERVED_STATEMENT_TIMEOUT = 5.0
#: Seconds beyond the statement timeout the client waits for a server that sends nothing
#: (its own cancellation must have arrived by then) before it drops the connection.
PG_CLIENT_GRACE = 2.0
#: Seconds the pool's liveness check of a pooled connection may take (a failed check only
#: costs a reconnect, so it is short).
PG_PING_TIMEOUT = 2.0
#: A served app's session left idle inside a transaction this long (a stuck worker holding
#: a table's chain head) is ended by the server, releasing its locks.
PG_IDLE_IN_TRANSACTION_TIMEOUT = 60.0
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


def _pg_settings(statement_timeout: float | None) -> dict[str, str]:
    """The server settings each PostgreSQL connection gets (milliseconds)."""
    settings = {"lock_timeout": str(int(PG_LOCK_TIMEOUT * 1000))}
    if statement_timeout is not None:
        settings["lock_timeout"] = str(int(min(PG_LOCK_TIMEOUT, statement_timeout) * 1000))
        settings["statement_timeout"] = str(int(statement_timeout * 1000))
        settings["idle_in_transaction_session_timeout"] = str(
            int(PG_IDLE_IN_TRANSACTION_TIMEOUT * 1000))
    return settings


def _pg_connect_with(settings: dict[str, str]) -> Callable[[Any, Any], None]:
    # Set per connection (not in the URL's ``options``, which may carry a search_path).
    query = "SELECT " + ", ".join(f"set_config('{name}', %s, false)" for name in settings)

    def connect(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute(query, list(settings.values()))
        cur.close()
        dbapi_conn.commit()

    return connect


def _deadline_connection_class() -> Any:
    """psycopg's Connection, giving up on a server that does not answer in time.

    Every wait on the server (a statement, a fetch, a commit) is bounded by ``deadline``
    seconds; past it the connection is closed (it is mid-protocol: unusable) and
    ``OperationalError`` raised, which SQLAlchemy sees as a disconnect (the pool drops the
    connection and later checkouts reconnect).
    """
    import psycopg

    wait_timeout = getattr(psycopg.errors, "_WaitTimeout", None)

    class DeadlineConnection(psycopg.Connection[Any]):
        deadline: float | None = None
        _committing = False

        def wait(self, gen: Any, interval: float | None = None,
                 timeout: float | None = None) -> Any:
            limit = self.deadline if timeout is None else timeout
            if limit is None or wait_timeout is None:
                return super().wait(gen, **({} if interval is None else {"interval": interval}))
            kwargs: dict[str, Any] = {"timeout": limit}
            if interval is not None:
                kwargs["interval"] = interval
            try:
                return super().wait(gen, **kwargs)
            except wait_timeout:
                if timeout is not None:
                    raise          # a caller's own timeout: psycopg handles it
                self.pgconn.finish()
                outcome = (": whether the COMMIT took effect is unknown (the outcome is "
                           "in doubt)" if self._committing else "")
                raise psycopg.OperationalError(
                    f"the database server did not answer within {limit:g} s (hung, or the "
                    f"network to it stalled){outcome}") from None

        def commit(self) -> None:
            self._committing = True
            try:
                super().commit()
            finally:
                self._committing = False

    return DeadlineConnection


_DEADLINE_CONNECTION: Any = None


def lost_connection(exc: BaseException, operational: type[BaseException]) -> bool:
    """Whether ``exc``, raised by a ping, says the connection is gone: it is the driver's
    ``operational`` error (a socket closed, a server that did not answer), or was raised
    while handling one.

    >>> class Lost(Exception): ...
    >>> try:
    ...     try:
    ...         raise Lost("connection socket closed")
    ...     except Lost:
    ...         raise ValueError("can't change 'autocommit' now")
    ... except ValueError as exc:
    ...     lost_connection(exc, Lost), lost_connection(ValueError("bad SQL"), Lost)
    (True, False)
    """
    return isinstance(exc, operational) or isinstance(exc.__context__, operational)


def _pg_deadlines(engine: sa.Engine, statement_timeout: float | None) -> None:
    """Client-side deadlines: connections of our class, a short ping."""
    global _DEADLINE_CONNECTION
    if _DEADLINE_CONNECTION is None:
        _DEADLINE_CONNECTION = _deadline_connection_class()
    deadline = None if statement_timeout is None else statement_timeout + PG_CLIENT_GRACE

    @event.listens_for(engine, "do_connect")
    def _connect(_dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
        conn = _DEADLINE_CONNECTION.connect(*cargs, **cparams)
        conn.deadline = deadline
        return conn

    dialect = engine.dialect
    plain_ping = dialect.do_ping
    dbapi = dialect.loaded_dbapi

    def ping(dbapi_conn: Any) -> bool:
        saved = getattr(dbapi_conn, "deadline", None)
        if isinstance(dbapi_conn, _DEADLINE_CONNECTION):
            dbapi_conn.deadline = PG_PING_TIMEOUT
        try:
            return plain_ping(dbapi_conn)
        except dbapi.Error as exc:
            # The ping's SELECT on a connection the server dropped fails, and the dialect's
            # ping then fails again putting autocommit back (the connection still looks in
            # a transaction): that ProgrammingError hid the disconnect, and a request during
            # a failover answered 500. An error that is a lost connection, or was raised
            # while handling one, is a failed ping: the pool connects again.
            if lost_connection(exc, dbapi.OperationalError):
                return False
            raise
        finally:
            if isinstance(dbapi_conn, _DEADLINE_CONNECTION) and not dbapi_conn.closed:
                dbapi_conn.deadline = saved

    dialect.do_ping = ping  # type: ignore[method-assign,assignment]


# ---------------------------------------------------------------- SQLite's one writer

_write_deadline = threading.local()
_SQLITE_BUSY: weakref.WeakKeyDictionary[sa.Engine, float] = weakref.WeakKeyDictionary()


class WriteQueue:
    """This process's SQLite writers, in line for the one write lock.

    Threads queue here in order (SQLite's busy handler sleeps in growing steps: long
    tails), each for at most ``timeout`` seconds; the time spent in line is taken off the
    busy timeout of the ``BEGIN IMMEDIATE`` that follows. So a write fails within
    ``timeout`` of asking, however many others queue behind a database another program
    keeps locked, instead of each waiting its turn and then the whole timeout again.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._lock = threading.Lock()

    def __enter__(self) -> WriteQueue:
        started = time.monotonic()
        if not self._lock.acquire(timeout=self.timeout):
            raise sa_exc.OperationalError(
                "BEGIN IMMEDIATE", None, sqlite3.OperationalError(
                    f"database is locked (this process's other writers waited over "
                    f"{self.timeout:g} s for it)"))
        _write_deadline.value = started + self.timeout
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        _write_deadline.value = None
        self._lock.release()


def write_queue(engine: sa.Engine) -> Any:
    """The line a process's writers queue in: a :class:`WriteQueue` on SQLite (one writer),
    nothing on PostgreSQL (row locks, waits bounded by ``lock_timeout``)."""
    if engine.dialect.name != "sqlite":
        from contextlib import nullcontext

        return nullcontext()
    return WriteQueue(_SQLITE_BUSY.get(engine, SQLITE_BUSY_TIMEOUT))


def _sqlite_begin_with(busy_timeout: float) -> Callable[[sa.Connection], None]:
    full = int(busy_timeout * 1000)

    def begin(conn: sa.Connection) -> None:
        writing = bool(conn.get_execution_options().get(WRITE_OPTION))
        busy = full
        deadline = getattr(_write_deadline, "value", None) if writing else None
        if deadline is not None:
            # What is left of this writer's wait once it reached the head of the line.
            busy = max(1, min(full, int((deadline - time.monotonic()) * 1000)))
        if conn.info.get("busy_ms", full) != busy:
            conn.exec_driver_sql(f"PRAGMA busy_timeout = {busy}")
            conn.info["busy_ms"] = busy
        conn.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")

    return begin


def make_engine(url: str | sa.URL, *, sqlite_busy_timeout: float = SQLITE_BUSY_TIMEOUT,
                statement_timeout: float | None = None, **kwargs: Any) -> sa.Engine:
    """An engine for ``url`` with the settings the hand log relies on.

    SQLite: the folder is created, WAL, foreign keys, busy timeout, synchronous FULL, and a
    connection pool (one connection per thread). PostgreSQL: psycopg 3 (a bare
    ``postgresql://`` URL is switched to it), connect and lock timeouts, TCP keepalives,
    pre-ping (itself bounded by :data:`PG_PING_TIMEOUT`).
    Statement parameters never appear in logs or exception messages (``hide_parameters``:
    they hold names, which may be a password typed in the wrong field, and hashes).
    ``sqlite_busy_timeout``: seconds a SQLite writer waits for the lock before
    :class:`~dealer_assist.services.errors.StoreUnavailable`. ``statement_timeout``
    (PostgreSQL; a served app passes :data:`SERVED_STATEMENT_TIMEOUT`, the command line
    none, for long reads): seconds a statement may run, enforced by the server and, for a
    server that never answers, by the client (see the module's docstring). Extra keyword
    arguments go to :func:`sqlalchemy.create_engine`.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        options: dict[str, Any] = {
            "hide_parameters": True,
            "connect_args": {"timeout": sqlite_busy_timeout, "check_same_thread": False},
            "pool_size": 8,
            "max_overflow": 16,
            "pool_timeout": 30,
        }
        if not database or database == ":memory:":
            options = {"hide_parameters": True, "connect_args": {"check_same_thread": False},
                       "poolclass": sa.pool.StaticPool}
        options.update(kwargs)
        engine = sa.create_engine(parsed, **options)
        event.listen(engine, "connect", _sqlite_connect_with(sqlite_busy_timeout))
        event.listen(engine, "begin", _sqlite_begin_with(sqlite_busy_timeout))
        _SQLITE_BUSY[engine] = sqlite_busy_timeout
        return engine
    if parsed.get_backend_name() == "postgresql":
        if parsed.get_driver_name() in ("", "psycopg2") or parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        connect_args = {"connect_timeout": PG_CONNECT_TIMEOUT, **PG_TCP,
                        **kwargs.pop("connect_args", {})}
        options = {"hide_parameters": True, "pool_pre_ping": True, "pool_size": 10,
                   "max_overflow": 20,
                   "connect_args": connect_args}
        options.update(kwargs)
        engine = sa.create_engine(parsed, **options)
        event.listen(engine, "connect", _pg_connect_with(_pg_settings(statement_timeout)))
        _pg_deadlines(engine, statement_timeout)
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
