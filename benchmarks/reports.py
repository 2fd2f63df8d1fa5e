"""Report speed and memory: a 10,000-round shift report (target <= 2 s) and a floor day of
100 tables x 1,000 rounds (target <= 30 s), with peak memory at several day sizes against
the naive approach (every row loaded as ORM objects), side by side.

    .venv/bin/python benchmarks/reports.py [--db PATH] [--rounds 10000] [--tables 10,30,100]

The data is logged through the hand log's own write path (``services.rounds`` settles each
round with the domain and appends its audit event; whole batches per transaction instead of
one commit per round, so building takes a minute, not an hour) into a SQLite file that is
kept and reused (``--db``; delete it to rebuild). Rounds are spread over an 8-hour shift.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sqlalchemy as sa
from sqlalchemy import event, orm

from dealer_assist import reports, services
from dealer_assist.services import reporting
from dealer_assist.services._base import write
from dealer_assist.services.rounds import _insert_round, _settle, _table_info, _Who
from dealer_assist.services.simulate import simulated_round
from dealer_assist.store import db
from dealer_assist.store.audit import lock_head
from dealer_assist.store.models import User, table_chain

BATCH = 2_000
SHIFT = timedelta(hours=8)
INVENTORY = {100: 500, 500: 1000, 2500: 1000, 10000: 400, 100000: 100}


def engine_for(path: Path) -> sa.Engine:
    engine = db.make_engine(f"sqlite:///{path}")

    @event.listens_for(engine, "connect")
    def _fast(dbapi_conn: Any, _record: Any) -> None:  # bulk building only: no fsync
        dbapi_conn.execute("PRAGMA synchronous = OFF")

    return engine


def log_shift(session: orm.Session, table: str, rounds: int, start: datetime,
              seed: int) -> int:
    """Open a shift at ``start``, log ``rounds`` rounds through the store's write path in
    batches, close it 8 hours later with the inventory that reconciles; return its id."""
    rng = random.Random(seed)
    shift = services.open_shift(session, table=table, user="pit", opening_inventory=INVENTORY,
                                dealers=["dana", "dev"], at=start)
    dealers = [_Who(session.scalar(sa.select(User.id).where(User.name == n)) or 0, n)
               for n in ("dana", "dev")]
    with write(session):
        info = _table_info(session, table)
    from dealer_assist.services._base import rules_from_text

    rules = rules_from_text(info.rules_json)
    step = SHIFT / (rounds + 1)
    net = 0
    for first in range(0, rounds, BATCH):
        with write(session):
            head = lock_head(session, table_chain(info.id))
            for i in range(first, min(rounds, first + BATCH)):
                entry, settlement = _settle(simulated_round(rng, info.seats, rules), info)
                _logged, head = _insert_round(
                    session, info=info, entry=entry, settlement=settlement,
                    user=dealers[(i * 2) // max(rounds, 1)], source="simulated",
                    photo_sha256=None, idempotency_key=None, request_sha="0" * 64, head=head,
                    at=start + step * (i + 1))
                net += settlement.total
    win = -net
    closing = dict(INVENTORY)
    value = sum(d * c for d, c in INVENTORY.items()) + win
    closing = {100000: value // 100000, 100: (value % 100000) // 100, 1: value % 100}
    services.close_shift(session, table=table, user="pit", closing_inventory=closing,
                         at=start + SHIFT)
    return shift.id


def build(path: Path, rounds: int, day_sizes: list[int]) -> dict[str, Any]:
    engine = engine_for(path)
    db.upgrade(engine)
    session = db.session_factory(engine)()
    started = time.perf_counter()
    services.update_settings(session, name="Benchmark Casino", time_zone="America/New_York")
    services.create_user(session, "pit", ["supervisor", "dealer"], None)
    services.create_user(session, "dana", ["dealer"], None)
    services.create_user(session, "dev", ["dealer"], None)
    services.create_table(session, "BIG", 7)
    big = log_shift(session, "BIG", rounds, datetime(2024, 4, 30, 14, tzinfo=UTC), 1)
    days = {}
    for k, size in enumerate(day_sizes):
        day = date(2024, 5, 1) + timedelta(days=k)
        start = datetime(day.year, day.month, day.day, 14, tzinfo=UTC)  # 10:00 in New York
        for t in range(size):
            name = f"D{k}-T{t + 1:03d}"
            services.create_table(session, name, 7)
            log_shift(session, name, 1000, start, 1000 * k + t)
        days[size] = day.isoformat()
        print(f"  built day {day} with {size} tables x 1,000 rounds "
              f"({time.perf_counter() - started:.0f} s so far)", flush=True)
    session.close()
    engine.dispose()
    return {"big": big, "days": days}


CPU: list[float] = []


def measure(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Wall seconds (returned) and this process's CPU seconds (kept in CPU[-1]): on a
    shared, busy machine the CPU time is what the same run takes on an idle one."""
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    result = fn()
    CPU.append(time.process_time() - cpu)
    return time.perf_counter() - started, result


def peak(fn: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def naive_day(session: orm.Session, day: date) -> int:
    """The baseline: the day's rounds, seats and events loaded as ORM objects all at once
    (the obvious ``list(session.scalars(...))``), then summed."""
    from dealer_assist.domain.shift_math import gaming_day
    from dealer_assist.store.models import Round, RoundEvent, SeatEntry, Shift

    window = gaming_day(day, reporting.casino(session).time_zone)
    shifts = sa.select(Shift.id).where(Shift.opened_at >= window.start,
                                       Shift.opened_at < window.end)
    rounds = list(session.scalars(sa.select(Round).where(Round.shift_id.in_(shifts))))
    seats = list(session.scalars(sa.select(SeatEntry).join(Round).where(
        Round.shift_id.in_(shifts))))
    events = {e.round_id for e in session.scalars(sa.select(RoundEvent))}
    counted = {r.id for r in rounds if not r.misdeal and r.id not in events}
    win = -sum(s.total for s in seats if s.round_id in counted)
    session.rollback()
    return win


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=Path(tempfile.gettempdir())
                        / "dealer_assist_report_bench.sqlite3")
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--tables", default="10,30,100")
    args = parser.parse_args()
    sizes = [int(x) for x in args.tables.split(",")]
    meta_path = args.db.with_suffix(".meta")
    if not args.db.exists() or not meta_path.exists() or \
            meta_path.read_text() != f"{args.rounds}:{args.tables}":
        for p in (args.db, meta_path):
            if p.exists():
                p.unlink()
        print(f"building {args.db} (one shift of {args.rounds:,} rounds; days of "
              f"{args.tables} tables x 1,000 rounds)...", flush=True)
        meta = build(args.db, args.rounds, sizes)
        meta_path.write_text(f"{args.rounds}:{args.tables}")
    else:
        meta = None
    engine = engine_for(args.db)
    db.upgrade(engine)  # a kept database may predate a newer migration
    session = db.session_factory(engine)()
    if meta is None:
        from dealer_assist.store.models import GamingTable, Shift

        big = session.scalar(sa.select(Shift.id).join(GamingTable).where(
            GamingTable.name == "BIG"))
        meta = {"big": big, "days": {s: (date(2024, 5, 1) + timedelta(days=k)).isoformat()
                                     for k, s in enumerate(sizes)}}
    out = Path(tempfile.gettempdir())
    print(f"\nSQLite {args.db} ({os.path.getsize(args.db) / 1e6:,.0f} MB); Python "
          f"{sys.version.split()[0]}\n")

    print(f"{'shift report, ' + format(args.rounds, ',') + ' rounds':<44}{'wall s':>9}"
          f"{'CPU s':>8}{'target':>9}")
    # The first report of a process also imports reportlab, loads the fonts and analyses
    # the rule set (cached afterwards): shown apart.
    t_cold, _ = measure(lambda: reports.shift_report(session, meta["big"], out / "b.pdf",
                                                     verify=False))
    print(f"{'  PDF, first in the process (cold)':<44}{t_cold:>9.2f}{CPU[-1]:>8.2f}")
    t_fig, _ = measure(lambda: reporting.shift_figures(session, meta["big"], verify=False))
    print(f"{'  figures (streamed sums)':<44}{t_fig:>9.2f}{CPU[-1]:>8.2f}")
    t_pdf, _ = measure(lambda: reports.shift_report(session, meta["big"], out / "b.pdf",
                                                    verify=False))
    print(f"{'  PDF, no chain verification':<44}{t_pdf:>9.2f}{CPU[-1]:>8.2f}{'<= 2':>9}")
    t_all, fig = measure(lambda: reports.shift_report(session, meta["big"], out / "b.pdf"))
    print(f"{'  PDF with verify_log of the table':<44}{t_all:>9.2f}{CPU[-1]:>8.2f}{'<= 2':>9}   "
          f"({fig.chain.verify_summary[:40]}...)")
    t_naive, _ = measure(lambda: reporting.naive_shift_totals(session, meta["big"]))
    print(f"{'  naive: load all rows as ORM objects, sum':<44}{t_naive:>9.2f}{CPU[-1]:>8.2f}   "
          f"(totals only, no PDF)")

    print(f"\n{'floor day':<22}{'rounds':>9}{'PDF s':>7}{'CPU s':>7}{'+verify s':>10}"
          f"{'CPU s':>7}{'peak MB':>9}{'naive MB':>10}{'naive/streamed':>16}")
    for size, day_text in meta["days"].items():
        day = date.fromisoformat(day_text)
        t_day, figures = measure(lambda d=day: reports.day_report(session, d, out / "d.pdf",
                                                                  verify=False))
        c_day = CPU[-1]
        t_ver, _ = measure(lambda d=day: reports.day_report(session, d, out / "d.pdf"))
        c_ver = CPU[-1]
        streamed = peak(lambda d=day: reporting.day_figures(session, d, verify=False))
        naive = peak(lambda d=day: naive_day(session, d))
        print(f"{f'  {size} tables x 1,000':<22}{figures.total.rounds:>9,}{t_day:>7.2f}"
              f"{c_day:>7.2f}{t_ver:>10.2f}{c_ver:>7.2f}{streamed / 1e6:>9.1f}"
              f"{naive / 1e6:>10.1f}{naive / max(streamed, 1):>15.1f}x", flush=True)
    print("\npeak MB: Python heap (tracemalloc) while computing the day's figures; the naive "
          "baseline loads\neach shift's rounds and seats as ORM objects. Targets: 10k-round "
          "shift <= 2 s, 100-table day <= 30 s.")
    session.close()
    engine.dispose()


if __name__ == "__main__":
    main()
