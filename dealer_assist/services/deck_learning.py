"""A table's deck learnt from its own logged scans, and a deck file put on record.

Every scanned round a dealer logged is a labelled photo (:mod:`.deck_photos`): reading each
photo again and labelling the reads with the cards the dealer confirmed teaches the reader
the table's deck (``vision.enroll``). A deck changes how every scan at the table reads, so
it goes on record first (:func:`.table_decks.set_table_deck`) and only then where the server
reads it: the server never reads with a deck that is not on record. Used by ``dealer-assist
vision enroll-table`` / ``vision deck install|remove`` and the admin's tables page (which
reads the photos outside the queue of writers: about a second each).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import orm

from ._base import UserRef, counted
from .deck_photos import TableScans
from .errors import InvalidInput
from .scan import deck_file
from .table_decks import set_table_deck

if TYPE_CHECKING:  # the card reader (OpenCV and its models) loads only when a deck is learnt
    from dealer_assist.vision.reader import Reader


@dataclass
class LearntDeck:
    """What :func:`learn_from_scans` learnt a table's deck from."""

    table: str
    #: the deck (``vision.enroll``'s corrections)
    deck: dict[str, Any]
    #: serials of the rounds whose photos were read
    rounds: list[int] = field(default_factory=list)
    #: cards the dealer confirmed in those rounds, and how many of them the reads found
    confirmed: int = 0
    labelled: int = 0
    #: rounds left out: their photo is no longer kept, or could not be read (serial: why)
    missing_photos: list[int] = field(default_factory=list)
    unreadable: dict[int, str] = field(default_factory=dict)

    def summary(self) -> str:
        """One line for the person who asked: what the deck was learnt from."""
        return (f"table {self.table}'s deck from {counted(len(self.rounds), 'scanned round')} "
                f"({self.labelled} of their {self.confirmed} confirmed cards found in the "
                f"photos){self._left_out()}")

    def _left_out(self) -> str:
        return _left_out(self.missing_photos) + (
            f"; {len(self.unreadable)} left out, their photos unreadable (serials "
            f"{', '.join(map(str, list(self.unreadable)[:10]))})" if self.unreadable else "")

    def file_bytes(self) -> bytes:
        """The deck as the bytes of its ``.npz`` file (``vision.enroll.dumps``)."""
        from dealer_assist.vision.enroll import dumps

        return dumps(self.deck)

    def detail(self) -> dict[str, Any]:
        """What goes on record with the deck: the rounds it was learnt from."""
        return {"source": "scans", "rounds": sorted(self.rounds),
                "cards_confirmed": self.confirmed, "cards_labelled": self.labelled}


def _left_out(missing_photos: list[int]) -> str:
    if not missing_photos:
        return ""
    return (f"; {counted(len(missing_photos), 'scanned round')} left out, their photos no "
            f"longer kept (serials {', '.join(map(str, missing_photos[:10]))})")


def learn_from_scans(found: TableScans, reader: Reader | None = None,
                     each: Callable[[Iterator[Any]], Iterator[Any]] | None = None) -> LearntDeck:
    """The deck shown in a table's confirmed scans (``deck_photos.confirmed_scans``), each
    photo read again with the table's seat zones by ``reader`` (default: the installed card
    model) and its reads labelled with the cards confirmed at each seat. ``each`` wraps the
    scans as they are read (a progress bar). Raises InvalidInput when there is nothing to
    learn from (no scanned round, or no confirmed card found in their photos), or no card
    model is installed."""
    from dealer_assist.vision.enroll import confirmed_labels, enroll, read_upright
    from dealer_assist.vision.geometry import EmptyLayout
    from dealer_assist.vision.loading import ImageError, load
    from dealer_assist.vision.reader import Reader as CardReader

    learnt = LearntDeck(found.table, {}, missing_photos=list(found.missing_photos))
    if not found.scans:
        raise InvalidInput(f"table {found.table}: no logged scanned round to learn from"
                           f"{_left_out(found.missing_photos)}")
    if reader is None:
        try:
            reader = CardReader()
        except FileNotFoundError as exc:
            raise InvalidInput(f"no card model installed: {exc}") from exc

    try:  # read as the scans were: compared with the table's empty layout
        empty = None if found.empty is None else EmptyLayout(load(found.empty))
    except ImageError:
        empty = None

    def labelled() -> Iterator[tuple[Any, dict[str, Any]]]:
        for scan in (each or iter)(iter(found.scans)):
            try:
                image = load(scan.photo)
            except ImageError as exc:
                learnt.unreadable[scan.serial] = str(exc)
                continue
            zones = found.zones_for(None if empty is not None else
                                    (image.shape[1], image.shape[0]))
            image, read = read_upright(image, reader.read(image, zones, empty))
            labels = confirmed_labels(read, scan.cards)
            learnt.rounds.append(scan.serial)
            learnt.confirmed += sum(len(c) for c in scan.cards.values())
            learnt.labelled += sum(c["card"] is not None for c in labels["cards"])
            yield image, labels

    learnt.deck = enroll(reader, labelled())
    if not learnt.deck:
        raise InvalidInput(f"table {found.table}: no confirmed card was found in the photos "
                           f"of its {counted(len(learnt.rounds), 'scanned round')}"
                           f"{learnt._left_out()}")
    return learnt


def install_deck_file(session: orm.Session, deck_dir: str | Path, table: str, data: bytes, *,
                      actor: UserRef | None = None,
                      detail: dict[str, Any] | None = None) -> tuple[Path, str]:
    """Put a deck file's bytes on record for ``table`` and where the server reads it
    (``scan.deck_file`` in ``deck_dir``): written beside it first, recorded, then moved
    into place (a failed record leaves the server's deck as it was). Returns the file and
    its SHA-256."""
    target = deck_file(deck_dir, table)
    target.parent.mkdir(parents=True, exist_ok=True)
    staged = target.with_name(f".new-{target.name}")
    staged.write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    try:
        set_table_deck(session, table, sha, actor=actor, detail=detail)
        os.replace(staged, target)
    finally:
        staged.unlink(missing_ok=True)
    return target, sha


def remove_deck_file(session: orm.Session, deck_dir: str | Path, table: str, *,
                     actor: UserRef | None = None) -> None:
    """Stop reading ``table``'s scans with its enrolled deck: recorded (``deck.removed``),
    then its file removed. Raises Conflict when it has none on record."""
    set_table_deck(session, table, None, actor=actor)
    deck_file(deck_dir, table).unlink(missing_ok=True)
