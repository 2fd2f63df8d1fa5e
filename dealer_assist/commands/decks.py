"""``dealer-assist vision deck install|list|remove``: the enrolled deck a table's scans read with.

A table's deck is on record (``services.table_decks``): the file goes where the server reads
it only after the database has recorded it, so the server never reads with a deck that is
not on record. Exit codes: 0 done, 2 bad input, 3 the database is unreachable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .store import _session, database_option


def _fail(message: str) -> None:
    click.echo(f"vision deck: {message}", err=True)
    raise SystemExit(2)


def install_deck(data: bytes, table: str, database_url: str | None,
                 detail: dict[str, Any]) -> tuple[Path, str]:
    """Put a deck file's bytes on record for ``table`` and where the server reads it
    (``photos.server_deck``): written beside it first, recorded, then moved into place (a
    failed record leaves the server's deck as it was). Returns the file and its SHA-256."""
    from dealer_assist.services.deck_learning import install_deck_file

    from .photos import server_deck

    with _session(database_url) as session:
        return install_deck_file(session, server_deck(table).parent, table, data,
                                 detail=detail)


def register(vision: click.Group) -> None:
    @vision.group()
    def deck() -> None:
        """The enrolled deck a table's scans read with (on record in the hand log)."""

    @deck.command()
    @click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
    @click.option("--table", "table_name", required=True, help="The table to read with it.")
    @database_option
    def install(file: Path, table_name: str, database_url: str | None) -> None:
        """Read every scan at a table with the deck FILE (.npz from `vision enroll`).

        The deck goes on record (a deck.enrolled event on the table's chain, naming its
        SHA-256) and where the server reads it. A deck enrolled with another card model
        than the one installed is refused."""
        from dealer_assist.vision.enroll import load
        from dealer_assist.vision.reader import Reader

        try:
            data = file.read_bytes()
            Reader(deck=load(file.name, data))  # refused if fitted on another card model
        except FileNotFoundError as exc:
            _fail(f"{file}: {exc.strerror}" if exc.filename else f"no card model installed: {exc}")
        except (OSError, ValueError) as exc:
            _fail(str(exc))
        target, sha = install_deck(data, table_name, database_url,
                                   {"source": "file", "file": file.name})
        click.echo(f"table {table_name} reads with the deck {sha[:12]}... ({target})")

    @deck.command("list")
    @click.option("--table", "table_name", help="Only this table.")
    @database_option
    def list_decks(table_name: str | None, database_url: str | None) -> None:
        """Each table's enrolled deck on record, its last change, and whether the server's
        file is that deck (a scan reads with it only then)."""
        from rich.console import Console
        from rich.table import Table

        from dealer_assist.services.table_decks import deck_file_state, deck_records

        from .photos import server_deck

        with _session(database_url) as session:
            records = deck_records(session, table_name)
        table = Table(title="Enrolled decks on record")
        for column in ("table", "deck", "since", "by", "learnt from", "server file"):
            table.add_column(column)
        for r in records:
            detail = r.detail
            source = (f"{len(detail.get('rounds', []))} scanned rounds"
                      if detail.get("source") == "scans" else str(detail.get("file", "")))
            on_server = deck_file_state(server_deck(r.table), r.deck_sha256)
            state = on_server.state + (f" ({on_server.found[:12]}...)"
                                       if on_server.state == "differs" and on_server.found else "")
            table.add_row(r.table, r.deck_sha256[:12] if r.deck_sha256 else "none",
                          r.changed_at.strftime("%Y-%m-%d %H:%M UTC") if r.changed_at else "",
                          r.changed_by or "", source if r.deck_sha256 else "", state)
        Console(width=160).print(table)

    @deck.command()
    @click.option("--table", "table_name", required=True, help="The table.")
    @database_option
    def remove(table_name: str, database_url: str | None) -> None:
        """Stop reading a table's scans with its enrolled deck (recorded: deck.removed)."""
        from dealer_assist.services.deck_learning import remove_deck_file

        from .photos import server_deck

        with _session(database_url) as session:
            remove_deck_file(session, server_deck(table_name).parent, table_name)
        click.echo(f"table {table_name} reads without an enrolled deck")
