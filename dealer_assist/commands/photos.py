"""``dealer-assist photos check|prune``: the kept photos of scanned rounds.

Exit codes: 0 done, 1 a photo of a logged round is missing or altered, 2 bad input,
3 the database is unreachable.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from dealer_assist.services.scan import PhotoStore

from .store import EXIT_FAILED, _session, database_option

F = TypeVar("F", bound=Callable[..., Any])


def photos_option(fn: F) -> F:
    return click.option(
        "--photos", "folder", default=None, metavar="DIR", type=click.Path(path_type=Path),
        help="The kept photos (default: as the server keeps them: PHOTO_DIR of the "
             "instance config.py, else photos/ in $DEALER_ASSIST_INSTANCE or ./instance).")(fn)


def _server_config() -> tuple[Any, str]:
    """The server's configuration as ``dealer-assist serve`` reads it from the instance
    folder's config.py ($DEALER_ASSIST_INSTANCE, else ./instance), and that folder."""
    from flask import Config

    instance = os.path.abspath(os.environ.get("DEALER_ASSIST_INSTANCE") or "instance")
    config = Config(instance)
    config.from_pyfile("config.py", silent=True)
    return config, instance


def _store(folder: Path | None) -> PhotoStore:
    """``--photos``, else the folder the server keeps them in: ``PHOTO_DIR`` of the
    instance's config.py, else its ``photos/``."""
    from dealer_assist.services.scan import PhotoStore
    from dealer_assist.web.scan import photo_folder

    if folder is None:
        folder = Path(photo_folder(*_server_config()))
    return PhotoStore(folder)


def server_deck(table: str) -> Path:
    """The file the server reads ``table``'s enrolled deck from: in ``DECK_DIR`` of the
    instance's config.py, else its ``decks/``."""
    from dealer_assist.services.scan import deck_file
    from dealer_assist.web.scan import deck_folder

    return deck_file(deck_folder(*_server_config()), table)


def register(group: click.Group) -> None:
    @group.group()
    def photos() -> None:
        """The photos kept for scanned rounds: check them, prune unlogged ones."""

    @photos.command()
    @photos_option
    @database_option
    def check(folder: Path | None, database_url: str | None) -> None:
        """Every photo a logged round names is kept and still hashes to its SHA-256.

        Prints `OK: ...` (exit 0) or the missing and altered photos (exit 1).
        """
        from dealer_assist.services.photos import check_photos

        with _session(database_url) as session:
            result = check_photos(session, _store(folder))
        click.echo(result.summary())
        for sha in result.missing[:20]:
            click.echo(f"  missing: {sha} (named by a logged round, not in the folder)")
        for sha in result.altered[:20]:
            click.echo(f"  altered: {sha} (the file's bytes hash to something else)")
        sys.exit(0 if result.ok else EXIT_FAILED)

    @photos.command()
    @click.option("--older-than", "hours", type=click.FloatRange(min=0), default=168.0,
                  show_default=True, help="Only photos stored more than this many hours ago "
                                          "(at least 1).")
    @click.option("--dry-run", is_flag=True, help="List what would be deleted; delete nothing.")
    @photos_option
    @database_option
    def prune(hours: float, dry_run: bool, folder: Path | None,
              database_url: str | None) -> None:
        """Delete kept photos that no logged round names (scans never logged).

        Photos of logged rounds, voided or not, are never deleted.
        """
        from dealer_assist.services.photos import prune_unlogged

        with _session(database_url) as session:
            gone = prune_unlogged(session, _store(folder), timedelta(hours=hours),
                                  dry_run=dry_run)
        verb = "would delete" if dry_run else "deleted"
        click.echo(f"{verb} {len(gone)} photos of scans never logged, older than {hours:g} h")
