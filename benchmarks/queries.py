"""Hand-history search speed on a large log, SQLite and PostgreSQL side by side.

    .venv/bin/python benchmarks/queries.py [--rounds 1000000] [--pg URL] [--keep DIR]

Builds a log of ``--rounds`` rounds (10 tables, shifts of 5,000 rounds, 1-7 seats each,
stakes on every bet type, nets from the domain's batch settlement, a sprinkle of voids,
corrections, logged and declared misdeals) by bulk insert through the migrated schema,
then times every search the history screen and ``GET /api/v1/rounds`` offer
(:func:`dealer_assist.services.history.search`, first page of 50, best of 5 runs after a
warm-up) and the dispute page's read of one round. Target: every query within 100 ms.

PostgreSQL is measured when ``--pg`` or ``DATABASE_URL_POSTGRES`` gives a URL (a scratch
schema is created and dropped unless ``--keep-pg``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dealer_assist import services
from dealer_assist.domain.batch import settle_batch
from dealer_assist.domain.rulesets import DEFAULT_RULES
from dealer_assist.services.history import HistoryQuery, search
from dealer_assist.store import db

TABLES = 10
SHIFT_ROUNDS = 5_000
START = datetime(2025, 1, 1, tzinfo=UTC)
STEP = timedelta(seconds=6)  # one round every 6 s somewhere on the floor
TARGET_MS = 100.0


def card_name(index: int) -> str:
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    return ranks[index // 4] + "CDHS"[index % 4]


# ---------------------------------------------------------------- building the log

def prepare(url: str) -> tuple[int, list[int], int]:
    engine = db.make_engine(url)
    db.upgrade(engine)
    with db.session_factory(engine)() as s:
        services.create_user(s, "bench", ["dealer", "supervisor"], None)
        for t in range(TABLES):
            services.create_table(s, f"Q{t}", 7)
        user_id = int(s.scalar(sa.text("SELECT id FROM users WHERE name = 'bench'")))
        table_ids = [int(x) for x in s.scalars(sa.text("SELECT id FROM gaming_tables "
                                                       "ORDER BY id"))]
        version = int(s.scalar(sa.text("SELECT ruleset_version_id FROM gaming_tables LIMIT 1")))
    engine.dispose()
    return user_id, table_ids, version


def generate(n: int, seed: int = 7) -> dict[str, Any]:
    """Rounds and seats as numpy columns (cards dealt from one shuffled deck per round)."""
    rng = np.random.default_rng(seed)
    decks = np.argsort(rng.random((n, 52)), axis=1)[:, :24].astype(np.int64)
    seats_in = rng.random((n, 7)) < 0.7
    seats_in[~seats_in.any(axis=1), 0] = True
    dealer = decks[:, :3]
    r_idx, s_idx = np.nonzero(seats_in)
    player = decks[r_idx[:, None], 3 + 3 * s_idx[:, None] + np.arange(3)[None, :]]
    m = len(r_idx)
    ante = rng.choice(np.array([500, 1000, 2500, 5000, 10000]), m)
    pair_plus = np.where(rng.random(m) < 0.5, rng.choice(np.array([500, 1000, 2500]), m), 0)
    six = np.where(rng.random(m) < 0.2, 500, 0)
    prime = np.where(rng.random(m) < 0.1, 500, 0)
    ranks = np.sort(player // 4, axis=1)[:, ::-1]
    play = (ranks[:, 0] >= 10) | (ranks[:, 0] == ranks[:, 1]) | (ranks[:, 1] == ranks[:, 2])
    nets = settle_batch(DEFAULT_RULES, dealer=dealer[r_idx], player=player, ante=ante,
                        play=play, pair_plus=pair_plus, six_card=six, prime=prime)
    totals = np.zeros(n, dtype=np.int64)
    np.add.at(totals, r_idx, nets.sum(axis=1))
    return {"dealer": dealer, "r_idx": r_idx, "seat": s_idx + 1, "player": player,
            "ante": ante, "play": play, "pair_plus": pair_plus, "six": six, "prime": prime,
            "nets": nets, "totals": totals, "misdeal": rng.random(n) < 0.001,
            "rng": rng}


def _cards(row: np.ndarray[Any, Any]) -> str:
    return " ".join(card_name(int(c)) for c in row)


def load(url: str, n: int) -> dict[str, Any]:
    user_id, table_ids, version = prepare(url)
    t0 = time.perf_counter()
    g = generate(n)
    # Round i: table i % TABLES, serial i // TABLES + 1, shift by serial.
    table_of = np.arange(n) % TABLES
    serial = np.arange(n) // TABLES + 1
    shift_no = (serial - 1) // SHIFT_ROUNDS
    shifts_per_table = int(shift_no.max()) + 1
    engine = db.make_engine(url)
    shift_ids: dict[tuple[int, int], int] = {}
    with engine.begin() as conn:
        sid = 0
        for t in range(TABLES):
            for k in range(shifts_per_table):
                sid += 1
                opened = START + STEP * (k * SHIFT_ROUNDS * TABLES)
                closed = None if k == shifts_per_table - 1 else \
                    START + STEP * ((k + 1) * SHIFT_ROUNDS * TABLES)
                conn.execute(sa.text(
                    "INSERT INTO shifts (id, table_id, opened_at, opened_by_id, dealers, "
                    "opening_inventory, closed_at, closed_by_id, closing_inventory) VALUES "
                    "(:id, :t, :o, :u, '[]', '{}', :c, :cu, :ci)"),
                    {"id": sid, "t": table_ids[t], "o": _db_time(conn, opened), "u": user_id,
                     "c": None if closed is None else _db_time(conn, closed),
                     "cu": None if closed is None else user_id,
                     "ci": None if closed is None else "{}"})
                shift_ids[(t, k)] = sid
    print(f"  generated and settled {n:,} rounds / {len(g['r_idx']):,} seats "
          f"in {time.perf_counter() - t0:.1f} s", flush=True)
    t0 = time.perf_counter()
    rounds_cols = ("id", "table_id", "serial", "shift_id", "ruleset_version_id", "dealer_cards",
                   "dealer_c1", "dealer_c2", "dealer_c3", "misdeal", "misdeal_reason",
                   "entered_by_id", "at", "source", "request_sha256", "total")
    seat_cols = ("round_id", "seat", "cards", "c1", "c2", "c3", "ante", "play", "pair_plus",
                 "six_card", "prime", "net_ante", "net_play", "net_ante_bonus",
                 "net_pair_plus", "net_six_card", "net_prime")
    sha = "0" * 64

    def round_rows(lo: int, hi: int) -> list[tuple[Any, ...]]:
        out = []
        for i in range(lo, hi):
            d = g["dealer"][i]
            misdeal = bool(g["misdeal"][i])
            out.append((i + 1, table_ids[table_of[i]], int(serial[i]),
                        shift_ids[(int(table_of[i]), int(shift_no[i]))], version, _cards(d),
                        int(d[0]), int(d[1]), int(d[2]), misdeal,
                        "card exposed" if misdeal else "", user_id, START + STEP * i,
                        "simulated", sha, 0 if misdeal else int(g["totals"][i])))
        return out

    def seat_rows(lo: int, hi: int) -> list[tuple[Any, ...]]:
        out = []
        nets = g["nets"]
        for j in range(lo, hi):
            p = g["player"][j]
            i = int(g["r_idx"][j])
            zero = bool(g["misdeal"][i])
            net = [0] * 6 if zero else [int(x) for x in nets[j]]
            out.append((i + 1, int(g["seat"][j]), _cards(p), int(p[0]), int(p[1]), int(p[2]),
                        int(g["ante"][j]), bool(g["play"][j]), int(g["pair_plus"][j]),
                        int(g["six"][j]), int(g["prime"][j]), *net))
        return out

    _bulk(engine, "rounds", rounds_cols, round_rows, n)
    print(f"  rounds in {time.perf_counter() - t0:.1f} s", flush=True)
    _bulk(engine, "seat_entries", seat_cols, seat_rows, len(g["r_idx"]))
    print(f"  seats in {time.perf_counter() - t0:.1f} s", flush=True)
    # Voids, corrections (with their replacement rounds), declared misdeals.
    rng = g["rng"]
    picks = rng.choice(n, 700, replace=False)
    with engine.begin() as conn:
        next_id = n + 1
        for k, rid in enumerate(picks):
            kind = "void" if k < 400 else ("correction" if k < 600 else "misdeal")
            replacement = None
            if kind == "correction":
                row = list(round_rows(int(rid), int(rid) + 1)[0])
                row[0] = replacement = next_id
                row[2] = int(serial.max()) + 1 + k  # serials past the end, unique per table
                conn.execute(sa.text(
                    f"INSERT INTO rounds ({', '.join(rounds_cols)}) VALUES "
                    f"({', '.join(':' + c for c in rounds_cols)})"),
                    dict(zip(rounds_cols, row, strict=True)))
                next_id += 1
            conn.execute(sa.text(
                "INSERT INTO round_events (round_id, kind, reason, actor_id, at, "
                "replacement_round_id) VALUES (:r, :k, 'bench', :u, :at, :rep)"),
                {"r": int(rid) + 1, "k": kind, "u": user_id,
                 "at": _db_time(conn, START + STEP * int(rid) + timedelta(minutes=5)),
                 "rep": replacement})
        if engine.dialect.name == "postgresql":
            conn.exec_driver_sql("SELECT setval(pg_get_serial_sequence('rounds', 'id'), "
                                 "(SELECT max(id) FROM rounds))")
        conn.exec_driver_sql("ANALYZE")
    print(f"  loaded in {time.perf_counter() - t0:.1f} s", flush=True)
    engine.dispose()
    return {"tables": [f"Q{t}" for t in range(TABLES)], "shift_ids": shift_ids,
            "shifts_per_table": shifts_per_table, "void_id": int(picks[0]) + 1}


def _db_time(conn: sa.Connection, at: datetime) -> Any:
    return at.replace(tzinfo=None) if conn.dialect.name == "sqlite" else at


def _bulk(engine: sa.Engine, table: str, cols: tuple[str, ...],
          rows: Callable[[int, int], list[tuple[Any, ...]]], total: int) -> None:
    chunk = 50_000
    if engine.dialect.name == "postgresql":
        raw = engine.raw_connection()
        try:
            cur = raw.cursor()
            with cur.copy(f"COPY {table} ({', '.join(cols)}) FROM STDIN") as copy:  # type: ignore[attr-defined]
                for lo in range(0, total, chunk):
                    for row in rows(lo, min(total, lo + chunk)):
                        copy.write_row(row)
            raw.commit()
        finally:
            raw.close()
        return
    sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
    raw = engine.raw_connection()
    try:
        cur = raw.cursor()
        cur.execute("PRAGMA synchronous = OFF")
        cur.execute("BEGIN")
        for lo in range(0, total, chunk):
            batch = [tuple(v.replace(tzinfo=None).isoformat(sep=" ")
                           if isinstance(v, datetime) else v for v in row)
                     for row in rows(lo, min(total, lo + chunk))]
            cur.executemany(sql, batch)
        raw.commit()
    finally:
        raw.close()


# ---------------------------------------------------------------- timing

def queries(info: dict[str, Any], n: int) -> list[tuple[str, HistoryQuery]]:
    mid = START + STEP * (n // 2)
    t0 = info["tables"][3]
    shift = info["shift_ids"][(3, info["shifts_per_table"] // 2)]
    return [
        ("newest rounds, no filter", HistoryQuery()),
        ("one table", HistoryQuery(table=t0)),
        ("one shift", HistoryQuery(shift_id=shift)),
        ("time range (1 hour, mid-log)", HistoryQuery(since=mid, until=mid + timedelta(hours=1))),
        ("table + time range", HistoryQuery(table=t0, since=mid,
                                            until=mid + timedelta(hours=8))),
        ("seat 7", HistoryQuery(seat=7)),
        ("a card (AS), anywhere", HistoryQuery(card="AS")),
        ("a card in seat 3 at a table", HistoryQuery(table=t0, seat=3, card="QH")),
        ("bet: six card", HistoryQuery(bet="six_card")),
        ("bet: prime, seat 2, one shift", HistoryQuery(bet="prime", seat=2, shift_id=shift)),
        ("payout >= $50", HistoryQuery(min_payout=5_000)),
        ("payout >= $1,000", HistoryQuery(min_payout=100_000)),
        ("payout >= $2,500, one table", HistoryQuery(table=t0, min_payout=250_000)),
        ("payout >= $10,000 (none)", HistoryQuery(min_payout=1_000_000)),
        ("status voided", HistoryQuery(status="voided")),
        ("status corrected", HistoryQuery(status="corrected")),
        ("status misdeal", HistoryQuery(status="misdeal")),
        ("status settled", HistoryQuery(status="settled")),
        ("voided at one table", HistoryQuery(status="voided", table=t0)),
        ("everything: table, shift, seat, card, bet, payout, settled",
         HistoryQuery(table=t0, shift_id=shift, seat=1, card="KD", bet="pair_plus",
                      min_payout=1_000, status="settled")),
        ("seat 7, prime, payout >= $20, a card", HistoryQuery(seat=7, bet="prime",
                                                                min_payout=2_000, card="2C")),
        ("empty time range", HistoryQuery(since=START - timedelta(days=9),
                                          until=START - timedelta(days=8))),
    ]


def best_ms(fn: Callable[[], object], runs: int = 5) -> float:
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return min(times)


def measure(url: str, info: dict[str, Any], n: int) -> dict[str, tuple[float, int]]:
    engine = db.make_engine(url)
    out: dict[str, tuple[float, int]] = {}
    try:
        with db.session_factory(engine)() as s:
            for name, q in queries(info, n):
                page = search(s, q)
                out[name] = (best_ms(lambda q=q: search(s, q)), len(page.rows))
            # Page 200 by the cursor (each page costs the same).
            page = search(s, HistoryQuery(table=info["tables"][1]))
            pages = min(200, n // TABLES // 50 - 1)
            for _ in range(pages - 1):
                assert page.next_before is not None
                page = search(s, HistoryQuery(table=info["tables"][1], before=page.next_before))
            before = page.next_before
            out[f"page {pages} of one table (cursor)"] = (
                best_ms(lambda: search(s, HistoryQuery(table=info["tables"][1],
                                                       before=before))), 50)
            rid = info["void_id"]
            out["dispute page read (get_round)"] = (
                best_ms(lambda: services.get_round(s, rid)), 1)
    finally:
        engine.dispose()
    return out


def run_engine(label: str, url: str, n: int) -> dict[str, tuple[float, int]]:
    print(f"{label}: building {n:,} rounds", flush=True)
    info = load(url, n)
    return measure(url, info, n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--pg", default=os.environ.get("DATABASE_URL_POSTGRES"))
    parser.add_argument("--keep", help="keep the SQLite file in this folder")
    parser.add_argument("--keep-pg", action="store_true")
    args = parser.parse_args()

    results: dict[str, dict[str, tuple[float, int]]] = {}
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="da-queries-"))
    folder.mkdir(parents=True, exist_ok=True)
    sqlite_file = folder / "queries.sqlite3"
    sqlite_file.unlink(missing_ok=True)
    results["SQLite"] = run_engine("SQLite", f"sqlite:///{sqlite_file}", args.rounds)
    if args.pg:
        schema = f"da_queries_{uuid.uuid4().hex[:8]}"
        root = db.make_engine(args.pg)
        with root.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        url = sa.engine.make_url(args.pg).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
        try:
            results["PostgreSQL"] = run_engine("PostgreSQL", url, args.rounds)
        finally:
            if not args.keep_pg:
                with root.begin() as conn:
                    conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
            root.dispose()
    if not args.keep:
        sqlite_file.unlink(missing_ok=True)

    engines = list(results)
    names = list(next(iter(results.values())))
    width = max(len(n) for n in names)
    print(f"\nHistory search, {args.rounds:,} rounds, first page of 50, best of 5 (ms)")
    print(f"{'query':<{width}}  " + "  ".join(f"{e:>12}" for e in engines) + "  rows")
    worst = 0.0
    for name in names:
        cells = []
        for e in engines:
            ms, _ = results[e][name]
            worst = max(worst, ms)
            cells.append(f"{ms:>10.1f}{' !' if ms > TARGET_MS else '  '}")
        print(f"{name:<{width}}  " + "  ".join(cells) + f"  {results[engines[0]][name][1]}")
    print(f"\nslowest: {worst:.1f} ms (target {TARGET_MS:.0f} ms) -> "
          f"{'OK' if worst <= TARGET_MS else 'TOO SLOW'}")


if __name__ == "__main__":
    main()
