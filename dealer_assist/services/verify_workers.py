"""verify-log on every core: worker processes check chunks of rounds while the calling
process walks the audit chains.

Each worker reads exactly what the caller's snapshot holds: on PostgreSQL it imports the
caller's snapshot (``pg_export_snapshot``); on SQLite, where one writer commits at a time
and ids only grow, the rounds up to the caller's last id are the same rows in any later
snapshot (nothing logged is updated or deleted; if an attacker changes a row while the
check runs, the worker's reading differs and that round goes to the caller's reference
check in its own snapshot).
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import sqlalchemy as sa

from dealer_assist.domain.rulesets import RuleSet, ruleset_from_json

from .verify import Checked, RoundQueries, check_chunk, read_chunk

_state: dict[str, Any] = {}


def start(conn: sa.Connection, queries: RoundQueries, bounds: list[tuple[int, int]],
          rules: dict[int, RuleSet], workers: int) -> Iterator[Checked]:
    """Start ``workers`` processes on ``bounds`` now; yield their results in order."""
    snapshot = None
    if conn.dialect.name == "postgresql":
        snapshot = conn.exec_driver_sql("SELECT pg_export_snapshot()").scalar()
    url = conn.engine.url.render_as_string(hide_password=False)
    # A RuleSet holds read-only mappings, which do not pickle: send each as its JSON.
    texts = {version: ruleset.canonical_json() for version, ruleset in rules.items()}
    pool = ProcessPoolExecutor(max_workers=workers,
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=_open, initargs=(url, snapshot, queries, texts))
    futures = [pool.submit(_check, lo, hi) for lo, hi in bounds]
    return _results(pool, futures)


def _results(pool: ProcessPoolExecutor, futures: list[Any]) -> Iterator[Checked]:
    try:
        for future in futures:
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _open(url: str, snapshot: str | None, queries: RoundQueries,
          texts: dict[int, str]) -> None:
    from dealer_assist.store import db

    rules = {version: ruleset_from_json(json.loads(text)) for version, text in texts.items()}
    engine = db.make_engine(url)
    if snapshot is not None:
        conn = engine.connect().execution_options(isolation_level="REPEATABLE READ")
        conn.exec_driver_sql(f"SET TRANSACTION SNAPSHOT '{snapshot}'")
    else:
        conn = engine.connect()
        conn.exec_driver_sql("SELECT 1")  # SQLite: begin the read transaction
    _state.update(conn=conn, cursor=conn.connection.cursor(), queries=queries, rules=rules)


def _check(lo: int, hi: int) -> Checked:
    return check_chunk(read_chunk(_state["cursor"], _state["queries"], lo, hi),
                       _state["rules"])


__all__ = ["start"]
