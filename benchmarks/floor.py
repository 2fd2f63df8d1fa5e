"""A floor simulator against a served app: N tables of dealers logging rounds through the
HTTP API at a set pace, supervisors searching the history and voiding now and then, an
auditor pulling shift reports, for a fixed time. Per operation: count, p50/p99/max latency,
errors. Afterwards: verify-log, and every acknowledged round present exactly once with
gap-free serials.

    .venv/bin/python benchmarks/floor.py [--tables 100] [--pace 10] [--duration 60]
                                         [--engine sqlite|postgresql|both] [--pg URL]

``--pace`` multiplies a real table's speed (about one round a minute): 10 means each table
logs a round every 6 s. The load is open-loop: each table's rounds are due on a schedule
whatever the server does, so a slow server shows as latency (measured from when the round was
due, ``queued`` columns) rather than as fewer requests. Traffic goes to 127.0.0.1 only, the
server is ``dealer-assist serve`` (gunicorn: 1 worker x 16 threads on SQLite, 2 x 8 on
PostgreSQL by default), on a fresh database (a temporary SQLite file, or a new schema in the
PostgreSQL database, dropped afterwards). The clients run on the same machine as the
server, so they compete for the same cores: note the load average printed beside the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

# benchmarks/http.py is named like the standard library's ``http``: keep its folder off the path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

import argparse  # noqa: E402
import heapq  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import queue  # noqa: E402
import random  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections import defaultdict  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

PG_DEFAULT = os.environ.get("DATABASE_URL_POSTGRES",
                            "postgresql+psycopg://postgres@127.0.0.1:5432/test")
COMMAND = str(Path(sys.executable).with_name("dealer-assist"))
DEALERS = 10          # dealer accounts (each with an API token) shared by the tables
#: Hard bounds, whatever the arguments say.
MAX_DURATION = 1800.0
MAX_REQUESTS = 500_000


# ---------------------------------------------------------------- the floor

def build(url: str, tables: int) -> dict[str, Any]:
    """Users, tokens, tables and open shifts, written through the services."""
    from argon2 import PasswordHasher

    from dealer_assist import services
    from dealer_assist.services import admin
    from dealer_assist.store import db

    cheap = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
    admin._hasher = cheap  # type: ignore[attr-defined]  # setup speed only
    admin._DUMMY_HASH = cheap.hash("x")  # type: ignore[attr-defined]
    db.upgrade(url)
    engine = db.make_engine(url)
    out: dict[str, Any] = {"dealers": [], "tables": [], "shifts": {}}
    try:
        with db.session_factory(engine)() as session:
            services.update_settings(session, large_win_threshold=10_000_000)
            services.create_user(session, "sup", ["supervisor"], secret())
            services.create_user(session, "aud", ["auditor"], secret())
            out["supervisor"] = services.create_token(session, "sup")
            out["auditor"] = services.create_token(session, "aud")
            for d in range(DEALERS):
                services.create_user(session, f"dealer{d}", ["dealer"], secret())
                out["dealers"].append(services.create_token(session, f"dealer{d}"))
            for t in range(tables):
                name = f"T{t + 1:03}"
                services.create_table(session, name, 7)
                shift = services.open_shift(session, table=name, user="sup")
                out["tables"].append(name)
                out["shifts"][name] = shift.id
    finally:
        engine.dispose()
    return out


def secret() -> str:
    return uuid.uuid4().hex


def round_body(rng: random.Random) -> dict[str, Any]:
    from dealer_assist.domain.cards import DECK

    cards = [str(c) for c in rng.sample(DECK, 3 + 3 * 7)]
    seats = []
    for s in range(1, rng.randint(1, 7) + 1):
        seat: dict[str, Any] = {"seat": s, "cards": cards[3 * s: 3 * s + 3],
                                "ante": rng.choice([500, 1000, 2500]),
                                "play": rng.random() < 0.7}
        if rng.random() < 0.5:
            seat["pair_plus"] = rng.choice([500, 1000])
        if rng.random() < 0.2:
            seat["six_card"] = 500
        if rng.random() < 0.1:
            seat["prime"] = 500
        seats.append(seat)
    return {"dealer": cards[:3], "seats": seats}


# ---------------------------------------------------------------- server and client

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(url: str, folder: Path, workers: int, threads: int) -> tuple[subprocess.Popen[bytes],
                                                                         int]:
    port = free_port()
    log = open(folder / "server.log", "wb")  # noqa: SIM115 - the child keeps it
    proc = subprocess.Popen(
        [COMMAND, "serve", "--port", str(port), "--database-url", url, "--instance",
         str(folder), "--insecure-cookies", "--workers", str(workers), "--threads",
         str(threads)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "DEALER_ASSIST_SECRET_KEY": secret()})
    log.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return proc, port
            conn.close()
        except OSError:
            time.sleep(0.1)
    stop(proc)
    raise SystemExit("the server did not come up: see " + str(folder / "server.log"))


def cpu_seconds(proc: subprocess.Popen[bytes]) -> float:
    """User + system CPU of the gunicorn master and its workers so far (Linux /proc)."""
    pids = [proc.pid]
    try:
        pids += [int(p) for p in
                 Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
    except OSError:
        return float("nan")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


class Client:
    """Keep-alive HTTP/1.1. gunicorn closes a connection idle for 2 s; a request that finds
    its reused connection closed before any answer is sent again once on a new connection
    (safe: rounds carry an Idempotency-Key) and counted in ``reconnects``."""

    reconnects = 0
    #: Close the connection after every request (``--fresh-connections``).
    fresh = False

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, token: str, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        reused = self.conn is not None
        try:
            return self._request(method, path, token, body, headers)
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            if not reused:
                raise
            Client.reconnects += 1
            return self._request(method, path, token, body, headers)

    def _request(self, method: str, path: str, token: str, body: Any = None,
                 headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        all_headers = {"Authorization": f"Bearer {token}", "Accept": "application/json",
                       **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=all_headers)
            response = self.conn.getresponse()
            out = response.status, response.read()
            if Client.fresh:
                self.conn.close()
                self.conn = None
            return out
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = None
            raise


# ---------------------------------------------------------------- the load

@dataclass(order=True)
class Task:
    due: float
    kind: str = field(compare=False)
    table: str = field(compare=False, default="")


@dataclass
class Stats:
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    queued: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    error_samples: list[str] = field(default_factory=list)
    acked: list[tuple[str, int, str, int]] = field(default_factory=list)  # key, id, table, serial
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Requests due before this (the warm-up) count for errors and checks, not latency.
    measure_from: float = 0.0
    warmup_count: int = 0

    def record(self, kind: str, due: float, started: float, ended: float, ok: bool,
               detail: str = "") -> None:
        if due < self.measure_from and ok:
            with self.lock:
                self.warmup_count += 1
            return
        with self.lock:
            self.latency[kind].append(ended - started)
            self.queued[kind].append(ended - due)
            if not ok:
                self.errors[kind] += 1
                if len(self.error_samples) < 10:
                    self.error_samples.append(f"{kind}: {detail[:200]}")


def run_load(port: int, floor: dict[str, Any], args: argparse.Namespace) -> Stats:
    stats = Stats()
    rng = random.Random(args.seed)
    interval = 60.0 / args.pace
    start = time.monotonic() + 1.0
    end = start + args.warmup + min(args.duration, MAX_DURATION)
    stats.measure_from = start + args.warmup
    heap: list[Task] = [Task(start + rng.uniform(0, interval), "log_round", t)
                        for t in floor["tables"]]
    for s in range(args.supervisors):
        heap.append(Task(start + rng.uniform(0, 5), "search_history", str(s)))
        heap.append(Task(start + rng.uniform(5, 30), "void_round", str(s)))
    for a in range(args.auditors):
        heap.append(Task(start + rng.uniform(5, 20), "shift_report", str(a)))
    heapq.heapify(heap)
    work: queue.Queue[Task | None] = queue.Queue()
    acked_ids: list[int] = []
    ids_lock = threading.Lock()
    sent = [0]

    def worker(n: int) -> None:
        client = Client(port)
        wrng = random.Random(args.seed * 1000 + n)
        while True:
            task = work.get()
            if task is None:
                return
            started = time.monotonic()
            try:
                ok, detail = do(client, wrng, task)
            except Exception as exc:  # connection refused, reset, timeout: all errors
                ok, detail = False, f"{type(exc).__name__}: {exc}"
            stats.record(task.kind, task.due, started, time.monotonic(), ok, detail)

    def do(client: Client, wrng: random.Random, task: Task) -> tuple[bool, str]:
        if task.kind == "log_round":
            key = f"floor-{uuid.uuid4().hex}"
            token = floor["dealers"][hash(task.table) % DEALERS]
            status, raw = client.request("POST", f"/api/v1/tables/{task.table}/rounds", token,
                                         round_body(wrng), {"Idempotency-Key": key})
            if status == 201:
                body = json.loads(raw)
                with stats.lock:
                    stats.acked.append((key, body["round_id"], task.table, body["serial"]))
                with ids_lock:
                    acked_ids.append(body["round_id"])
                return True, ""
            return False, f"{status} {raw[:200]!r}"
        if task.kind == "search_history":
            table = wrng.choice(floor["tables"])
            query = wrng.choice([f"table={table}&limit=50", f"table={table}&seat=3&limit=50",
                                 "limit=100", f"shift_id={floor['shifts'][table]}&limit=50"])
            status, raw = client.request("GET", f"/api/v1/rounds?{query}", floor["supervisor"])
            return status == 200, f"{status} {raw[:200]!r}"
        if task.kind == "void_round":
            with ids_lock:
                candidates = list(acked_ids[-200:])
            if not candidates:
                return True, ""
            round_id = wrng.choice(candidates)
            status, raw = client.request("POST", f"/api/v1/rounds/{round_id}/void",
                                         floor["supervisor"], {"reason": "floor benchmark void"})
            # 409: already voided (two supervisors picked the same round): a correct refusal.
            return status in (200, 201, 409), f"{status} {raw[:200]!r}"
        if task.kind == "shift_report":
            table = wrng.choice(floor["tables"])
            status, raw = client.request(
                "GET", f"/api/v1/shifts/{floor['shifts'][table]}/report.pdf", floor["auditor"])
            return status == 200 and raw.startswith(b"%PDF"), f"{status} {raw[:100]!r}"
        raise AssertionError(task.kind)

    threads = [threading.Thread(target=worker, args=(n,), daemon=True)
               for n in range(args.clients)]
    for t in threads:
        t.start()
    period = {"search_history": 5.0, "void_round": 30.0, "shift_report": 20.0}
    while heap and sent[0] < MAX_REQUESTS:
        task = heapq.heappop(heap)
        if task.due >= end:
            continue
        delay = task.due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        work.put(task)
        sent[0] += 1
        if task.kind == "log_round":
            nxt = task.due + interval * rng.uniform(0.8, 1.2)
        else:
            nxt = task.due + period[task.kind] * rng.uniform(0.8, 1.2)
        heapq.heappush(heap, Task(nxt, task.kind, task.table))
    for _ in threads:
        work.put(None)
    for t in threads:
        t.join(timeout=120)
    return stats


# ---------------------------------------------------------------- checks and figures

def check(url: str, stats: Stats) -> tuple[bool, str]:
    import sqlalchemy as sa

    from dealer_assist import services
    from dealer_assist.store import db

    engine = db.make_engine(url)
    try:
        with db.session_factory(engine)() as session:
            result = services.verify_log(session)
        with engine.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT r.idempotency_key, r.id, t.name, r.serial FROM rounds r "
                "JOIN gaming_tables t ON t.id = r.table_id")).all()
    finally:
        engine.dispose()
    by_key: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    serials: dict[str, list[int]] = defaultdict(list)
    for key, rid, table, serial in rows:
        by_key[key].append((rid, table, serial))
        serials[table].append(serial)
    missing = [a for a in stats.acked if by_key.get(a[0]) != [(a[1], a[2], a[3])]]
    gaps = [t for t, s in serials.items() if sorted(s) != list(range(1, len(s) + 1))]
    ok = result.ok and not missing and not gaps
    return ok, (f"verify-log {'OK' if result.ok else 'FAILED'} ({result.rounds} rounds, "
                f"{result.events} events, {result.seconds:.1f} s); acknowledged "
                f"{len(stats.acked)}, present exactly once {len(stats.acked) - len(missing)}; "
                f"tables with serial gaps {len(gaps)}")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def report(engine: str, args: argparse.Namespace, stats: Stats, load: tuple[float, ...],
           elapsed: float) -> None:
    print(f"\n{engine}: {args.tables} tables at {args.pace:g}x real pace "
          f"(a round every {60 / args.pace:.1f} s per table, "
          f"{args.tables * args.pace / 60:.1f} rounds/s intended), {elapsed:.0f} s, "
          f"{args.workers_for(engine)} | load average before/after "
          f"{load[0]:.2f} / {load[1]:.2f} (1 min) on {os.cpu_count()} cores")
    print(f"  {'operation':<15} {'count':>7} {'rate/s':>7} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'max ms':>8} {'queued p99':>10} {'errors':>6}")
    for kind in ("log_round", "search_history", "void_round", "shift_report"):
        lat = stats.latency.get(kind, [])
        if not lat:
            continue
        print(f"  {kind:<15} {len(lat):>7} {len(lat) / elapsed:>7.1f} {pct(lat, 0.5):>8.1f} "
              f"{pct(lat, 0.99):>8.1f} {max(lat) * 1000:>8.1f} "
              f"{pct(stats.queued[kind], 0.99):>10.1f} {stats.errors.get(kind, 0):>6}")
    print(f"  warm-up: {args.warmup:g} s, {stats.warmup_count} requests not timed; "
          f"stale keep-alive connections re-sent on a new one: {Client.reconnects}")
    for sample in stats.error_samples:
        print(f"  error: {sample}")


def run(engine: str, args: argparse.Namespace) -> bool:
    import sqlalchemy as sa

    folder = Path(tempfile.mkdtemp(prefix=f"floor-{engine}-"))
    schema = None
    if engine == "sqlite":
        from dealer_assist.store import db

        url = db.default_sqlite_url(folder)
    else:
        from dealer_assist.store import db

        schema = f"floor_bench_{uuid.uuid4().hex[:8]}"
        root = db.make_engine(args.pg)
        with root.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        root.dispose()
        url = sa.engine.make_url(args.pg).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    try:
        floor = build(url, args.tables)
        workers, threads = args.server[engine]
        proc, port = serve(url, folder, workers, threads)
        try:
            before = os.getloadavg()[0]
            cpu = cpu_seconds(proc)
            started = time.monotonic()
            Client.reconnects = 0
            stats = run_load(port, floor, args)
            elapsed = time.monotonic() - started - 1.0 - args.warmup
            cpu = cpu_seconds(proc) - cpu
            after = os.getloadavg()[0]
        finally:
            stop(proc)
        report(engine, args, stats, (before, after), elapsed)
        wall = elapsed + args.warmup
        print(f"  server CPU: {cpu:.1f} s in {wall:.0f} s ({cpu / wall:.2f} cores), "
              f"{1000 * cpu / max(1, len(stats.acked)):.1f} ms "
              f"per logged round (all operations included)")
        ok, summary = check(url, stats)
        print(f"  {summary}")
        lat = stats.latency.get("log_round", [])
        errors = sum(stats.errors.values())
        print(f"  target (0 errors, p99 round logging <= 100 ms): "
              f"{'met' if errors == 0 and lat and pct(lat, 0.99) <= 100 else 'NOT met'}")
        return ok
    finally:
        if schema:
            from dealer_assist.store import db

            root = db.make_engine(args.pg)
            with root.begin() as conn:
                conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            root.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--pace", type=float, default=10.0,
                        help="times a real table's pace of one round a minute (default 10)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds (max 1800)")
    parser.add_argument("--engine", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--pg", default=PG_DEFAULT, help="PostgreSQL URL (a schema is made)")
    parser.add_argument("--supervisors", type=int, default=2)
    parser.add_argument("--auditors", type=int, default=1)
    parser.add_argument("--clients", type=int, default=32, help="client threads")
    parser.add_argument("--sqlite-server", default="1x16", help="workers x threads")
    parser.add_argument("--pg-server", default="2x8", help="workers x threads")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warmup", type=float, default=0.0,
                        help="seconds of load first whose latency is not counted (each "
                             "worker's first request loads code and tables: 120-430 ms)")
    parser.add_argument("--fresh-connections", action="store_true",
                        help="a new TCP connection for every request (no keep-alive)")
    args = parser.parse_args()
    Client.fresh = args.fresh_connections
    if not (1 <= args.tables <= 2000 and 0 < args.pace <= 1000 and args.duration > 0):
        parser.error("tables 1-2000, pace 0-1000, duration > 0")

    def split(text: str) -> tuple[int, int]:
        w, t = text.lower().split("x")
        return int(w), int(t)

    args.server = {"sqlite": split(args.sqlite_server), "postgresql": split(args.pg_server)}
    args.workers_for = lambda e: "gunicorn {} worker(s) x {} threads".format(*args.server[e])
    engines = ["sqlite", "postgresql"] if args.engine == "both" else [args.engine]
    ok = all([run(engine, args) for engine in engines])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
