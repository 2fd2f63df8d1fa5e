"""The hand log's commands: ``init-db``, ``verify-log``, ``resettle``, ``simulate``,
``export``, ``table add``, ``user add``, ``token add``.

The database is ``--database-url``, else ``DATABASE_URL``, else the SQLite file
``instance/dealer_assist.sqlite3`` under the current directory. Exit codes: 0 done,
1 the log fails verification (or resettle found differences), 2 bad input,
3 the database is unreachable or locked.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, NoReturn, TextIO, TypeVar
from zoneinfo import ZoneInfo

import click
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy import orm

from dealer_assist import services
from dealer_assist.domain.errors import DomainError
from dealer_assist.services._base import unavailable
from dealer_assist.services.errors import ServiceError, StoreUnavailable
from dealer_assist.store import db

F = TypeVar("F", bound=Callable[..., Any])

EXIT_FAILED, EXIT_INPUT, EXIT_STORE = 1, 2, 3


def database_option(fn: F) -> F:
    return click.option(
        "--database-url", envvar="DATABASE_URL", default=None, metavar="URL",
        help="SQLAlchemy URL (default: $DATABASE_URL, else instance/dealer_assist.sqlite3).",
    )(fn)


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _safe_url(url: str) -> str:
    return sa.engine.make_url(url).render_as_string(hide_password=True)


@contextmanager
def _engine(url: str | None) -> Iterator[sa.Engine]:
    url = url or db.default_database_url()
    try:
        engine = db.make_engine(url)
    except (sa_exc.ArgumentError, ValueError) as exc:
        _fail(f"not a database URL: {url!r} ({exc})", EXIT_INPUT)
    try:
        yield engine
    finally:
        engine.dispose()


@contextmanager
def _session(url: str | None) -> Iterator[orm.Session]:
    """A session on an upgraded database; service and domain errors become messages."""
    with _engine(url) as engine:
        try:
            revision = db.current_revision(engine)
        except sa_exc.DBAPIError as exc:
            _fail(unavailable(exc).message, EXIT_STORE)
        if revision is None:
            _fail(f"the database at {_safe_url(str(engine.url))} has no schema: run "
                  f"`dealer-assist init-db` first", EXIT_STORE)
        session = db.session_factory(engine)()
        try:
            yield session
        except StoreUnavailable as exc:
            _fail(exc.message, EXIT_STORE)
        except ServiceError as exc:
            _fail(exc.message, EXIT_INPUT)
        except DomainError as exc:
            _fail(exc.message, EXIT_INPUT)
        except sa_exc.DBAPIError as exc:
            _fail(unavailable(exc).message, EXIT_STORE)
        finally:
            session.close()


def parse_time(text: str | None, zone: str = "UTC") -> datetime | None:
    """An ISO date or date-time; without an offset it is read in the casino's time zone.

    >>> parse_time("2024-05-01T12:00+02:00").isoformat()
    '2024-05-01T10:00:00+00:00'
    >>> parse_time("2024-05-01", "America/New_York").isoformat()
    '2024-05-01T04:00:00+00:00'
    """
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise click.BadParameter(f"{text!r} is not a date or time like 2024-05-01T18:00") \
            from exc
    if value.tzinfo is None:
        value = value.replace(tzinfo=ZoneInfo(zone))
    return value.astimezone(UTC)


def _zone(session: orm.Session) -> str:
    return services.get_settings(session).time_zone


def register(group: click.Group) -> None:
    @group.command("init-db")
    @database_option
    def init_db(database_url: str | None) -> None:
        """Create the hand log's schema, or upgrade it to the newest migration."""
        with _engine(database_url) as engine:
            try:
                before = db.current_revision(engine)
                db.upgrade(engine)
                after = db.current_revision(engine)
            except sa_exc.DBAPIError as exc:
                _fail(unavailable(exc).message, EXIT_STORE)
            where = _safe_url(str(engine.url))
            if before == after:
                click.echo(f"{where}: schema already at revision {after}")
            else:
                click.echo(f"{where}: schema upgraded from {before or 'empty'} to {after}")

    @group.command("verify-log")
    @click.option("--table", default=None, help="Only this table's chain and rounds.")
    @click.option("--since", default=None,
                  help="Only records logged at or after this ISO time (casino time zone "
                       "unless an offset is given).")
    @click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
    @click.option("--workers", type=click.IntRange(0, 64), default=None,
                  help="Processes that check rounds beside the chain walk, on a large log "
                       "(default: one per core; 0: this process only).")
    @database_option
    def verify_log(table: str | None, since: str | None, as_json: bool,
                   workers: int | None, database_url: str | None) -> None:
        """Recompute the audit chains and re-settle every logged round.

        Prints `OK: N rounds, chain head <hash>` (exit 0) or names the first record that
        fails (exit 1).
        """
        with _session(database_url) as session:
            when = parse_time(since, _zone(session))
            with _progress("verifying") as progress:
                result = services.verify_log(
                    session, table=table, since=when, progress=progress,
                    workers=(os.cpu_count() or 1) if workers is None else workers)
        if as_json:
            click.echo(json.dumps(result.to_json(), indent=1))
        else:
            click.echo(result.summary())
            for problem in sorted(result.problems)[1:20]:
                click.echo(f"  also: {problem}")
        sys.exit(0 if result.ok else EXIT_FAILED)

    @group.command()
    @click.option("--since", default=None, help="From this ISO time (inclusive).")
    @click.option("--until", default=None, help="To this ISO time (exclusive).")
    @click.option("--table", default=None, help="Only this table.")
    @click.option("--json", "as_json", is_flag=True, help="One JSON line per difference.")
    @database_option
    def resettle(since: str | None, until: str | None, table: str | None, as_json: bool,
                 database_url: str | None) -> None:
        """List every logged round whose stored payout differs from a fresh settlement.

        Exit 0 when every round agrees, 1 when some differ.
        """
        with _session(database_url) as session:
            zone = _zone(session)
            with _progress("re-settling") as progress:
                count, mismatches = services.resettle(
                    session, since=parse_time(since, zone), until=parse_time(until, zone),
                    table=table, progress=progress)
        for m in mismatches:
            if as_json:
                click.echo(json.dumps(m.to_json()))
            else:
                click.echo(f"table {m.table} round #{m.serial} (id {m.round_id}, "
                           f"{m.at:%Y-%m-%d %H:%M:%S} UTC) seat {m.seat} {m.bet}: "
                           f"stored {m.stored}, settles to {m.fresh}")
        rounds = {m.round_id for m in mismatches}
        click.echo(f"{count} rounds re-settled: {len(rounds)} differ", err=as_json)
        sys.exit(EXIT_FAILED if mismatches else 0)

    @group.command()
    @click.option("--table", required=True, help="Table name (created with 7 seats if new).")
    @click.option("--rounds", "count", type=click.IntRange(1, 10_000_000), required=True)
    @click.option("--seed", type=int, default=None, help="Random seed (reproducible play).")
    @database_option
    def simulate(table: str, count: int, seed: int | None, database_url: str | None) -> None:
        """Log realistic simulated rounds at TABLE through the normal logging service."""
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with _session(database_url) as session, Progress(
                "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), TimeRemainingColumn(), console=_console(),
                transient=True) as bar:
            task = bar.add_task(f"table {table}", total=count)
            result = services.simulate(session, table=table, rounds=count, seed=seed,
                                       progress=lambda done: bar.update(task, completed=done))
        click.echo(f"logged {result.rounds} rounds at table {table} (serials "
                   f"{result.first_serial}-{result.last_serial}) in {result.seconds:.1f} s "
                   f"({result.rounds / max(result.seconds, 1e-9):.0f}/s); players net "
                   f"{result.players_net / 100:+.2f}")

    @group.command()
    @click.option("--shift", "shift_id", type=int, required=True, help="Shift id.")
    @click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="json")
    @click.option("--output", "-o", type=click.File("w", encoding="utf-8"), default="-")
    @database_option
    def export(shift_id: int, fmt: str, output: TextIO, database_url: str | None) -> None:
        """Export a shift's rounds to CSV (a line per seat) or JSON, for archiving."""
        with _session(database_url) as session:
            output.write(services.export_shift(session, shift_id, fmt))

    @group.group()
    def table() -> None:
        """Tables on the floor."""

    @table.command("add")
    @click.argument("name")
    @click.option("--seats", type=click.IntRange(1, 7), default=7, show_default=True)
    @click.option("--rules", "rules_file", type=click.File("r", encoding="utf-8"),
                  help="Rule set JSON (RULES.md §5); default rules if omitted.")
    @database_option
    def table_add(name: str, seats: int, rules_file: TextIO | None,
                  database_url: str | None) -> None:
        """Add a table NAME with its seats and rule set."""
        rules = None
        if rules_file is not None:
            try:
                rules = json.loads(rules_file.read())
            except json.JSONDecodeError as exc:
                _fail(f"--rules is not JSON: {exc.msg} at line {exc.lineno}", EXIT_INPUT)
        with _session(database_url) as session:
            added = services.create_table(session, name, seats, rules)
            click.echo(f"table {added.name}: {added.seats} seats, rule-set version "
                       f"{added.ruleset_version_id} ({added.ruleset_version.content_hash[:12]})")

    @group.group()
    def user() -> None:
        """Users and their roles."""

    @user.command("add")
    @click.argument("name")
    @click.option("--role", "roles", multiple=True, required=True,
                  type=click.Choice(["dealer", "supervisor", "auditor", "admin"]),
                  help="A role (repeat for several).")
    @click.option("--password-stdin", is_flag=True, help="Read the password from stdin.")
    @database_option
    def user_add(name: str, roles: tuple[str, ...], password_stdin: bool,
                 database_url: str | None) -> None:
        """Add user NAME; the password is asked for (or read from stdin)."""
        if password_stdin or not sys.stdin.isatty():
            password = sys.stdin.readline().rstrip("\r\n")
        else:
            password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
        with _session(database_url) as session:
            added = services.create_user(session, name, roles, password)
            click.echo(f"user {added.name}: {', '.join(sorted(added.roles))}")

    @group.group()
    def token() -> None:
        """API tokens."""

    @token.command("add")
    @click.argument("user_name", metavar="USER")
    @click.option("--label", default=None, help="What the token is for.")
    @database_option
    def token_add(user_name: str, label: str | None, database_url: str | None) -> None:
        """Issue an API token for USER and print it (it is shown only this once)."""
        with _session(database_url) as session:
            click.echo(services.create_token(session, user_name, label=label))


def _console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


@contextmanager
def _progress(label: str) -> Iterator[Callable[[str, int, int | None], None]]:
    """A rich status line on stderr showing how far a long check has got."""
    console = _console()
    if not console.is_terminal:
        yield lambda _what, _done, _total: None
        return
    with console.status(f"{label}...") as status:
        yield lambda what, done, _total: status.update(f"{label}: {done:,} {what}")


__all__ = ["parse_time", "register"]
