"""Hand-log speed, side by side with the bare floor of each engine.

    .venv/bin/python benchmarks/store.py [--pg URL] [--rounds N] [--verify-rounds N]

1. Rounds logged per second through ``services.log_round`` (validate, settle, next serial,
   round + seats + audit event, commit) with 1 writer and with 8 concurrent writers
   (8 processes, one table each, as 8 terminals on a floor), against the floor: a plain
   INSERT of the same rows (round, its seats, one audit event) and COMMIT, same engine and
   settings, no settlement, no locking. Ratio = floor rate / log_round rate (target <= 3).
2. ``verify_log`` time for a large log, loaded in bulk (rows, digests and chain computed
   exactly as log_round does, nets from the domain's batch path) then verified.

PostgreSQL is measured when ``--pg`` or ``DATABASE_URL_POSTGRES`` gives a URL (a scratch
schema is created and dropped).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dealer_assist import services
from dealer_assist.domain.batch import settle_batch
from dealer_assist.domain.cards import parse_cards
from dealer_assist.domain.rulesets import DEFAULT_RULES
from dealer_assist.services.simulate import simulated_round
from dealer_assist.store import db
from dealer_assist.store.audit import (
    canonical_event,
    canonical_json,
    chain_hash,
    round_digest,
)
from dealer_assist.store.models import AuditEvent, ChainHead, Round, SeatEntry

WRITERS = 8


# ---------------------------------------------------------------- set-up

def prepare(url: str, tables: int) -> None:
    engine = db.make_engine(url)
    db.upgrade(engine)
    with db.session_factory(engine)() as s:
        services.create_user(s, "bench", ["dealer", "supervisor"], None)
        for t in range(tables):
            services.create_table(s, f"B{t}", 7)
            services.open_shift(s, table=f"B{t}", user="bench")
    engine.dispose()


def workload(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rounds = []
    while len(rounds) < n:
        r = simulated_round(rng, 7, DEFAULT_RULES)
        if not r.get("misdeal"):
            rounds.append(r)
    return rounds


# ---------------------------------------------------------------- writers

def log_writer(url: str, table: str, n: int, seed: int, start: Any, out: Any) -> None:
    engine = db.make_engine(url)
    rounds = workload(n, seed)
    with db.session_factory(engine)() as s:
        services.log_round(s, table=table, round_json=rounds[0], user="bench")  # warm up
        start.wait()
        t0 = time.perf_counter()
        for r in rounds[1:]:
            services.log_round(s, table=table, round_json=r, user="bench")
        out.put(time.perf_counter() - t0)
    engine.dispose()


def floor_writer(url: str, table: str, n: int, seed: int, start: Any, out: Any) -> None:
    """The same rows, plainly inserted and committed: no settlement, chain or locking."""
    engine = db.make_engine(url)
    rounds = workload(n, seed)
    with engine.connect() as conn:
        table_id, shift_id = conn.execute(sa.text(
            "SELECT t.id, s.id FROM gaming_tables t JOIN shifts s ON s.table_id = t.id "
            "WHERE t.name = :n"), {"n": table}).one()
        conn.commit()
        base = 10_000_000 + seed * 100_000  # unique per run and writer
        ins_round = sa.insert(Round.__table__).returning(Round.__table__.c.id)
        ins_seat = sa.insert(SeatEntry.__table__)
        ins_event = sa.insert(AuditEvent.__table__)
        now = db_now()
        start.wait()
        t0 = time.perf_counter()
        for i, r in enumerate(rounds[1:]):
            with conn.begin():
                rid = conn.execute(ins_round, {
                    "table_id": table_id, "serial": base + i, "shift_id": shift_id,
                    "ruleset_version_id": 1, "dealer_cards": " ".join(r["dealer"]),
                    "dealer_c1": 0, "dealer_c2": 1, "dealer_c3": 2, "misdeal": False,
                    "misdeal_reason": "", "entered_by_id": 1, "at": now, "source": "manual",
                    "photo_sha256": None, "idempotency_key": None, "request_sha256": "0" * 64,
                    "total": 0}).scalar_one()
                conn.execute(ins_seat, [{
                    "round_id": rid, "seat": s["seat"], "cards": " ".join(s["cards"]),
                    "c1": 3, "c2": 4, "c3": 5, "ante": s["ante"], "play": s["play"],
                    "pair_plus": s.get("pair_plus", 0), "six_card": s.get("six_card", 0),
                    "prime": s.get("prime", 0), "net_ante": 0, "net_play": 0,
                    "net_ante_bonus": 0, "net_pair_plus": 0, "net_six_card": 0,
                    "net_prime": 0} for s in r["seats"]])
                conn.execute(ins_event, {
                    "chain": f"floor-bench-{table_id}", "seq": base + i, "at": now,
                    "actor": "bench", "action": "round.logged", "table_id": table_id,
                    "shift_id": shift_id, "round_id": rid, "digest": "0" * 64,
                    "payload": "{}", "prev_hash": "0" * 64, "hash": uuid.uuid4().hex * 2})
        out.put(time.perf_counter() - t0)
    engine.dispose()


def db_now() -> Any:
    from dealer_assist.store.models import utcnow

    return utcnow()


_RUNS = [0]


def run_writers(url: str, target: Any, writers: int, n: int) -> float:
    """Rounds per second of ``writers`` processes, each logging ``n`` rounds at its table."""
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(writers)
    out = ctx.Queue()
    _RUNS[0] += 1
    procs = [ctx.Process(target=target, args=(url, f"B{w}", n + 1, _RUNS[0] * 10 + w, start,
                                              out)) for w in range(writers)]
    for p in procs:
        p.start()
    times = [out.get(timeout=1800) for _ in procs]
    for p in procs:
        p.join()
    return writers * n / max(times)


# ---------------------------------------------------------------- bulk log for verify

def bulk_load(url: str, n: int, seed: int = 1) -> float:
    """Load ``n`` rounds at table B0 exactly as log_round would have written them."""
    t0 = time.perf_counter()
    engine = db.make_engine(url)
    rng = random.Random(seed)
    with engine.begin() as conn:
        table_id, shift_id = conn.execute(sa.text(
            "SELECT t.id, s.id FROM gaming_tables t JOIN shifts s ON s.table_id = t.id "
            "WHERE t.name = 'B0'")).one()
        seq, prev, serial = conn.execute(sa.text(
            "SELECT seq, hash, round_serial FROM chain_heads WHERE chain = :c"),
            {"c": f"table:{table_id}"}).one()
        user_id = conn.execute(sa.text("SELECT id FROM users WHERE name='bench'")).scalar_one()
        version = conn.execute(sa.text("SELECT ruleset_version_id FROM gaming_tables "
                                       "WHERE id = :t"), {"t": table_id}).scalar_one()
        next_id = (conn.execute(sa.text("SELECT max(id) FROM rounds")).scalar() or 0) + 1
    chain = f"table:{table_id}"
    at0 = db_now()
    chunk = 20_000
    for start in range(0, n, chunk):
        count = min(chunk, n - start)
        rounds = [simulated_round(rng, 7, DEFAULT_RULES) for _ in range(count)]
        flat = [(i, r, s) for i, r in enumerate(rounds) for s in r["seats"]]
        dealer = np.array([[c.index for c in parse_cards(r["dealer"])] for _, r, _ in flat])
        player = np.array([[c.index for c in parse_cards(s["cards"])] for _, _, s in flat])
        nets = settle_batch(
            DEFAULT_RULES, dealer=dealer, player=player,
            ante=np.array([s["ante"] for _, _, s in flat]),
            play=np.array([s["play"] for _, _, s in flat]),
            pair_plus=np.array([s.get("pair_plus", 0) for _, _, s in flat]),
            six_card=np.array([s.get("six_card", 0) for _, _, s in flat]),
            prime=np.array([s.get("prime", 0) for _, _, s in flat]),
            misdeal=np.array([bool(r.get("misdeal")) for _, r, _ in flat])).tolist()
        seats_of: dict[int, list[dict[str, Any]]] = {}
        for (i, _, s), net, p in zip(flat, nets, player.tolist(), strict=True):
            seats_of.setdefault(i, []).append({
                "seat": s["seat"], "cards": " ".join(s["cards"]), "c1": p[0], "c2": p[1],
                "c3": p[2], "ante": s["ante"], "play": s["play"],
                "pair_plus": s.get("pair_plus", 0), "six_card": s.get("six_card", 0),
                "prime": s.get("prime", 0), "net_ante": net[0], "net_play": net[1],
                "net_ante_bonus": net[2], "net_pair_plus": net[3], "net_six_card": net[4],
                "net_prime": net[5]})
        round_rows, seat_rows, event_rows = [], [], []
        for i, r in enumerate(rounds):
            rid, serial, seq = next_id, serial + 1, seq + 1
            next_id += 1
            d = [c.index for c in parse_cards(r["dealer"])]
            misdeal = bool(r.get("misdeal"))
            reason = r.get("misdeal_reason", "")
            seats = seats_of[i]
            total = sum(v for s in seats for k, v in s.items() if k.startswith("net_"))
            at = at0
            row = {"id": rid, "table_id": table_id, "serial": serial, "shift_id": shift_id,
                   "ruleset_version_id": version, "dealer_cards": " ".join(r["dealer"]),
                   "dealer_c1": d[0], "dealer_c2": d[1], "dealer_c3": d[2], "misdeal": misdeal,
                   "misdeal_reason": reason, "entered_by_id": user_id, "at": at,
                   "source": "simulated", "photo_sha256": None, "idempotency_key": None,
                   "request_sha256": "0" * 64, "total": total}
            round_rows.append(row)
            seat_rows += [{"round_id": rid, **s} for s in seats]
            digest = round_digest(
                (rid, table_id, serial, shift_id, version, row["dealer_cards"], d[0], d[1],
                 d[2], misdeal, reason, user_id, at, "simulated", None, None, total),
                [list(s.values()) for s in seats])
            payload = canonical_json({"serial": serial, "total": total, "seats": len(seats),
                                      "misdeal": misdeal, "source": "simulated"})
            text = canonical_event(chain=chain, seq=seq, at=at, actor="bench",
                                   action="round.logged", table_id=table_id, shift_id=shift_id,
                                   round_id=rid, digest=digest, payload=payload)
            new = chain_hash(prev, text)
            event_rows.append({"chain": chain, "seq": seq, "at": at, "actor": "bench",
                               "action": "round.logged", "table_id": table_id,
                               "shift_id": shift_id, "round_id": rid, "digest": digest,
                               "payload": payload, "prev_hash": prev, "hash": new})
            prev = new
        with engine.begin() as conn:
            conn.execute(sa.insert(Round.__table__), round_rows)
            conn.execute(sa.insert(SeatEntry.__table__), seat_rows)
            conn.execute(sa.insert(AuditEvent.__table__), event_rows)
            conn.execute(sa.update(ChainHead.__table__).where(ChainHead.chain == chain)
                         .values(seq=seq, hash=prev, round_serial=serial))
        print(f"    loaded {start + count:,} rounds", file=sys.stderr, flush=True)
    engine.dispose()
    return time.perf_counter() - t0


def verify_time(url: str) -> tuple[float, int, bool]:
    engine = db.make_engine(url)
    with db.session_factory(engine)() as s:
        result = services.verify_log(s)
    engine.dispose()
    return result.seconds, result.rounds, result.ok


# ---------------------------------------------------------------- main

def measure(name: str, url: str, verify_url: str, rounds: int,
            verify_rounds: int) -> list[str]:
    lines = []
    prepare(url, WRITERS)
    for writers, n in ((1, rounds), (WRITERS, max(rounds // 4, 20))):
        logged = run_writers(url, log_writer, writers, n)
        floor = run_writers(url, floor_writer, writers, n)
        lines.append(f"{name:10} {writers} writer{'s' if writers > 1 else ' '}  "
                     f"log_round {logged:8.0f}/s   floor {floor:8.0f}/s   "
                     f"ratio {floor / logged:5.2f}x")
    if verify_rounds:
        prepare(verify_url, 1)  # a clean log: the floor's bare rows would (rightly) fail
        loaded = bulk_load(verify_url, verify_rounds)
        c0 = time.process_time()
        seconds, count, ok = verify_time(verify_url)
        cpu = time.process_time() - c0
        per_million = seconds / count * 1_000_000
        lines.append(f"{name:10} verify-log {count:,} rounds in {seconds:.1f} s wall, "
                     f"{cpu:.1f} s CPU in this process ({'OK' if ok else 'FAILED'}; bulk load "
                     f"{loaded:.0f} s); {'measured' if count >= 1_000_000 else 'extrapolated'} "
                     f"1M rounds: {per_million:.0f} s wall")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", default=os.environ.get("DATABASE_URL_POSTGRES"))
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--verify-rounds", type=int, default=200_000)
    parser.add_argument("--only", choices=["sqlite", "postgresql"], default=None)
    args = parser.parse_args()
    out: list[str] = []
    if args.only in (None, "sqlite"):
        folder = Path(tempfile.mkdtemp(prefix="da-bench-"))
        try:
            out += measure("sqlite", db.default_sqlite_url(folder / "w"),
                           db.default_sqlite_url(folder / "v"), args.rounds, args.verify_rounds)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if args.pg and args.only in (None, "postgresql"):
        tag = uuid.uuid4().hex[:8]
        schemas = [f"da_bench_{tag}_w", f"da_bench_{tag}_v"]
        admin = db.make_engine(args.pg)
        with admin.begin() as conn:
            for schema in schemas:
                conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        urls = [sa.engine.make_url(args.pg).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
            for schema in schemas]
        try:
            out += measure("postgresql", urls[0], urls[1], args.rounds, args.verify_rounds)
        finally:
            with admin.begin() as conn:
                for schema in schemas:
                    conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
            admin.dispose()
    print(f"cores: {os.cpu_count()}, load average at end: {os.getloadavg()[0]:.1f}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
