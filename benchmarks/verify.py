"""verify-log speed on a large log: the fast path (the database writes each record's
canonical text), alone and with worker processes, against the reference path (every value
read into Python and encoded there, as verify-log did before), in one run.

    .venv/bin/python benchmarks/verify.py [--rounds N] [--pg URL] [--sqlite FILE]
                                          [--skip-reference]

The log is loaded in bulk by ``benchmarks/store.py``'s loader (rows, digests and chain exactly
as ``log_round`` writes them). ``--sqlite FILE`` keeps (or reuses) the SQLite log in FILE, so
a 1,000,000-round log is loaded once. Times: wall seconds, and CPU seconds of this process
and of its workers. Target (issue #4): 1,000,000 rounds in under a minute.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dealer_assist import services
from dealer_assist.services import verify
from dealer_assist.store import db


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(url: str, *, fast: bool, workers: int) -> tuple[float, float, float, int, bool]:
    """(wall s, CPU s here, CPU s of workers, rounds, ok)."""
    verify.FAST = fast
    engine = db.make_engine(url)
    try:
        with db.session_factory(engine)() as session:
            c0, k0, t0 = time.process_time(), _children_cpu(), time.perf_counter()
            result = services.verify_log(session, workers=workers)
            return (time.perf_counter() - t0, time.process_time() - c0, _children_cpu() - k0,
                    result.rounds, result.ok)
    finally:
        verify.FAST = True
        engine.dispose()


def ensure_log(url: str, rounds: int) -> float:
    """Load ``rounds`` rounds unless the log already holds them; the load's seconds."""
    engine = db.make_engine(url)
    try:
        db.upgrade(engine)
        with engine.connect() as conn:
            have = conn.execute(sa.text("SELECT count(*) FROM rounds")).scalar() or 0
    finally:
        engine.dispose()
    if have >= rounds:
        return 0.0
    if have:
        raise SystemExit(f"{url} holds {have} rounds, not {rounds}: use another file")
    import store

    store.prepare(url, 1)
    return store.bulk_load(url, rounds)


def measure(name: str, url: str, rounds: int, reference: bool) -> list[str]:
    loaded = ensure_log(url, rounds)
    lines = [f"{name}: {rounds:,} rounds" + (f" (bulk load {loaded:.0f} s)" if loaded else "")]
    cases = [("fast, one process", True, 0), (f"fast, {os.cpu_count()} workers", True,
                                              os.cpu_count() or 1)]
    if reference:
        cases.append(("reference (before)", False, 0))
    results = {}
    for label, fast, workers in cases:
        wall, cpu, child, count, ok = run(url, fast=fast, workers=workers)
        results[label] = wall
        per_million = wall / max(count, 1) * 1_000_000
        lines.append(f"  {label:22} {wall:7.1f} s wall  {cpu:7.1f} s CPU here  {child:7.1f} s CPU "
                     f"in workers  {'OK' if ok else 'FAILED'}  -> {per_million:5.0f} s per 1M")
    if reference:
        base = results["reference (before)"]
        for label, wall in results.items():
            if label != "reference (before)":
                lines.append(f"  {label}: {base / wall:.1f}x faster than the reference")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200_000)
    parser.add_argument("--pg", default=os.environ.get("DATABASE_URL_POSTGRES"))
    parser.add_argument("--sqlite", type=Path, default=None,
                        help="keep or reuse the SQLite log in this file")
    parser.add_argument("--only", choices=["sqlite", "postgresql"], default=None)
    parser.add_argument("--skip-reference", action="store_true")
    args = parser.parse_args()
    out: list[str] = []
    if args.only in (None, "sqlite"):
        folder = Path(tempfile.mkdtemp(prefix="da-verify-"))
        path = args.sqlite or folder / "log.sqlite3"
        try:
            out += measure("sqlite", f"sqlite:///{path.resolve()}", args.rounds,
                           not args.skip_reference)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if args.pg and args.only in (None, "postgresql"):
        schema = f"da_verify_{uuid.uuid4().hex[:8]}"
        admin = db.make_engine(args.pg)
        with admin.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        url = sa.engine.make_url(args.pg).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
        try:
            out += measure("postgresql", url, args.rounds, not args.skip_reference)
        finally:
            with admin.begin() as conn:
                conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
            admin.dispose()
    print(f"cores: {os.cpu_count()}, load average at end: {os.getloadavg()[0]:.1f}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
