"""``dealer-assist scan IMAGE``: the cards of a table photo, grouped into seated hands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from dealer_assist.services.deck_photos import MOST_ROUNDS

from .photos import photos_option
from .store import _session, database_option


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
    # what is said of no hand first (blurred, no seat zones, cards not read), as the scan
    # screen lists it: it bears on every read
    items = sorted(result["needs_confirmation"], key=lambda item: item["hand"] is not None)
    for item in items:
        if item["hand"] is None:
            console.print(f"[bold yellow]note[/]{_where(item)}: {item['reason']}")
            continue
        card = f" {item['card']}" if item.get("card") else ""
        console.print(f"[yellow]confirm[/]{card} hand {item['hand']} (seat {item['seat']}): "
                      f"{item['reason']}")


def _where(note: dict[str, Any]) -> str:
    """Where in the photo a note of no hand points, as the dealer finds it: its seat, and
    the centre of its region in the photo's pixels ("" for a note of the whole photo).

    >>> _where({"seat": 4, "region": [[800, 60], [900, 60], [900, 110], [800, 110]]})
    ' (seat 4, around x 850 y 85)'
    >>> _where({"seat": None, "region": [[0, 0], [10, 0], [10, 10], [0, 10]]})
    ' (around x 5 y 5)'
    >>> _where({"seat": None})
    ''
    """
    if "region" not in note:
        return ""
    xs, ys = zip(*note["region"], strict=True)
    around = f"around x {sum(xs) / len(xs):.0f} y {sum(ys) / len(ys):.0f}"
    seat = note.get("seat")
    if seat is None:
        return f" ({around})"
    return f" ({'the dealer' if seat == 'dealer' else f'seat {seat}'}, {around})"


def _table_record(name: str, database_url: str | None) -> tuple[object, int, str | None]:
    """The table's seat zones as the hand log records them, its seats, and its enrolled
    deck on record (SHA-256, or None); exit 2 for an unknown table, 3 when the database
    cannot be read (as the other commands)."""
    from dealer_assist import services

    from .store import _session

    with _session(database_url) as session:
        table = services.get_table(session, name)
        return table.seat_zones, table.seats, table.deck_sha256


def register(group: click.Group) -> None:
    @group.command()
    @click.argument("image", type=click.Path(path_type=Path))
    @click.option("--table", "table_name", help="Table whose seat zones to use (read from "
                  "the hand log: --database-url, else DATABASE_URL, else the SQLite file).")
    @click.option("--zones", "zones_file", type=click.Path(path_type=Path),
                  help='Seat zones JSON: {"1": [[x, y], ...], ..., "dealer": [[x, y], ...]}.')
    @click.option("--empty", "empty_file", type=click.Path(path_type=Path),
                  help="A photo of the table's empty layout from where this one was taken "
                       "(or near it), so its print is not read as cards; the seat zones are "
                       "then in its pixels (with --table, by default the photo its seat "
                       "zones were drawn on).")
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
    @click.option("--threshold", type=click.FloatRange(0.0, 1.0), default=None,
                  help="Confidence under which a card needs confirmation (default 0.95).")
    @click.option("--deck", "deck_file", type=click.Path(path_type=Path),
                  help="An enrolled deck (.npz from `vision enroll`; with --table, by default "
                       "the table's own, as the server reads it, if enrolled).")
    @database_option
    def scan(image: Path, table_name: str | None, zones_file: Path | None,
             empty_file: Path | None, as_json: bool, threshold: float | None,
             deck_file: Path | None, database_url: str | None) -> None:
        """Read every face-up card in a table photo (JPEG or PNG).

        Cards are grouped into hands of three and seated by the seat zones (or in order
        along the table's arc without zones). Doubtful reads, repeated cards and hands that
        are not three cards are listed under needs_confirmation. Bad input exits with code 2.
        """
        from dealer_assist.vision.loading import ImageError, load
        from dealer_assist.vision.reader import DEFAULT_THRESHOLD, Reader

        zones = _load_zones(zones_file) if zones_file is not None else None
        on_record: str | None = None
        try:
            img = load(image)
        except ImageError as exc:
            _fail(str(exc))
        deck = None
        notes: list[str] = []
        if table_name is not None:
            from dealer_assist.services.scan import table_zones

            recorded, seats, on_record = _table_record(table_name, database_url)
            if empty_file is None:
                from dealer_assist.services.seat_zones import empty_layout

                from .photos import _store

                empty_file, missing = empty_layout(_store(None), recorded)
                notes += [missing] if missing else []
            # zones drawn on the photo of the empty layout: the reader maps them from it
            drawn, note = table_zones(recorded, seats,
                                      None if empty_file else (img.shape[1], img.shape[0]))
            if zones is None:
                zones = drawn
                if note is not None:
                    notes.append(f"table {table_name!r}: {note}; seats follow the arc")
                elif drawn is None:
                    notes.append(f"table {table_name!r} has no seat zones drawn; seats "
                                 "follow the arc")
        data: bytes | None = None
        if deck_file is None and table_name is not None:
            from dealer_assist.services.table_decks import deck_to_read_with

            from .photos import server_deck

            # the table's deck, if one is on record and the file is that one
            own = server_deck(table_name)
            data, note = deck_to_read_with(own, on_record)
            notes += [note] if note else []
            deck_file = own if data is not None else None
        if deck_file is not None:
            from dealer_assist.vision.enroll import load as load_deck_file

            try:
                deck = load_deck_file(deck_file, data)
            except (OSError, ValueError) as exc:
                _fail(f"cannot load enrolled deck {deck_file}: {exc}")
        try:
            reader = Reader(threshold=DEFAULT_THRESHOLD if threshold is None else threshold,
                            deck=deck)
        except FileNotFoundError as exc:
            _fail(f"no card model installed: {exc}")
        except ValueError as exc:
            _fail(f"cannot use enrolled deck {deck_file}: {exc}")
        empty = None
        if empty_file is not None:
            try:
                empty = load(empty_file)
            except ImageError as exc:
                _fail(f"the photo of the empty layout: {exc}")
        result = reader.read(img, zones, empty)
        result["needs_confirmation"] += [{"hand": None, "seat": None, "card": None,
                                          "reason": n} for n in notes]
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
        out = save(adapter, out)
        click.echo(f"enrolled the deck of {len(photos)} photos into {out}")

    @vision.command("enroll-table")
    @click.argument("out", type=click.Path(path_type=Path), required=False)
    @click.option("--table", "table_name", required=True,
                  help="The table whose logged scans to learn its deck from.")
    @click.option("--last", type=click.IntRange(1, MOST_ROUNDS), default=20, show_default=True,
                  help="Use the table's most recent N scanned rounds.")
    @photos_option
    @database_option
    def enroll_table(out: Path | None, table_name: str, last: int, folder: Path | None,
                     database_url: str | None) -> None:
        """Enroll a table's deck from its own logged scans: [OUT.npz].

        Every scanned round logged at the table that stands (not voided, corrected or a
        misdeal) and whose photo is kept is read again; its reads are labelled with the
        cards the dealer confirmed at each seat. Without OUT the deck goes on record in the
        hand log (a deck.enrolled event on the table's chain, naming the rounds it was
        learnt from) and where the server reads it (DECK_DIR of the instance config.py,
        else decks/ in the instance), and every scan at the table, on the dealer screen or
        `scan --table`, reads with it. With OUT it is only written there (`vision deck
        install` puts it on record later).
        """
        from rich.console import Console
        from rich.progress import track

        from dealer_assist.services.deck_learning import learn_from_scans
        from dealer_assist.services.deck_photos import confirmed_scans
        from dealer_assist.services.errors import ServiceError
        from dealer_assist.vision.enroll import save

        from .decks import install_deck
        from .photos import _store

        def progress(scans: Iterator[Any]) -> Iterator[Any]:
            return iter(track(list(scans), description="reading the scanned rounds' photos",
                              console=Console(stderr=True), transient=True))

        try:
            with _session(database_url) as session:
                found = confirmed_scans(session, _store(folder), table_name, last=last)
            learnt = learn_from_scans(found, each=progress)
        except ServiceError as exc:
            _fail(exc.message)
        for serial, why in learnt.unreadable.items():
            click.echo(f"round {serial} left out: {why}", err=True)
        if out is not None:
            target = save(learnt.deck, out)
        else:  # on record, then where the server reads it
            target, _ = install_deck(learnt.file_bytes(), found.table, database_url,
                                     learnt.detail())
        click.echo(f"enrolled {learnt.summary()} into {target}")

    from .decks import register as register_decks

    register_decks(vision)

    table = group.commands.get("table")
    if isinstance(table, click.Group):  # the store's `table` group (registered first)
        _register_zones(table)


def _register_zones(table: click.Group) -> None:
    @table.command("zones")
    @click.argument("name")
    @click.option("--photo", "photo_file", type=click.Path(path_type=Path),
                  help="Photo of the table's empty layout (JPEG or PNG) from where the camera "
                       "stands (default: the reference photo on record).")
    @click.option("--zones", "zones_file", type=click.Path(path_type=Path),
                  help='The zones in that photo\'s pixels: {"1": [[x, y], ...], ..., '
                       '"dealer": [[x, y], ...]} (a generator truth file works too).')
    @click.option("--clear", is_flag=True, help="Take the zones off (seats follow the arc).")
    @photos_option
    @database_option
    def zones(name: str, photo_file: Path | None, zones_file: Path | None, clear: bool,
              folder: Path | None, database_url: str | None) -> None:
        """Draw table NAME's seat zones for the camera (or show them, or --clear them).

        The zones go on the table's record and audit chain with the reference photo's
        SHA-256; the photo is kept where the server keeps scanned photos. Scans at the
        table then seat each hand by the zone it lies in. The admin's tables page draws
        them by clicking on the photo.
        """
        from dealer_assist.services import scan as scan_service
        from dealer_assist.services.admin import get_table
        from dealer_assist.services.errors import ServiceError
        from dealer_assist.services.seat_zones import clear_zones, draw_zones, zones_on_record

        from .photos import _store

        if clear and (photo_file or zones_file):
            _fail("--clear takes no --photo or --zones")
        if clear:
            with _session(database_url) as session:
                cleared = clear_zones(session, name)
            click.echo(f"table {name}: seat zones taken off" if cleared
                       else f"table {name} had no seat zones")
            return
        if zones_file is None:
            if photo_file is not None:
                _fail("--photo needs --zones (the zones drawn on it)")
            with _session(database_url) as session:
                record = zones_on_record(get_table(session, name).seat_zones)
            click.echo(json.dumps(record.as_record() if record else None))
            return
        photo = None
        try:
            raw = json.loads(zones_file.read_text(encoding="utf-8"))
            if photo_file is not None:
                photo = scan_service.check_photo(photo_file.read_bytes())
        except OSError as exc:
            _fail(f"cannot read {exc.filename}: {exc.strerror}")
        except ValueError as exc:
            _fail(f"zones file {zones_file} is not JSON: {exc}")
        except ServiceError as exc:
            _fail(f"{photo_file}: {exc.message}")
        if isinstance(raw, dict) and isinstance(raw.get("zones"), dict):
            raw = raw["zones"]  # a generator truth file, or a record printed by this command
        with _session(database_url) as session:
            record = draw_zones(session, _store(folder), name, raw, photo=photo)
        click.echo(f"table {name}: seat zones of {record.summary()} on reference photo "
                   f"{record.photo_sha256} ({record.size[0]}x{record.size[1]})"
                   if record.size else f"table {name}: seat zones of {record.summary()}")
