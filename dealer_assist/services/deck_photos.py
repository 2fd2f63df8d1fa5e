"""The confirmed scans of a table, to teach the reader that table's deck.

Every scanned round a dealer logged is a labelled photo: its photo is kept (by SHA-256, see
:class:`~.scan.PhotoStore`) and the cards logged at each seat are the ones the dealer
confirmed. :func:`confirmed_scans` lists a table's most recent such rounds that still stand
(no void, correction or misdeal declared on them) with their photo and cards, for
``dealer-assist vision enroll-table`` to enroll the table's deck from (nobody has to draw
card corners by hand).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.store import models as m

from ._base import find_table, read
from .scan import PhotoStore, table_zones
from .seat_zones import empty_layout

#: The most scanned rounds a table's deck is learnt from at once (each photo is read again).
MOST_ROUNDS = 500


@dataclass(frozen=True, slots=True)
class ConfirmedScan:
    """A logged scanned round: its photo and the cards confirmed at each seat."""

    serial: int
    photo: Path
    #: seat ("1".."7", or "dealer") -> the cards logged there
    cards: dict[str, list[str]]


@dataclass
class TableScans:
    """What :func:`confirmed_scans` found for a table."""

    table: str
    scans: list[ConfirmedScan]
    #: serials of the rounds whose photo is no longer kept
    missing_photos: list[int]
    #: the zones as the table records them, and its seats
    seat_zones: object = None
    seats: int = 7
    #: the kept photo of the table's empty layout its zones were drawn on (scans are
    #: compared with it), or None
    empty: Path | None = None

    @property
    def zones(self) -> dict[str, Any] | None:
        """The table's seat zones as the reader takes them (None: seats follow the arc), in
        the pixels of the photo they were drawn on (:meth:`zones_for` another photo)."""
        return self.zones_for(None)

    def zones_for(self, size: tuple[int, int] | None) -> dict[str, Any] | None:
        """The seat zones for a photo of ``size`` (scaled as a scan's), or as drawn (when
        the reader maps them from the photo of the empty layout: ``size`` None)."""
        return table_zones(self.seat_zones, self.seats, size)[0]


def confirmed_scans(session: orm.Session, store: PhotoStore, table: str, *,
                    last: int = 20) -> TableScans:
    """The table's ``last`` most recent scanned rounds that stand as logged (newest first),
    each with its kept photo and its cards by seat. Raises NotFound for an unknown table."""
    with read(session):
        info = find_table(session, table)
        rounds = session.scalars(
            sa.select(m.Round)
            .where(m.Round.table_id == info.id, m.Round.source == "scan",
                   m.Round.photo_sha256.is_not(None), ~m.Round.misdeal,
                   ~sa.exists().where(m.RoundEvent.round_id == m.Round.id))
            .order_by(m.Round.serial.desc()).limit(max(0, last))
            .options(orm.selectinload(m.Round.seats))).all()
        found: list[ConfirmedScan] = []
        missing: list[int] = []
        for rnd in rounds:
            kept = store.find(str(rnd.photo_sha256))
            if kept is None:
                missing.append(rnd.serial)
                continue
            cards = {str(s.seat): s.cards.split() for s in rnd.seats}
            cards["dealer"] = rnd.dealer_cards.split()
            found.append(ConfirmedScan(rnd.serial, kept[0], cards))
    empty, _ = empty_layout(store, info.seat_zones)
    return TableScans(info.name, found, missing, info.seat_zones, info.seats, empty)
