"""``dealer-assist scan IMAGE``: the cards of a table photo, grouped into seated hands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .store import database_option


def _fail(message: str) -> None:
    click.echo(f"scan: {message}", err=True)
    raise SystemExit(2)


def _load_zones(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"cannot read zones file {path}: {exc}")
    except json.JSONDecodeError as exc:
        _fail(f"zones file {path} is not JSON: {exc.msg} (line {exc.lineno})")
    if isinstance(data, dict) and "zones" in data:
        data = data["zones"]  # a generator truth file carries its zones under "zones"
    if not isinstance(data, dict) or not data:
        _fail(f'zones file {path}: expected {{"1": [[x, y], ...], ..., "dealer": [...]}}')
    for key, poly in data.items():
        if key != "dealer" and not (key.isdigit() and 1 <= int(key) <= 7):
            _fail(f'zones file {path}: zone "{key}" is not a seat 1..7 or "dealer"')
        ok = isinstance(poly, list) and len(poly) >= 3 and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, (int, float)) for v in p)
            for p in poly)
        if not ok:
            _fail(f'zones file {path}: zone "{key}" must be a polygon of at least 3 [x, y] points')
    return dict(data)


def _print_table(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(result['cards'])} cards in {len(result['hands'])} hands")
    table.add_column("seat")
    table.add_column("cards")
    table.add_column("lowest confidence", justify="right")
    for hand in sorted(result["hands"], key=lambda h: (h["seat"] == "dealer", str(h["seat"]))):
        table.add_row(str(hand["seat"]), " ".join(hand["cards"]), f"{hand['confidence']:.2f}")
    console = Console()
    console.print(table)
    for item in result["needs_confirmation"]:
        where = f"hand {item['hand']} (seat {item['seat']})" if item["hand"] is not None else ""
        card = f" {item['card']}" if item.get("card") else ""
        console.print(f"[yellow]confirm[/]{card} {where}: {item['reason']}")


def _table_zones(name: str, database_url: str | None) -> dict[str, Any] | None:
    """The table's seat zones from the hand log (None: it has none); exit 2 for an unknown
    table, 3 when the database cannot be read (as the other commands)."""
    from dealer_assist import services

    from .store import _session

    with _session(database_url) as session:
        zones = services.get_table(session, name).seat_zones
    return dict(zones) if zones else None


def register(group: click.Group) -> None:
    @group.command()
    @click.argument("image", type=click.Path(path_type=Path))
    @click.option("--table", "table_name", help="Table whose seat zones to use (read from "
                  "the hand log: --database-url, else DATABASE_URL, else the SQLite file).")
    @click.option("--zones", "zones_file", type=click.Path(path_type=Path),
                  help='Seat zones JSON: {"1": [[x, y], ...], ..., "dealer": [[x, y], ...]}.')
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
    @click.option("--threshold", type=click.FloatRange(0.0, 1.0), default=None,
                  help="Confidence under which a card needs confirmation (default 0.95).")
    @click.option("--deck", "deck_file", type=click.Path(path_type=Path),
                  help="An enrolled deck (.npz from `vision enroll`).")
    @database_option
    def scan(image: Path, table_name: str | None, zones_file: Path | None, as_json: bool,
             threshold: float | None, deck_file: Path | None,
             database_url: str | None) -> None:
        """Read every face-up card in a table photo (JPEG or PNG).

        Cards are grouped into hands of three and seated by the seat zones (or in order
        along the table's arc without zones). Doubtful reads, repeated cards and hands that
        are not three cards are listed under needs_confirmation. Bad input exits with code 2.
        """
        from dealer_assist.vision.loading import ImageError, load
        from dealer_assist.vision.reader import DEFAULT_THRESHOLD, Reader

        zones = _load_zones(zones_file) if zones_file is not None else None
        if table_name is not None and zones is None:
            zones = _table_zones(table_name, database_url)
        try:
            img = load(image)
        except ImageError as exc:
            _fail(str(exc))
        deck = None
        if deck_file is not None:
            from dealer_assist.vision.enroll import load as load_deck_file

            try:
                deck = load_deck_file(deck_file)
            except (OSError, ValueError) as exc:
                _fail(f"cannot load enrolled deck {deck_file}: {exc}")
        try:
            reader = Reader(threshold=DEFAULT_THRESHOLD if threshold is None else threshold,
                            deck=deck)
        except FileNotFoundError as exc:
            _fail(f"no card model installed: {exc}")
        except ValueError as exc:
            _fail(f"cannot use enrolled deck {deck_file}: {exc}")
        result = reader.read(img, zones)
        if table_name is not None and zones is None:
            result["needs_confirmation"].append(
                {"hand": None, "seat": None, "card": None,
                 "reason": f"table {table_name!r} has no seat zones drawn; seats follow the "
                           "arc"})
        if as_json:
            click.echo(json.dumps(result))
        else:
            _print_table(result)

    @group.group()
    def vision() -> None:
        """Card recognition: teach the reader a casino's own deck."""

    @vision.command()
    @click.argument("out", type=click.Path(path_type=Path))
    @click.argument("pairs", nargs=-1, required=True, type=click.Path(path_type=Path))
    def enroll(out: Path, pairs: tuple[Path, ...]) -> None:
        """Enroll a deck from labelled photos: OUT.npz PHOTO LABELS [PHOTO LABELS ...].

        LABELS is JSON: {"cards": [{"card": "AS", "corners": [[x, y] x4]}, ...]}, corners
        clockwise from the upright index (the format of scripts/vision_generate.py). Scan
        with --deck OUT.npz afterwards.
        """
        from dealer_assist.vision.enroll import enroll as fit_deck
        from dealer_assist.vision.enroll import load_labelled, save
        from dealer_assist.vision.loading import ImageError
        from dealer_assist.vision.reader import Reader

        if len(pairs) % 2:
            _fail("give PHOTO LABELS pairs")
        photos = []
        for img_path, label_path in zip(pairs[::2], pairs[1::2], strict=True):
            try:
                photos.append(load_labelled(img_path, label_path))
            except ImageError as exc:
                _fail(str(exc))
            except (OSError, ValueError) as exc:
                _fail(f"{label_path}: {exc}")
        try:
            adapter = fit_deck(Reader(), photos)
        except ValueError as exc:
            _fail(str(exc))
        if not adapter:
            _fail("no labelled index corner was found in the photos")
        save(adapter, out)
        click.echo(f"enrolled the deck of {len(photos)} photos into {out}")
