"""Auditing and pruning the kept photos of scanned rounds.

A scanned round names its photo by SHA-256 (covered by the round's digest in the audit
chain); the photo itself is a file in the :class:`~.scan.PhotoStore`. :func:`check_photos`
tells an auditor whether every photo a logged round names is there and still hashes to its
name. :func:`prune_unlogged` deletes photos no logged round names (scans the dealer never
logged: a misread, a retake) once they are older than a given age, so the folder does not
grow for ever; photos of logged rounds, voided or not, and the photos of empty layouts that
seat zones were drawn on (named on the tables' audit chains) are never deleted.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.store import models as m

from ._base import counted
from .errors import InvalidInput
from .scan import PhotoStore


@dataclass
class PhotoCheck:
    """What :func:`check_photos` found."""

    logged: int = 0  # distinct photos named by logged rounds
    references: int = 0  # photos of empty layouts that seat zones were drawn on
    missing: list[str] = field(default_factory=list)  # named by a round, not kept
    altered: list[str] = field(default_factory=list)  # kept, but the bytes hash otherwise
    unlogged: list[tuple[str, Path]] = field(default_factory=list)  # kept, named by no round

    @property
    def ok(self) -> bool:
        return not self.missing and not self.altered

    def summary(self) -> str:
        head = (f"{counted(self.logged, 'photo')} of logged rounds and {self.references} of "
                f"empty layouts seat zones were drawn on, {len(self.missing)} missing, "
                f"{len(self.altered)} altered; {counted(len(self.unlogged), 'kept photo')} "
                f"{'belongs' if len(self.unlogged) == 1 else 'belong'} to no logged round")
        return ("OK: " if self.ok else "FAILED: ") + head


def _logged_photos(session: orm.Session) -> set[str]:
    rows = session.scalars(sa.select(m.Round.photo_sha256)
                           .where(m.Round.photo_sha256.is_not(None)).distinct())
    return {str(r) for r in rows}


def _reference_photos(session: orm.Session) -> set[str]:
    """The photos of empty layouts that seat zones were ever drawn on (:mod:`.seat_zones`):
    named by the tables' audit events, so kept while the record names them."""
    found: set[str] = set()
    payloads = session.scalars(sa.select(m.AuditEvent.payload).where(
        m.AuditEvent.action.in_(("table.created", "table.changed")),
        m.AuditEvent.payload.contains("photo_sha256")))
    for text in payloads:
        zones = json.loads(text).get("seat_zones")
        if isinstance(zones, dict) and isinstance(zones.get("photo_sha256"), str):
            found.add(zones["photo_sha256"])
    return found


def _digest(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def check_photos(session: orm.Session, store: PhotoStore) -> PhotoCheck:
    """Every photo a logged round names is kept and hashes to its name; photos kept for
    no round are listed (they are not a failure: a scan need not be logged)."""
    rounds, references = _logged_photos(session), _reference_photos(session)
    logged = rounds | references
    out = PhotoCheck(logged=len(rounds), references=len(references - rounds))
    kept: set[str] = set()
    for sha, path in store.stored():
        kept.add(sha)
        if _digest(path) != sha:
            out.altered.append(sha)
        elif sha not in logged:
            out.unlogged.append((sha, path))
    out.missing = sorted(logged - kept)
    return out


def prune_unlogged(session: orm.Session, store: PhotoStore, older_than: timedelta, *,
                   now: datetime | None = None, dry_run: bool = False) -> list[str]:
    """Delete kept photos that no logged round names and that were stored more than
    ``older_than`` ago (a photo just scanned may be about to be logged); the SHA-256s
    deleted (or, with ``dry_run``, that would be)."""
    if older_than < timedelta(hours=1):
        raise InvalidInput("photos are kept at least an hour after their scan: a dealer may "
                           "still be confirming the round")
    cutoff = (now or datetime.now(UTC)).timestamp() - older_than.total_seconds()
    logged = _logged_photos(session) | _reference_photos(session)
    gone = []
    for sha, path in store.stored():
        if sha in logged or path.stat().st_mtime > cutoff:
            continue
        if not dry_run:
            path.unlink(missing_ok=True)
        gone.append(sha)
    return gone
