"""PDF reports are drawn in a process of their own beside each web worker process.

A shift or floor-day report takes 0.2-1.6 s of CPU. Drawn in the web worker, it held
Python's GIL against the threads logging rounds: at 100 tables logging at 10x a real
table's pace, the p99 of logging a round rose from 43 ms to 140 ms whenever an auditor
printed (benchmarks/floor.py). In a process of its own the report takes its turn on the
cores like any program, and the worker's threads go on logging. The web worker's thread
waits for the PDF as before.

One report process per web worker process, started with the worker by ``dealer-assist
serve`` (else at the first report; a new interpreter takes about a second), drawing one
report at a time. A report process that dies is replaced
at the next report. A database that lives in memory (tests) cannot be shared with another
process: its reports are drawn in the web worker as before.
"""

from __future__ import annotations

import importlib
import io
import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import date, time
from typing import Any

#: The report process of this web worker process, once started.
_executor: ProcessPoolExecutor | None = None
_lock = threading.Lock()
#: In the report process: an engine per (database URL, statement timeout).
_engines: dict[tuple[str, float | None], Any] = {}


def _draw(kind: str, session: Any, args: dict[str, Any]) -> bytes:
    from dealer_assist.reports import day_report, dispute_sheet, shift_report

    out = io.BytesIO()
    if kind == "shift":
        shift_report(session, args["shift_id"], out, auditor=args["auditor"])
    elif kind == "dispute":
        dispute_sheet(session, args["round_id"], out)
    elif kind == "day":
        day_report(session, date.fromisoformat(args["day"]), out,
                   day_start=time.fromisoformat(args["day_start"]) if args["day_start"]
                   else None, shift_hours=args["shift_hours"], auditor=args["auditor"])
    else:
        raise ValueError(f"no report {kind!r}")
    return out.getvalue()


def draw_in_this_process(kind: str, url: str, statement_timeout: float | None,
                         args: dict[str, Any]) -> bytes:
    """Draw one report on the database at ``url`` (run in the report process)."""
    from dealer_assist.store import db

    engine = _engines.get((url, statement_timeout))
    if engine is None:
        engine = _engines[(url, statement_timeout)] = db.make_engine(
            url, statement_timeout=statement_timeout)
    session = db.session_factory(engine)()
    try:
        return _draw(kind, session, args)
    finally:
        session.close()


def _report_process() -> ProcessPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            # spawn: a clean interpreter, not a fork of this multi-threaded worker
            _executor = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return _executor


def _warm() -> None:
    for module in ("dealer_assist.reports", "dealer_assist.store.db"):  # reportlab, psycopg
        importlib.import_module(module)


def start() -> None:
    """Start this worker's report process now, not at the first report (``serve`` does,
    as each worker starts: a new interpreter takes about a second of CPU)."""
    _report_process().submit(_warm)


def stop() -> None:
    """Stop this worker's report process and wait for it (``serve`` does, as each worker
    exits). Left to the interpreter's exit, the executor's wake-up races the pool's own
    clean-up when the report process died first (a SIGTERM to the process group reaches
    both): CPython 3.11 then writes to a closed pipe and prints a traceback."""
    global _executor
    with _lock:
        executor, _executor = _executor, None
    if executor is not None:
        executor.shutdown(wait=True, cancel_futures=True)


def _replace(broken: ProcessPoolExecutor) -> None:
    global _executor
    with _lock:
        if _executor is broken:
            _executor = None
    broken.shutdown(wait=False, cancel_futures=True)


def draw(kind: str, engine: Any, statement_timeout: float | None, session: Any,
         args: dict[str, Any]) -> bytes:
    """The PDF of report ``kind`` (``shift``, ``dispute``, ``day``) with ``args``, drawn in
    this worker's report process (``session``, on ``engine``, is used only for a database
    in memory, which no other process can open)."""
    url = engine.url
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        return _draw(kind, session, args)
    text = url.render_as_string(hide_password=False)
    for attempt in range(2):
        executor = _report_process()
        try:
            return executor.submit(draw_in_this_process, kind, text, statement_timeout,
                                   args).result()
        except BrokenProcessPool:
            _replace(executor)
            if attempt:
                raise
    raise AssertionError("unreachable")


__all__ = ["draw", "draw_in_this_process", "start", "stop"]
