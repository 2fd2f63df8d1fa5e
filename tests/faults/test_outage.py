"""The database goes away mid-shift, then comes back: requests fail fast with a clear 503
(JSON for the API and the screen's fetches, a page for browsers; never a hang, never a 500
or a trace), nothing is written meanwhile, and logging resumes when it is back.

PostgreSQL is made unreachable through a proxy the test cuts (the machine's PostgreSQL keeps
running); SQLite is locked by another connection holding its write lock, and runs out of
disk (the server's file-size limit lowered with prlimit, as a full disk refuses writes);
PostgreSQL's volume fills up (its tables moved to a small tmpfs tablespace)."""

from __future__ import annotations

import re
import resource
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import requests
import sqlalchemy as sa

from dealer_assist.store import db
from tests.security.floor import PASSWORDS, PG_URL, Floor, counts, round_json, verify

from .proxy import Proxy
from .server import Client, Server

pg_only = pytest.mark.skipif(not PG_URL, reason="DATABASE_URL_POSTGRES not set")


def signed_in(port: int, name: str = "dana") -> tuple[requests.Session, str]:
    """A browser session signed in, and the CSRF token of its dealer screen."""
    web = requests.Session()
    base = f"http://127.0.0.1:{port}"
    page = web.get(f"{base}/auth/login", timeout=10)
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert token, page.text[:500]
    done = web.post(f"{base}/auth/login", data={"name": name, "password": PASSWORDS[name],
                                                "csrf_token": token.group(1)},
                    allow_redirects=False, timeout=10)
    assert done.status_code == 302, done.text[:500]
    screen = web.get(f"{base}/dealer/T1", timeout=10)
    token = re.search(r'name="csrf-token" content="([^"]+)"', screen.text)
    assert screen.status_code == 200 and token, screen.text[:500]
    return web, token.group(1)


def assert_unavailable(status: int, body: Any, started: float, limit: float) -> None:
    took = time.monotonic() - started
    assert status == 503, (status, body)
    assert took < limit, f"took {took:.1f} s"
    assert isinstance(body, dict), body
    assert body["error"]["code"] == "store_unavailable"
    assert "nothing was written" in body["error"]["message"]


@pytest.fixture
def pg_floor(tmp_path: Path) -> Iterator[Floor]:
    from tests.security.floor import build_floor, cheap_hashing, drop_pg_schema

    cheap_hashing()
    floor = build_floor("postgresql", tmp_path, tables=("T1",))
    yield floor
    if floor.schema:
        drop_pg_schema(floor.schema)


def _through(url: str, port: int) -> str:
    return sa.engine.make_url(url).set(host="127.0.0.1", port=port).render_as_string(
        hide_password=False)


@pytest.fixture
def sqlite_floor(tmp_path: Path) -> Floor:
    from tests.security.floor import build_floor, cheap_hashing

    cheap_hashing()
    return build_floor("sqlite", tmp_path, tables=("T1",))


def test_sqlite_locked_then_released(sqlite_floor: Floor, tmp_path: Path) -> None:
    server = Server(sqlite_floor.url, tmp_path, threads=4).start()
    path = sa.engine.make_url(sqlite_floor.url).database
    assert path
    try:
        with Client(server.port, sqlite_floor.tokens["dealer"], timeout=60) as api:
            assert api.request("POST", "/api/v1/tables/T1/rounds", round_json(1),
                               {"Idempotency-Key": "locked-round-1"})[0] == 201
            holder = sqlite3.connect(path, isolation_level=None)
            holder.execute("BEGIN EXCLUSIVE")        # another program holds the write lock
            try:
                # Three dealers at once (the server's threads queue for the one writer):
                # each fails within the busy timeout of asking, none waits its turn and
                # then the whole timeout again.
                answers: list[tuple[int, Any, float, float]] = []

                def log(n: int) -> None:
                    with Client(server.port, sqlite_floor.tokens["dealer"], timeout=90) as c:
                        started = time.monotonic()
                        status, body = c.request("POST", "/api/v1/tables/T1/rounds",
                                                 round_json(n),
                                                 {"Idempotency-Key": f"locked-round-{n}"})
                        answers.append((status, body, started, time.monotonic()))

                threads = [threading.Thread(target=log, args=(n,)) for n in (2, 3, 4)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join(120)
                assert len(answers) == 3
                for status, body, started, _ in answers:
                    assert_unavailable(status, body, started, db.SQLITE_BUSY_TIMEOUT + 5)
                    assert "locked" in body["error"]["message"]
                print("SQLite locked, 3 writers at once: 503 after " + ", ".join(
                    f"{end - started:.1f} s" for _, _, started, end in answers))
                api.close()        # idle past the server's keep-alive meanwhile
                status, _ = api.request("GET", "/api/v1/rounds?table=T1")
                assert status == 200      # reads go on (WAL)
            finally:
                holder.execute("ROLLBACK")
                holder.close()
            status, body = api.request("POST", "/api/v1/tables/T1/rounds", round_json(2),
                                       {"Idempotency-Key": "locked-round-2"})
            assert status == 201 and body["serial"] == 2, body
    finally:
        server.stop()
    assert "Traceback" not in server.log()
    assert verify(sqlite_floor.url).ok


def test_sqlite_disk_full_then_space_again(sqlite_floor: Floor, tmp_path: Path) -> None:
    """The server may not grow any file past its size (its file-size limit lowered with
    prlimit, EFBIG): a round is a 503 that says the disk refused the write."""
    path = Path(sa.engine.make_url(sqlite_floor.url).database or "")

    def fill_up(server: Server) -> Callable[[], None]:
        limit = max(f.stat().st_size for f in path.parent.glob(path.name + "*"))
        saved = {pid: resource.prlimit(pid, resource.RLIMIT_FSIZE) for pid in server.pids()}
        for pid, (_, hard) in saved.items():
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (limit, hard))

        def free() -> None:
            for pid, old in saved.items():
                resource.prlimit(pid, resource.RLIMIT_FSIZE, old)
        return free

    full_then_freed(sqlite_floor, tmp_path, "sqlite-file-limit", fill_up, threads=4,
                    refusal="could not write to its disk")


@contextmanager
def small_volume(size_mb: int) -> Iterator[Path]:
    """A folder on its own tmpfs of ``size_mb``: a volume that fills up. Needs root (mount),
    as the tests have on this machine kind."""
    folder = Path(tempfile.mkdtemp(prefix="da_full_"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs",
                              str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip(f"cannot mount a small volume here ({mounted.stderr.strip()})")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
        folder.rmdir()


def fill(folder: Path) -> Path:
    """Fill the volume of ``folder`` to the last byte; the filler file (delete it to free)."""
    filler = folder / "filler"
    with open(filler, "wb") as f, pytest.raises(OSError, match="No space left"):
        while True:
            f.write(b"\0" * 65536)
            f.flush()
    return filler


def full_then_freed(floor: Floor, tmp_path: Path, key: str,
                    fill_up: Callable[[Server], Callable[[], None]], *,
                    refusal: str = "out of disk space", **server: Any) -> None:
    """Serve ``floor`` and log a round; ``fill_up(server)`` fills the disk and returns how
    to free it; rounds go on until one is refused (a 503 saying ``refusal``, nothing of it
    written); once freed, the same Idempotency-Key logs it with the next serial, no trace
    was logged and the chain verifies."""
    app = Server(floor.url, tmp_path, **server).start()
    try:
        with Client(app.port, floor.tokens["dealer"], timeout=60) as api:
            assert api.request("POST", "/api/v1/tables/T1/rounds", round_json(1),
                               {"Idempotency-Key": f"{key}-1"})[0] == 201
            free = fill_up(app)
            try:
                refused = log_until_refused(api, floor, key, refusal)
            finally:
                free()
            status, body = api.request("POST", "/api/v1/tables/T1/rounds",
                                       round_json(refused),
                                       {"Idempotency-Key": f"{key}-{refused:05}"})
            assert status == 201 and body["serial"] == refused, body
    finally:
        app.stop()
    assert "Traceback" not in app.log()
    result = verify(floor.url)
    assert result.ok and result.rounds == refused


def log_until_refused(api: Client, floor: Floor, key: str, refusal: str) -> int:
    """On a full disk: log rounds 2, 3, ... (the room left in the pages already there
    takes a few) until one is refused; it must be a 503 saying ``refusal``, with no row of
    it written. Returns the refused round's number."""
    before = counts(floor.url)
    for i in range(2, 200):
        started = time.monotonic()
        status, body = api.request("POST", "/api/v1/tables/T1/rounds", round_json(i),
                                   {"Idempotency-Key": f"{key}-{i:05}"})
        if status == 201:
            before = counts(floor.url)
            continue
        assert_unavailable(status, body, started, 10)
        assert refusal in body["error"]["message"], body
        assert counts(floor.url) == before          # nothing half-written
        print(f"{key}: round {i} refused: {body['error']['message']}")
        return i
    raise AssertionError("the database kept writing on a full volume")


@contextmanager
def small_tablespace(size_mb: int) -> Iterator[str]:
    """A PostgreSQL tablespace on a small volume; its name. The tests' PostgreSQL runs on
    this machine."""
    from tests.security.floor import PG_URL as root_url

    name = f"da_full_{uuid.uuid4().hex[:8]}"
    with small_volume(size_mb) as folder:
        shutil.chown(folder, "postgres", "postgres")
        root = db.make_engine(root_url or "").execution_options(isolation_level="AUTOCOMMIT")
        try:
            with root.connect() as conn:
                conn.exec_driver_sql(f"CREATE TABLESPACE {name} LOCATION '{folder}'")
            try:
                yield name
            finally:
                with root.connect() as conn:
                    conn.exec_driver_sql(f"DROP TABLESPACE IF EXISTS {name}")
        finally:
            root.dispose()


def test_sqlite_volume_full_then_space_again(tmp_path: Path) -> None:
    """The volume holding the SQLite file fills up (a real ENOSPC, SQLITE_FULL): a round is
    a 503 that says so, nothing of it is written, and it logs with the next serial once
    space is freed."""
    from tests.security.floor import build_floor, cheap_hashing

    cheap_hashing()
    with small_volume(8) as folder:
        floor = build_floor("sqlite", folder, tables=("T1",))

        def fill_up(_: Server) -> Callable[[], None]:
            return fill(folder).unlink

        full_then_freed(floor, tmp_path, "sqlite-volume-full", fill_up, threads=4)


def move_schema(conn: sa.Connection, schema: str, space: str) -> None:
    """Every table and index of ``schema`` into tablespace ``space``."""
    for relation, kind in conn.exec_driver_sql(
            "SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind IN ('r', 'i')",
            (schema,)).all():
        what = "TABLE" if kind == "r" else "INDEX"
        conn.exec_driver_sql(f'ALTER {what} "{schema}"."{relation}" SET TABLESPACE {space}')


@pg_only
def test_postgresql_disk_full_then_space_again(pg_floor: Floor, tmp_path: Path) -> None:
    """The volume holding the hand log fills up (here: its tables and indexes moved to a
    4 MB volume, then a filler table takes the rest): a round is a clear 503 that says
    so, nothing of it is written, and it logs with the next serial once space is freed."""
    schema = pg_floor.schema
    assert schema
    owner = db.make_engine(pg_floor.url).execution_options(isolation_level="AUTOCOMMIT")
    with small_tablespace(4) as space:
        try:
            with owner.connect() as conn:
                move_schema(conn, schema, space)
                conn.exec_driver_sql(f"CREATE TABLE filler (b text) TABLESPACE {space}")
                conn.exec_driver_sql("ALTER TABLE filler ALTER b SET STORAGE PLAIN")

            def fill_up(_: Server) -> Callable[[], None]:
                with owner.connect() as conn, pytest.raises(sa.exc.OperationalError,
                                                            match="space"):
                    for _ in range(10_000):
                        conn.exec_driver_sql(
                            "INSERT INTO filler SELECT string_agg(md5(random()::text), '')"
                            " FROM generate_series(1, 60)")
                return drop_filler

            def drop_filler() -> None:
                with owner.connect() as conn:
                    conn.exec_driver_sql("DROP TABLE filler")

            full_then_freed(pg_floor, tmp_path, "pg-volume-full", fill_up, workers=1,
                            threads=4)
        finally:
            # off the small volume before it goes (the schema is dropped by the fixture)
            with owner.connect() as conn:
                conn.exec_driver_sql("DROP TABLE IF EXISTS filler")
                move_schema(conn, schema, "pg_default")
            owner.dispose()


@pg_only
def test_postgresql_fails_over_to_read_only_mid_shift(tmp_path: Path) -> None:
    """Mid-shift the database becomes a read-only standby (a failover: every connection
    dropped, the server that answers refuses writes): a round is a 503 saying the
    database is read-only, reads go on, nothing is written; when a writable server is back
    (connections dropped again), the same Idempotency-Key logs it with the next serial.
    A database of its own, so the read-only setting touches no other test."""
    from tests.security.floor import build_floor, cheap_hashing

    cheap_hashing()
    name = f"da_failover_{uuid.uuid4().hex[:8]}"
    url = sa.engine.make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    root = db.make_engine(PG_URL or "").execution_options(isolation_level="AUTOCOMMIT")

    def failover(read_only: bool) -> None:
        with root.connect() as conn:
            setting = "SET default_transaction_read_only = on" if read_only else "RESET ALL"
            conn.exec_driver_sql(f"ALTER DATABASE {name} {setting}")
            conn.exec_driver_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                 "WHERE datname = %s AND pid <> pg_backend_pid()", (name,))

    with root.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    try:
        floor = build_floor("postgresql", tmp_path, tables=("T1",), url=url)
        server = Server(url, tmp_path, workers=1, threads=4).start()
        try:
            with Client(server.port, floor.tokens["dealer"], timeout=60) as api:
                assert api.request("POST", "/api/v1/tables/T1/rounds", round_json(1),
                                   {"Idempotency-Key": "failover-1"})[0] == 201
                before = counts(url)
                failover(read_only=True)
                answers = []
                for _ in range(3):   # the first may meet a dropped connection
                    started = time.monotonic()
                    status, body = api.request("POST", "/api/v1/tables/T1/rounds",
                                               round_json(2), {"Idempotency-Key": "failover-2"})
                    assert_unavailable(status, body, started, 10)
                    answers.append(body["error"]["message"])
                assert "read-only" in answers[-1], answers
                status, _ = api.request("GET", "/api/v1/rounds?table=T1")
                assert status == 200                 # reads go on
                assert counts(url) == before
                print(f"PostgreSQL failed over to read-only: {answers[-1]}")
                failover(read_only=False)
                deadline = time.monotonic() + 20
                while True:
                    status, body = api.request("POST", "/api/v1/tables/T1/rounds",
                                               round_json(2), {"Idempotency-Key": "failover-2"})
                    if status != 503 or time.monotonic() > deadline:
                        break
                    time.sleep(0.5)
                assert status == 201 and body["serial"] == 2, body
        finally:
            server.stop()
        assert "Traceback" not in server.log()
        result = verify(url)
        assert result.ok and result.rounds == 2
    finally:
        with root.connect() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        root.dispose()


#: The longest a served request may wait on a PostgreSQL that is cut off (connections
#: refused: at once), or that never answers (the client's deadline, the statement timeout
#: plus its grace), with room for a loaded machine.
BOUND = {"cut": 8.0, "hung": db.SERVED_STATEMENT_TIMEOUT + db.PG_CLIENT_GRACE + 3}


@pg_only
@pytest.mark.parametrize("fault", ["cut", "hung"])
def test_postgresql_outage_then_back(pg_floor: Floor, tmp_path: Path, fault: str) -> None:
    """``cut``: the database is unreachable (connections reset, the port refuses).
    ``hung``: a hung server, or a link that stalls: the TCP connections stay open and
    acknowledged but nothing comes back, so keepalives cannot see it. Either way the API,
    the dealer screen's fetch and a dealer page answer 503 within BOUND, and logging
    resumes on the same Idempotency-Key, with the next serial, once it is back."""
    target = sa.engine.make_url(pg_floor.url).port or 5432
    proxy = Proxy(target).up()
    server = Server(_through(pg_floor.url, proxy.port), tmp_path, workers=1, threads=4)
    server.start()
    bound = BOUND[fault]
    web: requests.Session | None = None
    took: dict[str, float] = {}
    try:
        with Client(server.port, pg_floor.tokens["dealer"], timeout=60) as api:
            status, body = api.request("POST", "/api/v1/tables/T1/rounds", round_json(1),
                                       {"Idempotency-Key": f"{fault}-round-1"})
            assert status == 201, body
        web, csrf = signed_in(server.port)
        base = f"http://127.0.0.1:{server.port}"

        proxy.down() if fault == "cut" else proxy.freeze()
        with Client(server.port, pg_floor.tokens["dealer"], timeout=60) as api:
            for name, method, path, body in (
                    ("API log (pooled connection)", "POST", "/api/v1/tables/T1/rounds",
                     round_json(2)),
                    ("API read", "GET", "/api/v1/rounds?table=T1", None)):
                started = time.monotonic()
                status, answer = api.request(method, path, body,
                                             {"Idempotency-Key": f"{fault}-round-2"})
                assert_unavailable(status, answer, started, bound)
                took[name] = time.monotonic() - started
        started = time.monotonic()
        fetch = web.post(f"{base}/dealer/T1/rounds", json=round_json(2), timeout=60,
                         headers={"X-CSRFToken": csrf, "Idempotency-Key": f"{fault}-round-2"})
        assert_unavailable(fetch.status_code, fetch.json(), started, bound)
        took["screen fetch"] = time.monotonic() - started
        started = time.monotonic()
        page = web.get(f"{base}/dealer/T1", timeout=60, headers={"Accept": "text/html"})
        took["dealer page"] = time.monotonic() - started
        assert page.status_code == 503 and took["dealer page"] < bound, page.status_code
        assert "Traceback" not in page.text and "psycopg" not in page.text
        assert "database" in page.text.lower()
        print(f"PostgreSQL {fault}, 503 after: " + ", ".join(f"{k} {v:.1f} s"
                                                            for k, v in took.items()))

        proxy.up() if fault == "cut" else proxy.thaw()   # back: the pool reconnects itself
        with Client(server.port, pg_floor.tokens["dealer"], timeout=60) as api:
            deadline = time.monotonic() + 20
            while True:
                status, body = api.request("POST", "/api/v1/tables/T1/rounds", round_json(2),
                                           {"Idempotency-Key": f"{fault}-round-2"})
                if status != 503 or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            assert status == 201 and body["serial"] == 2, body
        fetch = web.post(f"{base}/dealer/T1/rounds", json=round_json(3), timeout=60,
                         headers={"X-CSRFToken": csrf, "Idempotency-Key": f"{fault}-round-3"})
        assert fetch.status_code == 201 and fetch.json()["serial"] == 3, fetch.text[:300]
    finally:
        if web is not None:
            web.close()
        server.stop()
        proxy.down()
    assert "Traceback" not in server.log()
    assert verify(pg_floor.url).ok


@pg_only
def test_postgresql_chain_locked_then_released(pg_floor: Floor, tmp_path: Path) -> None:
    """Another session holds the table's chain head (a stuck transaction): a round waits at
    most the served lock timeout (the statement timeout, 5 s), gets a 503, and logs once
    the lock is gone."""
    server = Server(pg_floor.url, tmp_path, workers=1, threads=4).start()
    holder = db.make_engine(pg_floor.url)
    try:
        with Client(server.port, pg_floor.tokens["dealer"], timeout=120) as api:
            assert api.request("POST", "/api/v1/tables/T1/rounds", round_json(1),
                               {"Idempotency-Key": "pg-locked-1"})[0] == 201
            with holder.connect() as conn:
                conn.exec_driver_sql("SELECT * FROM chain_heads FOR UPDATE").all()
                started = time.monotonic()
                status, body = api.request("POST", "/api/v1/tables/T1/rounds", round_json(2),
                                           {"Idempotency-Key": "pg-locked-2"})
                assert_unavailable(status, body, started, db.SERVED_STATEMENT_TIMEOUT + 3)
                took = time.monotonic() - started
                assert took >= db.SERVED_STATEMENT_TIMEOUT - 0.5, took   # it did wait
                print(f"PostgreSQL chain head locked: 503 after {took:.1f} s")
                conn.rollback()
            status, body = api.request("POST", "/api/v1/tables/T1/rounds", round_json(2),
                                       {"Idempotency-Key": "pg-locked-2"})
            assert status == 201 and body["serial"] == 2, body
    finally:
        holder.dispose()
        server.stop()
    assert verify(pg_floor.url).ok


@pytest.mark.parametrize("engine", ["sqlite", *(["postgresql"] if PG_URL else [])])
def test_read_only_database(engine: str, tmp_path: Path) -> None:
    """A read-only database: reads go on, every write (API, a sign-in, which is audited) is
    a clear 503, nothing is written. SQLite: a file system remounted read-only, opened here
    with ``mode=ro`` (the tests may run as root, whom file permissions do not stop).
    PostgreSQL: a standby after a failover, or a server set read-only, here by
    ``default_transaction_read_only`` on the app's connections (it was a 500 and a logged
    trace)."""
    from dealer_assist.web import create_app
    from dealer_assist.web.backend import get_backend
    from tests.security.floor import build_floor, cheap_hashing, counts, drop_pg_schema

    cheap_hashing()
    floor = build_floor(engine, tmp_path, tables=("T1",))
    url = sa.engine.make_url(floor.url)
    if engine == "sqlite":
        read_only = f"sqlite:///file:{url.database}?mode=ro&uri=true"
    else:
        options = f"{url.query['options']} -cdefault_transaction_read_only=on"
        read_only = url.update_query_dict({"options": options}).render_as_string(
            hide_password=False)
    app = create_app({"TESTING": True, "DATABASE_URL": read_only}, instance_path=tmp_path)
    before = counts(floor.url)
    try:
        client = app.test_client()
        auth = {"Authorization": f"Bearer {floor.tokens['supervisor']}"}
        assert client.get("/api/v1/rounds", headers=auth).status_code == 200
        for method, path_, body in (("POST", "/api/v1/tables/T1/rounds", round_json(1)),
                                    ("POST", "/api/v1/shifts/1/close", None)):
            started = time.monotonic()
            response = client.open(path_, method=method, json=body,
                                   headers={**auth, "Idempotency-Key": "read-only-1"})
            assert_unavailable(response.status_code, response.get_json(), started, 5)
            message = response.get_json()["error"]["message"]
            assert "readonly" in message or "read-only" in message, message
        page = client.get("/auth/login")
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
        assert csrf
        signed = client.post("/auth/login", data={"name": "sam", "password": PASSWORDS["sam"],
                                                  "csrf_token": csrf.group(1)})
        assert signed.status_code == 503, signed.status_code
        assert "Traceback" not in signed.text and "read" in signed.text.lower()
    finally:
        get_backend(app).close()
        after = counts(floor.url)
        if floor.schema:
            drop_pg_schema(floor.schema)
    assert after == before
