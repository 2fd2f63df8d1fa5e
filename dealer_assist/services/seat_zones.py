"""A table's seat zones for the camera, drawn by the admin on a photo of the empty layout.

The admin photographs the table's empty layout from where the camera stands and outlines
on it where each seat's hand lies, and the dealer's; a scan at the table then seats every
hand by the zone it lies in (``vision.reader.assign_seats``). The zones go on the table's
record (``GamingTable.seat_zones``, so on its audit chain) as::

    {"zones": {"1": [[x, y], ...], ..., "dealer": [[x, y], ...]},
     "photo_sha256": "...", "size": [width, height]}

in the reference photo's pixels; the photo is kept beside the scans' photos, named by its
SHA-256. A scan at another resolution of the same frame gets the zones scaled to it
(:func:`.scan.table_zones`). The reference photo does a second job: every scan at the table
is compared with it, so the layout's print (the betting circles, the game's rules) is not
taken for cards (``vision.geometry.card_mask``); a photo with a card on it is refused.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import orm

from ._base import UserRef
from .admin import get_table, update_table
from .errors import InvalidInput
from .scan import Photo, PhotoStore

#: Most points in one zone (a seat's box needs 4; a curved one a few more).
MOST_POINTS = 40
#: Smallest zone, in square pixels of the reference photo: a few cards' area at the
#: smallest card size the reader finds. Smaller is a slip of the mouse.
LEAST_AREA = 400.0


@dataclass(frozen=True)
class ZonesOnRecord:
    """A table's seat zones as recorded: the polygons by seat ("1".."7", "dealer"), the
    reference photo's SHA-256 and size (None for zones set without one)."""

    zones: dict[str, list[list[float]]]
    photo_sha256: str | None
    size: tuple[int, int] | None

    def as_record(self) -> dict[str, Any]:
        return {"zones": self.zones, "photo_sha256": self.photo_sha256,
                "size": list(self.size) if self.size else None}

    def summary(self) -> str:
        """Which zones are drawn, in the casino's words.

        >>> ZonesOnRecord({"2": [], "1": [], "dealer": []}, None, None).summary()
        'seats 1, 2 and the dealer'
        >>> ZonesOnRecord({"3": []}, None, None).summary()
        'seat 3'
        """
        seats = sorted(int(k) for k in self.zones if k != "dealer")
        parts = []
        if seats:
            parts.append(("seat " if len(seats) == 1 else "seats ")
                         + ", ".join(str(s) for s in seats))
        if "dealer" in self.zones:
            parts.append("the dealer")
        return " and ".join(parts) or "no zone"


def zones_on_record(raw: object) -> ZonesOnRecord | None:
    """The record a table holds, read back (None when no zones are drawn). Zones stored
    bare (a mapping of seat to polygon, as ``update_table`` takes them) have no photo."""
    if not isinstance(raw, Mapping) or not raw:
        return None
    zones = raw.get("zones", raw)
    if not isinstance(zones, Mapping) or not zones:
        return None
    size = raw.get("size")
    sha = raw.get("photo_sha256")
    try:
        return ZonesOnRecord(
            {str(k): [[float(x), float(y)] for x, y in v] for k, v in zones.items()},
            sha if isinstance(sha, str) else None,
            (int(size[0]), int(size[1])) if isinstance(size, list | tuple) and len(size) == 2
            else None)
    except (TypeError, ValueError):  # not zones as drawn (scans say so: .scan.table_zones)
        return None


def _where(key: str) -> str:
    return "the dealer's zone" if key == "dealer" else f"seat {key}'s zone"


def _area(points: list[list[float]]) -> float:
    """The polygon's area (shoelace)."""
    total = 0.0
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True):
        total += x0 * y1 - x1 * y0
    return abs(total) / 2


def check_zones(raw: object, seats: int, size: tuple[int, int]) -> dict[str, list[list[float]]]:
    """The zones as drawn (a mapping, or its JSON text), checked against a table of
    ``seats`` seats and a reference photo of ``size``; raises InvalidInput naming the
    zone and the point at fault.

    >>> check_zones({"1": [[0, 0], [100, 0], [100, 50]]}, 7, (1920, 1080))
    {'1': [[0.0, 0.0], [100.0, 0.0], [100.0, 50.0]]}
    >>> check_zones({"8": [[0, 0], [100, 0], [100, 50]]}, 7, (1920, 1080))
    Traceback (most recent call last):
    ...
    dealer_assist.services.errors.InvalidInput: zone "8": the table has seats 1-7 and the dealer
    >>> check_zones({"2": [[0, 0], [2000, 0], [100, 50]]}, 7, (1000, 600))
    Traceback (most recent call last):
    ...
    dealer_assist.services.errors.InvalidInput: seat 2's zone: point 2 (2000, 0) lies off the 1000x600 photo
    """
    if isinstance(raw, str | bytes):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise InvalidInput(f"the zones are not JSON: {exc}") from None
    if not isinstance(raw, Mapping):
        raise InvalidInput('the zones must map each seat ("1".."7", "dealer") to a polygon')
    width, height = size
    out: dict[str, list[list[float]]] = {}
    for key in raw:
        name = str(key)
        if name != "dealer" and not (name.isdigit() and 1 <= int(name) <= seats):
            raise InvalidInput(f'zone "{name}": the table has seats 1-{seats} and the dealer')
        poly = raw[key]
        if not isinstance(poly, list) or not 3 <= len(poly) <= MOST_POINTS:
            raise InvalidInput(f"{_where(name)}: a polygon of 3 to {MOST_POINTS} [x, y] "
                               f"points (click its corners on the photo)")
        points: list[list[float]] = []
        for n, point in enumerate(poly, 1):
            ok = (isinstance(point, list | tuple) and len(point) == 2
                  and all(isinstance(v, int | float) and not isinstance(v, bool)
                          and math.isfinite(v) for v in point))
            if not ok:
                raise InvalidInput(f"{_where(name)}: point {n} is not a pair of numbers "
                                   f"({point!r:.40})")
            x, y = float(point[0]), float(point[1])
            if not (0 <= x <= width and 0 <= y <= height):
                raise InvalidInput(f"{_where(name)}: point {n} ({x:g}, {y:g}) lies off "
                                   f"the {width}x{height} photo")
            points.append([round(x, 1), round(y, 1)])
        if _area(points) < LEAST_AREA:
            raise InvalidInput(f"{_where(name)} has almost no area ({_area(points):.0f} square "
                               f"pixels): click the corners around where the hand lies")
        out[name] = points
    if not out:
        raise InvalidInput("draw at least one seat's zone")
    return out


#: A card read at this confidence or more on the photo of the empty layout means it is not
#: empty. On 60 generated empty layouts (print, the chip tray) the surest read was 0.42; on
#: a photo of a dealt table two thirds of the cards read over 0.95.
CARD_ON_EMPTY = 0.8


def check_empty(photo: Photo) -> None:
    """Raise InvalidInput when the reader finds a card on the photo of the empty layout:
    every scan compares with it, and a card lying there would be taken for the layout's
    print at every scan after."""
    from .scan import scan_photo

    cards = [c for c in scan_photo(photo, None)["cards"] if c["confidence"] >= CARD_ON_EMPTY]
    if cards:
        shown = ", ".join(sorted({c["card"] for c in cards})[:6])
        raise InvalidInput(f"the photo of the empty layout shows cards ({shown}): take it "
                           f"with no cards on the table")


def draw_zones(session: orm.Session, photos: PhotoStore, table: str, zones: object, *,
               photo: Photo | None = None, actor: UserRef | None = None,
               photo_checked: bool = False) -> ZonesOnRecord:
    """Record ``table``'s seat zones, drawn on ``photo`` (a new reference photo, kept in
    ``photos``) or, without one, on the reference photo already on record. The record is
    written whole or not at all; raises InvalidInput (nothing written) for bad zones, no
    photo to draw on or a photo with cards on it (:func:`check_empty`, unless the caller
    ran it already: ``photo_checked``), NotFound for an unknown table."""
    info = get_table(session, table)
    before = zones_on_record(info.seat_zones)
    if photo is not None:
        size, sha = (photo.width, photo.height), photo.sha256
    elif before is not None and before.size is not None and before.photo_sha256 is not None:
        size, sha = before.size, before.photo_sha256
    else:
        raise InvalidInput(f"table {info.name} has no reference photo yet: take or upload "
                           f"a photo of its empty layout to draw the zones on")
    record = ZonesOnRecord(check_zones(zones, info.seats, size), sha, size)
    if photo is not None:
        if not photo_checked:
            check_empty(photo)
        photos.put(photo)  # before the record names it; the same photo twice is one file
    update_table(session, info.name, actor=actor, seat_zones=record.as_record())
    return record


def empty_layout(photos: PhotoStore, raw: object) -> tuple[Path | None, str | None]:
    """The kept photo of the empty layout a table's zones (as recorded) were drawn on, and
    a note when the record names one that is not kept here."""
    record = zones_on_record(raw)
    if record is None or record.photo_sha256 is None:
        return None, None
    found = photos.find(record.photo_sha256)
    if found is None:
        return None, (f"the photo of the table's empty layout ({record.photo_sha256[:12]}) "
                      f"is not kept here: the layout's print may be read as cards")
    return found[0], None


def clear_zones(session: orm.Session, table: str, *, actor: UserRef | None = None) -> bool:
    """Take the table's seat zones off (scans then seat hands along the table's arc);
    False when it had none. The reference photo stays kept (the record names it)."""
    info = get_table(session, table)
    if zones_on_record(info.seat_zones) is None:
        return False
    update_table(session, info.name, actor=actor, seat_zones={})
    return True


__all__ = ["CARD_ON_EMPTY", "LEAST_AREA", "MOST_POINTS", "ZonesOnRecord", "check_empty",
           "check_zones", "clear_zones", "draw_zones", "empty_layout", "zones_on_record"]
