"""SIGKILL the server (gunicorn master and workers) while client threads log rounds
concurrently; restart it; prove nothing acknowledged is lost or doubled, nothing is
half-written, serials have no gaps, the chain verifies, and a retry with the same
Idempotency-Key gets the original result."""

from __future__ import annotations

import http.client
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from dealer_assist.store import db
from tests.security.floor import Floor, round_json

from .server import COMMAND, Client, Server

CLIENTS = 9          # three per table: they contend for each table's serial
TABLES = ("T1", "T2", "T3")
ACKED = 50           # acknowledged rounds before the kill


@dataclass
class Sent:
    table: str
    key: str
    body: dict[str, Any]
    reply: dict[str, Any] | None = None     # the acknowledgement (201), if one came back
    error: str | None = None                # an answer other than 201 (none expected)


@dataclass
class Log:
    sent: list[Sent] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def dealer(port: int, token: str, table: str, n: int, log: Log, stop: threading.Event) -> None:
    with Client(port, token, timeout=20) as client:
        _deal(client, table, n, log, stop)


def _deal(client: Client, table: str, n: int, log: Log, stop: threading.Event) -> None:
    i = n * 100_000
    while not stop.is_set():
        i += 1
        item = Sent(table, f"crash-{uuid.uuid4().hex}", round_json(i))
        with log.lock:
            log.sent.append(item)
        try:
            status, body = client.request("POST", f"/api/v1/tables/{table}/rounds", item.body,
                                          {"Idempotency-Key": item.key})
        except (OSError, http.client.HTTPException):
            # The server is gone (refused, reset, or killed mid-answer: IncompleteRead):
            # this request is in doubt (sent, not acknowledged).
            return
        if status != 201:
            item.error = f"{status}: {body!r:.300}"
            return
        item.reply = body


def rows(url: str) -> tuple[list[Any], dict[int, int], set[int]]:
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            rounds = conn.execute(sa.text(
                "SELECT r.id, t.name, r.serial, r.idempotency_key FROM rounds r "
                "JOIN gaming_tables t ON t.id = r.table_id ORDER BY r.id")).all()
            seats = dict(conn.execute(sa.text(
                "SELECT round_id, count(*) FROM seat_entries GROUP BY round_id")).all())
            logged = {r[0] for r in conn.execute(sa.text(
                "SELECT round_id FROM audit_events WHERE action = 'round.logged'"))}
        return list(rounds), {int(k): int(v) for k, v in seats.items()}, logged
    finally:
        engine.dispose()


def test_sigkill_while_logging_loses_nothing(floor: Floor, tmp_path: Path) -> None:
    workers = 1 if floor.url.startswith("sqlite") else 2
    server = Server(floor.url, tmp_path, workers=workers, threads=8).start()
    log, stop = Log(), threading.Event()
    threads = [threading.Thread(target=dealer, args=(server.port, floor.tokens["dealer"],
                                                     TABLES[n % 3], n, log, stop))
               for n in range(CLIENTS)]
    try:
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:        # until a good number are acknowledged
            with log.lock:
                if sum(1 for s in log.sent if s.reply) >= ACKED:
                    break
            time.sleep(0.05)
        server.kill()                              # SIGKILL, mid-flight
        stop.set()
        for t in threads:
            t.join(timeout=30)
    finally:
        stop.set()
        server.kill()

    assert not [s.error for s in log.sent if s.error], server.log()[-3000:]
    acked = [s for s in log.sent if s.reply is not None]
    in_doubt = [s for s in log.sent if s.reply is None]
    assert len(acked) >= ACKED, server.log()[-3000:]

    # Restart on the same database: it comes up without any repair step.
    server = Server(floor.url, tmp_path, workers=workers, threads=8).start()
    try:
        rounds, seats, logged = rows(floor.url)
        by_key: dict[str, list[Any]] = {}
        for r in rounds:
            by_key.setdefault(r[3], []).append(r)
        # Every acknowledged round is there exactly once, as acknowledged.
        for s in acked:
            assert s.reply is not None
            found = by_key.get(s.key, [])
            assert len(found) == 1, (s.key, found)
            assert (found[0][0], found[0][1], found[0][2]) == (
                s.reply["round_id"], s.table, s.reply["serial"])
        # Nothing that was not sent; at most the in-doubt requests besides the acknowledged.
        assert all(len(v) == 1 for v in by_key.values())
        assert set(by_key) <= {s.key for s in log.sent}
        assert len(acked) <= len(rounds) <= len(acked) + len(in_doubt)
        # Nothing half-written: every round has its three seats and its audit event.
        assert all(seats.get(r[0]) == 3 for r in rounds), "a round without all its seats"
        assert {r[0] for r in rounds} <= logged, "a round without its audit event"
        # Serials gap-free per table.
        for table in TABLES:
            serials = sorted(r[2] for r in rounds if r[1] == table)
            assert serials == list(range(1, len(serials) + 1)), (table, serials)
        # verify-log, as an operator runs it.
        done = subprocess.run([COMMAND, "verify-log", "--database-url", floor.url],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr

        # Retries after the crash, with the same keys.
        with Client(server.port, floor.tokens["dealer"]) as client:
            retry(client, acked, in_doubt, by_key)
        rounds_after, _, _ = rows(floor.url)
        keys = [r[3] for r in rounds_after]
        assert len(keys) == len(set(keys)) == len(acked) + len(in_doubt)
        for table in TABLES:
            serials = sorted(r[2] for r in rounds_after if r[1] == table)
            assert serials == list(range(1, len(serials) + 1))
        done = subprocess.run([COMMAND, "verify-log", "--database-url", floor.url],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    finally:
        server.stop()


def retry(client: Client, acked: list[Sent], in_doubt: list[Sent],
          by_key: dict[str, list[Any]]) -> None:
    for s in acked[:20] + acked[-5:]:
        status, body = client.request("POST", f"/api/v1/tables/{s.table}/rounds", s.body,
                                      {"Idempotency-Key": s.key})
        assert s.reply is not None
        assert status == 200 and body["replayed"], (status, body)
        assert body["round_id"] == s.reply["round_id"]
        assert body["serial"] == s.reply["serial"]
        assert body["settlement"] == s.reply["settlement"]
    for s in in_doubt:     # sent but never answered: the retry logs it once, or replays
        status, body = client.request("POST", f"/api/v1/tables/{s.table}/rounds", s.body,
                                      {"Idempotency-Key": s.key})
        assert status in (200, 201), (status, body)
        assert body["replayed"] == (s.key in by_key)
