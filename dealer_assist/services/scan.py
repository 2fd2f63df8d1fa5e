"""Scanning a table photo for the web and the API, and keeping the photos of scanned rounds.

:func:`scan_photo` checks the bytes (size, kind, pixels: nothing over the limits is
decoded), reads the cards with the vision reader (``dealer_assist.vision.reader.Reader``,
through its public interface only) against the table's seat zones, and answers the JSON
of ``dealer-assist scan --json`` plus the photo's SHA-256. One photo is decoded and read at
a time per process (the reader keeps per-call state, and a decoded photo is the largest
thing a request holds), so memory stays bounded however many requests arrive.

:class:`PhotoStore` keeps photos content-addressed by SHA-256 in a folder (by default the
instance folder's ``photos/``): a round logged after a scan names its photo by hash
(``photo_sha256``, covered by the round's digest in the audit chain), and the photo stays
readable beside it.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .errors import InvalidInput, NotFound, ServiceError

#: Largest photo accepted over HTTP, in bytes (a 12-megapixel JPEG is 3-8 MB).
MAX_BYTES = 16_000_000
#: Largest photo accepted over HTTP, in pixels: a 12-megapixel camera frame with room to
#: spare; decoded it is 48 MB (3 bytes a pixel).
MAX_PIXELS = 16_000_000
#: How long a request waits for the reader while another photo is being read.
WAIT_SECONDS = 30.0

SHA256 = re.compile(r"^[0-9a-f]{64}$")
_TYPES = {"jpeg": ("image/jpeg", ".jpg"), "png": ("image/png", ".png")}


class InvalidPhoto(InvalidInput):
    """Not a photo the reader will decode: empty, not JPEG/PNG, truncated, corrupt."""

    status = 422


class PhotoTooLarge(InvalidInput):
    """Over the byte or the pixel limit: refused before anything is decoded."""

    status = 413


class ScannerUnavailable(ServiceError):
    """No card model installed, or the reader stayed busy past the wait."""

    status = 503


@dataclass(frozen=True, slots=True)
class Photo:
    """A photo's bytes as checked from its header (nothing decoded yet)."""

    data: bytes
    kind: str  # "jpeg" | "png"
    width: int
    height: int

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def media_type(self) -> str:
        return _TYPES[self.kind][0]


def check_photo(data: bytes, *, max_bytes: int = MAX_BYTES,
                max_pixels: int = MAX_PIXELS) -> Photo:
    """The photo's kind and size from its header; raises InvalidPhoto or PhotoTooLarge."""
    from dealer_assist.vision.loading import ImageError, check_shape, image_size

    if len(data) > max_bytes:
        raise PhotoTooLarge(f"the photo is {len(data) / 1e6:.1f} MB; the limit is "
                            f"{max_bytes / 1e6:.0f} MB")
    if not data:
        raise InvalidPhoto("the photo is empty (no bytes were sent)")
    try:
        kind, width, height = image_size(data)
        check_shape(kind, width, height)
    except ImageError as exc:
        # the reader's message says what it is, and what to send instead
        raise InvalidPhoto(f"not a photo the scanner can read: {exc}") from None
    if width * height > max_pixels:
        raise PhotoTooLarge(f"the photo is {width}x{height} ({width * height / 1e6:.0f} "
                            f"megapixels); the limit is {max_pixels / 1e6:.0f} megapixels: "
                            f"take it at a lower resolution")
    return Photo(data, kind, width, height)


# ---------------------------------------------------------------- seat zones

#: How far a photo's shape may differ from the reference photo's (width over height) for
#: the zones drawn on that one to be scaled to it: the same camera frame at another
#: resolution, not another frame (the reader's ``vision.geometry.SAME_SHAPE``, for when the
#: reference photo is not at hand: importing the reader here would load OpenCV).
SHAPE_TOLERANCE = 0.02


def table_zones(raw: object, seats: int, size: tuple[int, int] | None = None
                ) -> tuple[dict[str, Any] | None, str | None]:
    """A table's stored seat zones as the reader takes them, and a note when they are
    unusable (then the reader seats hands along the arc and says so). Zones drawn on a
    reference photo of another ``size`` (the photo read's) are scaled to it, when the two
    have the same shape.

    >>> drawn = {"zones": {"1": [[100, 100], [300, 100], [300, 200]]}, "size": [1920, 1080]}
    >>> table_zones(drawn, 7, (960, 540))
    ({'1': [[50.0, 50.0], [150.0, 50.0], [150.0, 100.0]]}, None)
    >>> table_zones(drawn, 7, (1080, 1920))[1]
    'the photo is 1080x1920 and the seat zones were drawn on a 1920x1080 photo'
    """
    if raw is None or raw == {}:
        return None, None
    sx = sy = 1.0
    if isinstance(raw, Mapping) and "zones" in raw:
        drawn = raw.get("size")
        if size is not None and isinstance(drawn, list | tuple) and len(drawn) == 2:
            (w, h), (dw, dh) = size, (float(drawn[0]), float(drawn[1]))
            if dw > 0 and dh > 0 and (w, h) != (dw, dh):
                if abs((w / h) / (dw / dh) - 1) > SHAPE_TOLERANCE:
                    return None, (f"the photo is {w}x{h} and the seat zones were drawn on a "
                                  f"{dw:.0f}x{dh:.0f} photo")
                sx, sy = w / dw, h / dh
        raw = raw["zones"]
    if not isinstance(raw, Mapping):
        return None, "the table's seat zones are not a mapping of seat to polygon"
    zones: dict[str, Any] = {}
    for key, poly in raw.items():
        key = str(key)
        if key != "dealer" and not (key.isdigit() and 1 <= int(key) <= seats):
            continue  # a zone for a seat this table does not have
        ok = isinstance(poly, list) and len(poly) >= 3 and all(
            isinstance(p, list | tuple) and len(p) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in p)
            for p in poly)
        if not ok:
            return None, f'the table\'s seat zone "{key}" is not a polygon of [x, y] points'
        zones[key] = [[float(x) * sx, float(y) * sy] for x, y in poly]
    return (zones or None), None


# ---------------------------------------------------------------- reading

_lock = threading.Lock()
_readers: dict[float, Any] = {}


def _reader(threshold: float) -> Any:
    """One reader per process and threshold (loading the model takes a while), made as
    ``dealer-assist scan`` makes it."""
    from dealer_assist.vision.reader import Reader

    reader = _readers.get(threshold)
    if reader is None:
        try:
            reader = Reader(threshold=threshold)
        except FileNotFoundError as exc:
            raise ScannerUnavailable(f"no card model is installed: {exc}") from None
        except ValueError as exc:  # a model file that is not the reader's
            raise ScannerUnavailable(f"the card model cannot be used: {exc}") from None
        _readers[threshold] = reader
    return reader


def deck_file(folder: str | os.PathLike[str], table: str) -> Path:
    """Where a table's enrolled deck is kept in ``folder`` (``dealer-assist vision
    enroll-table`` writes it there; scans at the table read with it): the table's name,
    percent-encoded, ``.npz``.

    >>> deck_file("decks", "TCP 1/b").name
    'TCP%201%2Fb.npz'
    """
    return Path(folder) / (quote(table, safe="") + ".npz")


_empties: dict[Path, Any] = {}
#: Photos of empty layouts kept decoded (one per table that has one; 6 MB at 1080p).
EMPTIES_KEPT = 8


def _empty_layout(path: Path) -> Any:
    """The photo of a table's empty layout, decoded once and kept with what every scan at
    the table compares with it (``vision.geometry.EmptyLayout``); None when it cannot be
    read."""
    from dealer_assist.vision.geometry import EmptyLayout
    from dealer_assist.vision.loading import ImageError, load

    layout = _empties.get(path)
    if layout is None:
        try:
            layout = EmptyLayout(load(path))
        except ImageError:
            return None
        if len(_empties) >= EMPTIES_KEPT:
            _empties.pop(next(iter(_empties)))
        _empties[path] = layout
    return layout


def scan_photo(photo: Photo, zones: Mapping[str, Any] | None, *,
               threshold: float | None = None,
               wait_seconds: float = WAIT_SECONDS,
               deck: Path | None = None, deck_on_record: str | None = None,
               empty: Path | None = None) -> dict[str, Any]:
    """Read the cards of a checked photo; the ``scan --json`` result plus ``photo_sha256``,
    ``threshold`` and ``image`` (its size). ``deck``: the table's enrolled deck file, read
    with when it is the table's deck on record (``deck_on_record``, its SHA-256; see
    ``table_decks``) and fits the installed card model (else the photo is read without it
    and a note says why); ``deck_sha256`` names the file read with, or is None.
    ``empty``: the kept photo of the table's empty layout (the seat zones' reference, named
    by its SHA-256), so the layout's print is not taken for cards; ``layout_sha256`` names
    it, or is None."""
    from dealer_assist.vision.enroll import load as load_deck
    from dealer_assist.vision.loading import ImageError, decode
    from dealer_assist.vision.reader import DEFAULT_THRESHOLD

    from .table_decks import deck_to_read_with

    used = DEFAULT_THRESHOLD if threshold is None else float(threshold)
    if not _lock.acquire(timeout=wait_seconds):
        raise ScannerUnavailable("the scanner is busy reading other photos; try again")
    notes: list[str] = []
    deck_sha: str | None = None
    layout = None  # the empty layout compared with
    try:
        reader = _reader(used)
        data, note = deck_to_read_with(deck, deck_on_record)
        notes += [note] if note else []
        if deck is not None and data is not None:
            try:
                reader = reader.with_deck(load_deck(deck.name, data))  # no server path shown
                deck_sha = hashlib.sha256(data).hexdigest()
            except ValueError as exc:
                notes.append(f"the table's enrolled deck {deck.name} was not used ({exc}); "
                             "enroll the table's deck again")
        try:
            image = decode(photo.data, max_pixels=photo.width * photo.height)
        except ImageError as exc:
            raise InvalidPhoto(str(exc)) from None  # it says what is wrong with the photo
        layout = None if empty is None else _empty_layout(empty)
        if empty is not None and layout is None:
            notes.append("the photo of the table's empty layout could not be read: the "
                         "layout's print may be read as cards")
        result: dict[str, Any] = dict(reader.read(image, dict(zones) if zones else None,
                                                  layout))
        del image
    finally:
        _lock.release()
    result.setdefault("image", {"width": photo.width, "height": photo.height})
    result["needs_confirmation"] += [{"hand": None, "seat": None, "card": None, "reason": n}
                                     for n in notes]
    result["threshold"] = used
    result["deck_sha256"] = deck_sha
    result["layout_sha256"] = None if layout is None or empty is None else empty.stem
    result["photo_sha256"] = photo.sha256
    return result


# ---------------------------------------------------------------- keeping photos

class PhotoStore:
    """Photos under ``root``, one file per SHA-256: ``root/ab/ab12....jpg``.

    Written once (to a temporary file, then renamed) and never changed; storing the same
    photo twice keeps one file."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def _folder(self, sha256: str) -> Path:
        return self.root / sha256[:2]

    def put(self, photo: Photo) -> str:
        sha = photo.sha256
        folder = self._folder(sha)
        target = folder / (sha + _TYPES[photo.kind][1])
        if target.is_file():
            return sha
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(photo.data)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, 0o640)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return sha

    def find(self, sha256: str) -> tuple[Path, str] | None:
        """The stored file and its media type, or None."""
        if not SHA256.match(sha256):
            return None
        for media_type, ext in _TYPES.values():
            path = self._folder(sha256) / (sha256 + ext)
            if path.is_file():
                return path, media_type
        return None

    def has(self, sha256: str) -> bool:
        return self.find(sha256) is not None

    def stored(self) -> Iterator[tuple[str, Path]]:
        """Every kept photo: (SHA-256 its name gives, file)."""
        if not self.root.is_dir():
            return
        exts = {ext for _, ext in _TYPES.values()}
        for folder in sorted(self.root.iterdir()):
            if not folder.is_dir():
                continue
            for path in sorted(folder.iterdir()):
                if path.suffix in exts and SHA256.match(path.stem) and path.is_file():
                    yield path.stem, path

    def get(self, sha256: str) -> tuple[bytes, str]:
        found = self.find(sha256)
        if found is None:
            raise NotFound(f"no photo with SHA-256 {sha256[:64]!r} is stored")
        path, media_type = found
        return path.read_bytes(), media_type


def check_photo_ref(store: PhotoStore, sha256: object) -> str:
    """A round's ``photo_sha256`` as sent: 64 lowercase hex digits of a stored photo."""
    if not isinstance(sha256, str) or not SHA256.match(sha256):
        raise InvalidInput("photo_sha256 must be 64 lowercase hex digits (the photo_sha256 "
                           "a scan answered)")
    if not store.has(sha256):
        raise NotFound(f"no scanned photo with SHA-256 {sha256} is stored here: scan the "
                       f"photo first (POST .../scan), then log the round")
    return sha256


__all__ = ["EMPTIES_KEPT", "MAX_BYTES", "MAX_PIXELS", "SHAPE_TOLERANCE", "InvalidPhoto", "Photo",
           "PhotoStore", "PhotoTooLarge", "ScannerUnavailable", "check_photo", "check_photo_ref",
           "scan_photo", "table_zones"]
