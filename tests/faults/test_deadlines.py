"""Nothing waits on the database without a bound (``dealer_assist.store.db``).

PostgreSQL, at the engine: a slow statement is cancelled by the server at the statement
timeout; a server that never answers (the proxy frozen: TCP stays up, nothing comes back)
is given up on by the client at the statement timeout plus its grace, the connection is
dropped and the next one works once the server answers; a COMMIT left unanswered is
reported in doubt, not as "nothing was written". SQLite: writers queued behind a database
another program keeps locked all fail within the busy timeout, not one after another.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from dealer_assist.services._base import unavailable
from dealer_assist.store import db
from tests.security.floor import PG_URL

from .proxy import Proxy

pg_only = pytest.mark.skipif(not PG_URL, reason="DATABASE_URL_POSTGRES not set")

STATEMENT = 1.0     # a short statement timeout keeps the tests quick
LOADED = 2.0        # room for a loaded machine on top of every bound


@pytest.fixture
def proxied() -> Iterator[tuple[Proxy, sa.Engine]]:
    assert PG_URL
    url = sa.engine.make_url(PG_URL)
    proxy = Proxy(url.port or 5432).up()
    engine = db.make_engine(url.set(host="127.0.0.1", port=proxy.port),
                            statement_timeout=STATEMENT)
    yield proxy, engine
    proxy.thaw()
    engine.dispose()
    proxy.down()


def _timed(fn: object) -> tuple[BaseException | None, float]:
    started = time.monotonic()
    try:
        fn()  # type: ignore[operator]
    except Exception as exc:
        return exc, time.monotonic() - started
    return None, time.monotonic() - started


@pg_only
def test_served_settings_are_on_every_connection(proxied: tuple[Proxy, sa.Engine]) -> None:
    _, engine = proxied
    with engine.connect() as conn:
        shown = {name: conn.exec_driver_sql(f"SHOW {name}").scalar() for name in
                 ("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout")}
    assert shown == {"statement_timeout": "1s", "lock_timeout": "1s",
                     "idle_in_transaction_session_timeout": "1min"}
    plain = db.make_engine(PG_URL or "")       # the command line: long reads allowed
    try:
        with plain.connect() as conn:
            assert conn.exec_driver_sql("SHOW statement_timeout").scalar() == "0"
            assert conn.exec_driver_sql("SHOW lock_timeout").scalar() == "15s"
    finally:
        plain.dispose()


@pg_only
def test_a_slow_statement_is_cancelled_by_the_server(proxied: tuple[Proxy, sa.Engine]) -> None:
    _, engine = proxied
    with engine.connect() as conn:
        error, took = _timed(lambda: conn.exec_driver_sql("SELECT pg_sleep(10)"))
        assert isinstance(error, sa_exc.OperationalError), error
        assert "statement timeout" in str(error.orig)
        assert STATEMENT <= took < STATEMENT + LOADED
        assert not error.connection_invalidated     # the connection is fine: keep it
        conn.rollback()
        assert conn.exec_driver_sql("SELECT 1").scalar() == 1


@pg_only
def test_a_hung_server_mid_transaction_is_given_up_on(proxied: tuple[Proxy, sa.Engine]) -> None:
    proxy, engine = proxied
    bound = STATEMENT + db.PG_CLIENT_GRACE
    with engine.connect() as conn:
        conn.exec_driver_sql("SELECT 1")
        proxy.freeze()
        error, took = _timed(lambda: conn.exec_driver_sql("SELECT 1"))
    assert isinstance(error, sa_exc.OperationalError), error
    assert error.connection_invalidated
    assert "did not answer within" in str(error.orig)
    assert bound <= took < bound + LOADED, took
    # Still hung: a new connection times out at the connect timeout, never hangs.
    def connect() -> None:
        with engine.connect() as c:
            c.exec_driver_sql("SELECT 1")
    error, took = _timed(connect)
    assert isinstance(error, sa_exc.OperationalError), error
    assert took < db.PG_CONNECT_TIMEOUT + LOADED, took
    proxy.thaw()
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT 1").scalar() == 1


@pg_only
def test_a_pooled_connection_to_a_hung_server_costs_a_ping_and_a_connect(
        proxied: tuple[Proxy, sa.Engine]) -> None:
    proxy, engine = proxied
    with engine.connect() as conn:
        conn.exec_driver_sql("SELECT 1")       # now pooled
    proxy.freeze()

    def use() -> None:
        with engine.connect() as c:
            c.exec_driver_sql("SELECT 1")
    error, took = _timed(use)
    assert isinstance(error, sa_exc.OperationalError), error
    bound = db.PG_PING_TIMEOUT + db.PG_CONNECT_TIMEOUT
    assert took < bound + LOADED, took
    proxy.thaw()
    use()


@pg_only
def test_an_unanswered_commit_is_reported_in_doubt(proxied: tuple[Proxy, sa.Engine]) -> None:
    proxy, engine = proxied
    conn = engine.connect()
    try:
        conn.exec_driver_sql("CREATE TEMPORARY TABLE scratch (x integer)")
        conn.exec_driver_sql("INSERT INTO scratch VALUES (1)")
        proxy.freeze()
        error, took = _timed(conn.commit)
    finally:
        conn.close()
    assert isinstance(error, sa_exc.OperationalError), error
    assert took < STATEMENT + db.PG_CLIENT_GRACE + LOADED, took
    assert "in doubt" in str(error.orig)
    message = unavailable(error).message
    assert "nothing was written" not in message
    assert "may or may not" in message and "Idempotency-Key" in message


def test_sqlite_writers_in_line_fail_within_the_busy_timeout(tmp_path: Path) -> None:
    """Four writers of one process queue behind a database another program holds locked:
    each gives up within the busy timeout of asking, not 1, 2, 3, 4 timeouts later."""
    busy = 1.0
    engine = db.make_engine(db.default_sqlite_url(tmp_path), sqlite_busy_timeout=busy)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    queue = db.write_queue(engine)
    sessions = db.session_factory(engine)
    results: list[tuple[str, float]] = []
    lock = threading.Lock()

    def writer() -> None:
        started = time.monotonic()
        try:
            with queue, sessions() as s:
                db.begin_write(s)
                s.execute(sa.text("INSERT INTO t VALUES (1)"))
                s.commit()
            outcome = "written"
        except sa_exc.OperationalError as exc:
            outcome = str(exc.orig)
        with lock:
            results.append((outcome, time.monotonic() - started))

    holder = sqlite3.connect(str(tmp_path / db.SQLITE_FILE), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        threads = [threading.Thread(target=writer) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(results) == 4
    for outcome, took in results:
        assert "locked" in outcome, outcome
        assert took < busy + 1.0, results
    writer()                                     # released: the next writer writes
    assert results[-1][0] == "written"
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM t").scalar() == 1
    engine.dispose()


@pg_only
def test_a_session_stuck_in_a_transaction_is_ended_and_its_locks_freed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that stops mid-transaction (stuck, or its client gone quiet) while holding
    a row lock: the server ends the session after the idle-in-transaction timeout (60 s
    served; 2.5 s here), so other writers are not blocked behind it for ever."""
    monkeypatch.setattr(db, "PG_IDLE_IN_TRANSACTION_TIMEOUT", 2.5)
    stuck = db.make_engine(PG_URL or "", statement_timeout=STATEMENT)
    other = db.make_engine(PG_URL or "", statement_timeout=STATEMENT)
    try:
        with stuck.connect() as conn:
            conn.exec_driver_sql("CREATE TEMPORARY TABLE scratch (x integer)")
            pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(424242)")
            with other.connect() as second:     # the lock is held: the other one waits
                error, _ = _timed(lambda: second.exec_driver_sql(
                    "SELECT pg_advisory_xact_lock(424242)"))
                assert isinstance(error, sa_exc.OperationalError), error
                second.rollback()
                time.sleep(3)                       # the stuck session stays idle
                started = time.monotonic()
                second.exec_driver_sql("SELECT pg_advisory_xact_lock(424242)")   # freed
                assert time.monotonic() - started < LOADED
                second.rollback()
                gone = second.exec_driver_sql(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = %(pid)s",
                    {"pid": pid}).scalar()
                assert gone == 0
            # The stuck worker's next statement: the connection is gone, which is a 503.
            error, _ = _timed(lambda: conn.exec_driver_sql("SELECT 1"))
            assert isinstance(error, sa_exc.DBAPIError), error
            assert error.connection_invalidated, error
            assert "idle-in-transaction" in unavailable(error).message
    finally:
        stuck.dispose()
        other.dispose()


def test_a_connection_dropped_under_the_ping_is_a_failed_ping() -> None:
    """A failover drops every connection; the pool's ping on one fails at its SELECT
    ("connection socket closed"), and the dialect's ping then fails again putting
    autocommit back, the connection still looking in a transaction. That second error
    hid the disconnect and a round posted mid-failover answered 500 (CI, 2026-12-04):
    the ping now says the connection is gone, and the pool connects again."""
    psycopg = pytest.importorskip("psycopg")
    engine = db.make_engine("postgresql://nobody@127.0.0.1:1/none")  # never connected

    class Dropped:
        """A pooled connection whose server has gone, as psycopg saw it."""
        closed = False
        _autocommit = False

        @property
        def autocommit(self) -> bool:
            return self._autocommit

        @autocommit.setter
        def autocommit(self, value: bool) -> None:
            if not value and self._autocommit:
                raise psycopg.ProgrammingError(
                    "can't change 'autocommit' now: connection in transaction status ACTIVE")
            self._autocommit = value

        def cursor(self) -> Dropped:
            return self

        def execute(self, _sql: str) -> None:
            raise psycopg.OperationalError("connection socket closed")

        def close(self) -> None:
            pass

    class Refused(Dropped):
        """A ping failing for another reason than a lost connection."""
        def execute(self, _sql: str) -> None:
            raise psycopg.ProgrammingError("not a lost connection")

    assert engine.dialect.do_ping(Dropped()) is False
    with pytest.raises(psycopg.ProgrammingError):
        engine.dialect.do_ping(Refused())
