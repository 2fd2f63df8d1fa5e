"""``dealer-assist serve`` (gunicorn) and ``dealer-assist demo`` (a fresh demo floor, served).

``serve`` binds 127.0.0.1 unless ``--host`` says otherwise. Session cookies are marked
Secure (sent only over HTTPS, as behind the casino's TLS terminator); ``--insecure-cookies``
allows plain HTTP on a closed network. ``demo`` builds a new SQLite floor in its own folder
(two tables under different rule sets, one user per role with a printed random password,
one simulated shift) and serves it on http://127.0.0.1:8000.
"""

from __future__ import annotations

import os
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

import click

#: Demo users: name -> role. Their passwords are random per demo and printed once.
DEMO_USERS = {"dana": "dealer", "sam": "supervisor", "alex": "auditor", "ada": "admin"}
DEMO_TABLES: dict[str, tuple[int, dict[str, Any]]] = {
    # name: (seats, rule set). Keyed by their pays, as RULES.md asks.
    "Main 1": (7, {}),
    "High Limit": (6, {"pair_plus": "35-25-6-4-1", "ante_bonus": "4-3-1",
                       "limits": {"ante": {"min": 2500, "max": 100000}},
                       "max_payout": 5_000_000}),
}


#: How long an idle client connection stays open (seconds): longer than a round takes.
KEEPALIVE_SECONDS = 75
#: How long a worker thread may keep Python's GIL while others wait for it (seconds; Python's
#: default is 0.005). Logging a round waits on the database several times, and after each
#: wait it needs the GIL back: with 5 ms a round queued behind a busy thread (a PDF report,
#: another round's settling) lost up to 5 ms per wait, and SQLite's one writer with it.
SWITCH_INTERVAL = 0.001


def _worker_started(worker: Any) -> None:
    from dealer_assist.web import report_worker

    sys.setswitchinterval(SWITCH_INTERVAL)
    report_worker.start()  # PDFs are drawn beside the worker, not in it


def _worker_exiting(arbiter: Any, worker: Any) -> None:
    from dealer_assist.web import report_worker

    report_worker.stop()


def run_gunicorn(config: dict[str, Any], host: str, port: int, workers: int,
                 threads: int) -> None:
    """Serve ``create_app(config)`` with gunicorn (one app per worker process)."""
    from gunicorn.app.base import BaseApplication

    from dealer_assist.web import create_app

    class Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            settings = {"bind": f"{host}:{port}", "workers": workers, "threads": threads,
                        "worker_class": "gthread" if threads > 1 else "sync",
                        "accesslog": "-", "errorlog": "-", "timeout": 60,
                        "forwarded_allow_ips": "127.0.0.1",
                        # A terminal logs a round every minute or so: keep its connection
                        # open between rounds (gunicorn's default closes it after 2 s, so
                        # nearly every round paid for a new connection, or raced its close).
                        "keepalive": KEEPALIVE_SECONDS,
                        "post_worker_init": _worker_started,
                        "worker_exit": _worker_exiting}
            for key, value in settings.items():
                self.cfg.set(key, value)

        def load(self) -> Any:
            return create_app(config)

    Server().run()


def _check_schema(url: str) -> None:
    from dealer_assist.store import db

    engine = db.make_engine(url)
    try:
        revision = db.current_revision(engine)
    except Exception as exc:  # the database is unreachable: say so plainly
        raise click.ClickException(f"cannot open the database: {exc}") from exc
    finally:
        engine.dispose()
    if revision is None:
        raise click.ClickException("the database has no schema yet: run `dealer-assist init-db`")


def build_demo(folder: Path, rounds: int = 40, seed: int = 7) -> tuple[str, dict[str, str]]:
    """A fresh demo floor in ``folder``; returns its database URL and the users' passwords."""
    from dealer_assist import services
    from dealer_assist.store import db

    folder.mkdir(parents=True, exist_ok=True)
    database = folder / db.SQLITE_FILE
    for stale in (database, database.with_name(database.name + "-wal"),
                  database.with_name(database.name + "-shm")):
        stale.unlink(missing_ok=True)
    url = db.default_sqlite_url(folder)
    db.upgrade(url)
    engine = db.make_engine(url)
    passwords = {name: secrets.token_urlsafe(9) for name in DEMO_USERS}
    try:
        with db.session_factory(engine)() as session:
            services.update_settings(session, name="Demo Casino", large_win_threshold=500_000)
            for name, role in DEMO_USERS.items():
                services.create_user(session, name, role, passwords[name])
            for table, (seats, rules) in DEMO_TABLES.items():
                services.create_table(session, table, seats, rules or None)
            services.simulate(session, table="High Limit", rounds=rounds, seed=seed)
            services.close_shift(session, table="High Limit", user="sam")
            services.simulate(session, table="Main 1", rounds=max(1, rounds // 4), seed=seed + 1)
    finally:
        engine.dispose()
    return url, passwords


def register(group: click.Group) -> None:
    @group.command()
    @click.option("--host", default="127.0.0.1", show_default=True,
                  help="Address to listen on (0.0.0.0 for every interface).")
    @click.option("--port", default=8000, show_default=True, type=int)
    @click.option("--workers", default=None, type=click.IntRange(1, 64),
                  help="Worker processes (default: 1 on SQLite, whose one writer the threads "
                       "of a process share in order; 2 on PostgreSQL).")
    @click.option("--threads", default=8, show_default=True, type=click.IntRange(1, 64))
    @click.option("--database-url", envvar="DATABASE_URL", default=None, metavar="URL",
                  help="SQLAlchemy URL (default: $DATABASE_URL, else the instance folder's "
                       "SQLite file).")
    @click.option("--instance", "instance", default=None, metavar="DIR",
                  help="Instance folder (secret key, config.py, SQLite file); "
                       "default ./instance.")
    @click.option("--insecure-cookies", is_flag=True,
                  help="Send the sign-in cookie over plain HTTP too (closed networks only).")
    def serve(host: str, port: int, workers: int | None, threads: int, database_url: str | None,
              instance: str | None, insecure_cookies: bool) -> None:
        """Serve the dealer screens and the API with gunicorn."""
        from dealer_assist.store import db

        folder = Path(instance or os.environ.get("DEALER_ASSIST_INSTANCE") or "instance")
        url = database_url or db.default_sqlite_url(folder)
        _check_schema(url)
        os.environ["DEALER_ASSIST_INSTANCE"] = str(folder.resolve())
        config: dict[str, Any] = {"DATABASE_URL": url}
        if insecure_cookies:
            config.update(SESSION_COOKIE_SECURE=False, REMEMBER_COOKIE_SECURE=False)
        elif host in ("127.0.0.1", "localhost"):
            click.echo("note: cookies are Secure (HTTPS only); browse over TLS, or pass "
                       "--insecure-cookies for plain http://", err=True)
        if workers is None:
            workers = 1 if url.startswith("sqlite") else 2
        run_gunicorn(config, host, port, workers, threads)

    @group.command()
    @click.option("--dir", "folder", default=None, metavar="DIR",
                  help="Folder for the demo floor (default: a new temporary folder).")
    @click.option("--rounds", default=40, show_default=True, type=click.IntRange(1, 100000),
                  help="Simulated rounds in the demo shift.")
    @click.option("--port", default=8000, show_default=True, type=int)
    @click.option("--no-serve", is_flag=True, help="Build the floor and stop.")
    def demo(folder: str | None, rounds: int, port: int, no_serve: bool) -> None:
        """Build a fresh demo floor (SQLite) with demo users, and serve it."""
        where = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="dealer-assist-demo-"))
        click.echo(f"Building a demo floor in {where} ...")
        url, passwords = build_demo(where, rounds=rounds)
        click.echo("Tables: " + ", ".join(
            f"{name} ({seats} seats)" for name, (seats, _) in DEMO_TABLES.items()))
        click.echo("Demo users (passwords are new for every demo):")
        for name, role in DEMO_USERS.items():
            click.echo(f"  {role:<10} {name:<5} {passwords[name]}")
        if no_serve:
            click.echo(f"DATABASE_URL={url}")
            return
        click.echo(f"Open http://127.0.0.1:{port}/ and sign in. Ctrl+C stops.")
        sys.stdout.flush()
        os.environ["DEALER_ASSIST_INSTANCE"] = str(where.resolve())
        run_gunicorn({"DATABASE_URL": url, "DEMO": True, "SESSION_COOKIE_SECURE": False,
                      "REMEMBER_COOKIE_SECURE": False}, "127.0.0.1", port, 1, 8)
